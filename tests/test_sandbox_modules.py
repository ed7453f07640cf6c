"""User code may not make modules: SWI-Prolog never frees one.

import_module/2, which library(sandbox) allows, makes a module of any name it is given: a
grantee's `between(1, 200000, I), atom_concat(zz, I, M), import_module(M, _), fail` grew one
process by ~200 MB a request, for good (34 MB to 1,245 MB in six requests, each within every
limit of a call). Its name is refused now, as gensym/2's is.
"""
from __future__ import annotations

import pytest

from granted_home import granted_home, run_atc


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return granted_home(tmp_path_factory.mktemp("modules"))


@pytest.mark.parametrize("reader", [(), ("--as", "bob")], ids=["owner", "grantee"])
@pytest.mark.parametrize("goal", ["import_module(zz_made_by_a_goal, M)",
                                  "G = import_module(zz_made_by_a_goal), call(G, M)",
                                  "X = import_module"])
def test_import_module_is_refused_by_name(home, reader, goal):
    out = run_atc(home, "query", *reader, goal)
    assert out.returncode == 2, out.stdout
    assert "No permission to call sandboxed `import_module" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_import_module_is_refused_in_a_rules_file(home, tmp_path):
    rules = tmp_path / "mods.pl"
    rules.write_text("mods(M) :- import_module(zz_made_by_a_rule, M).\n", encoding="utf-8")
    out = run_atc(home, "rules", "add", str(rules))
    assert out.returncode == 2, out.stdout
    assert "import_module" in out.stderr
