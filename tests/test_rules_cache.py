"""The compiled rules (bridge/rules_cache.py): every `atc` process loaded rules/ from source
(~0.35 s of CPU); now the first writes their compiled form into $ATC_CACHE/rules/ and later
ones load it. It must give exactly what the sources give, never serve rules that changed, and
fall back to the sources where the cache cannot be used. Each case starts real processes:
the engine, and what it loaded, is one per process."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attention_cloud.bridge.rules_cache import cache_key

ROOT = Path(__file__).resolve().parent.parent

# Starts the engine, then prints where the rules came from, a fact read from the journal
# module (the stale test's probe) and, given a helper file, the loaded state it describes.
PROBE = r"""
import json, sys
from attention_cloud.bridge import get_prolog, Var
from attention_cloud.errors import PrologError
pl = get_prolog()
out = {"origin": pl.rules_origin}
try:
    found = pl.once("atc_journal:cache_probe_", Var())
    out["probe"] = found[0] if found else None
except PrologError:
    out["probe"] = None
if len(sys.argv) > 1:
    pl.consult(sys.argv[1])
    (out["state"],) = pl.once("user:loaded_state", Var())
print(json.dumps(out))
"""

# What a process loaded, as lines: every predicate a project module, user, prolog or sandbox
# defines, with its clause count and properties (sandbox's safe lists grow with each library
# loaded), and what the project modules import from modules that are not the system's (a
# system predicate is imported on its first call: that differs by what ran, not what loaded).
STATE = r"""
loaded_state(Lines) :-
    findall(Line, state_line_(Line), Lines0),
    msort(Lines0, Lines).

state_line_(Line) :-
    current_module(M),
    ( sub_atom(M, 0, _, _, atc_) ; memberchk(M, [user, prolog, sandbox]) ),
    current_predicate(M:N/A),
    M:N/A \== user:pyrun/2,             % pyswip's, asserted by its import: a process whose
    functor(H, N, A),                   % libswipl place is kept loads the library without it
    \+ ( predicate_property(M:H, imported_from(From)),
         ( sub_atom(From, 0, _, _, '$') ; From == system ) ),
    findall(P, ( predicate_property(M:H, P), kept_(P) ), Ps),
    format(string(Line), "~q", [M:N/A-Ps]).

kept_(number_of_clauses(_)).
kept_(dynamic).
kept_(exported).
kept_(imported_from(_)).
kept_(multifile).
kept_(meta_predicate(_)).
kept_(tabled).
"""


def _start(cache: Path, *args: str, pythonpath: Path | None = None) -> subprocess.Popen:
    env = dict(os.environ, ATC_CACHE=str(cache))
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.Popen([sys.executable, "-c", PROBE, *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _run(cache: Path, *args: str, pythonpath: Path | None = None) -> dict:
    proc = _start(cache, *args, pythonpath=pythonpath)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return json.loads(out)


def _compiled(cache: Path) -> list[str]:
    """The files of the cache, less what is kept beside each compiled rules file (the
    ``.source`` it names, the ``.libraries`` it loads and their compiled ``.libraries.qlf``)."""
    return sorted(p.name for p in (cache / "rules").iterdir()
                  if p.suffix not in (".source", ".libraries")
                  and not p.name.endswith(".libraries.qlf"))


def _libraries(cache: Path) -> tuple[list[Path], list[Path]]:
    """The cache's lists of the libraries compiled rules load, and those compiled."""
    place = cache / "rules"
    return sorted(place.glob("*.libraries")), sorted(place.glob("*.libraries.qlf"))


@pytest.fixture(scope="module")
def first_starts(tmp_path_factory) -> dict:
    """The two kinds of first start, once per module (each compiles or reads every rule): one
    on an empty cache, which compiles it, and one where no cache can be made (below a file),
    which loads the sources. Each with what it loaded, and its stderr. Tests that change a
    compiled cache change a copy of this one (:func:`_copy_of`)."""
    tmp = tmp_path_factory.mktemp("rules_cache")
    helper = tmp / "state.pl"
    helper.write_text(STATE, encoding="utf-8")
    unusable = tmp / "a-file"
    unusable.write_text("not a folder")
    starts = {"helper": str(helper), "cache": tmp / "cache"}
    for name, cache in (("compiled", tmp / "cache"), ("source", unusable / "cache")):
        proc = _start(cache, str(helper))
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        starts[name] = {**json.loads(out), "stderr": err}
    return starts


def _copy_of(first_starts: dict, to: Path) -> Path:
    """A copy of the cache the first start compiled (modes kept: a private folder)."""
    shutil.copytree(first_starts["cache"], to)
    return to


def test_the_compiled_rules_load_exactly_what_the_sources_load(tmp_path, first_starts):
    cache = _copy_of(first_starts, tmp_path / "cache")
    first, source = first_starts["compiled"], first_starts["source"]
    second = _run(cache, first_starts["helper"])  # compiles the libraries the rules load
    third = _run(cache, first_starts["helper"])   # loads them compiled, then the rules
    assert (first["origin"], second["origin"], third["origin"], source["origin"]) == \
        ("compiled", "cache", "cache", "source")
    assert second["state"] == source["state"]
    assert third["state"] == source["state"]
    assert first["state"] == source["state"]
    assert [name.endswith(".qlf") for name in _compiled(cache)] == [True]
    assert [len(found) for found in _libraries(cache)] == [1, 1]


# As loaded_state/1: the files of SWI-Prolog's library a process compiled from source as it
# loaded them (first loaded from a file other than a compiled wrapper, `.compile-*.pl`).
LIBRARIES_FROM_SOURCE = r"""
loaded_state(Files) :-
    current_prolog_flag(home, Home),
    atom_concat(Home, '/', Library),
    findall(F, ( source_file(F), sub_atom(F, 0, _, _, Library),
                 once(source_file_property(F, load_context(_, By:_, _))),
                 file_base_name(By, Base), \+ sub_atom(Base, 0, _, _, '.compile-') ), Files0),
    sort(Files0, Files).
"""


def test_a_later_start_reads_the_libraries_the_rules_load_compiled(tmp_path, first_starts):
    """A start that loaded the compiled rules still compiled SWI-Prolog's libraries they load
    (sandbox, http/json, aggregate, ...) from source: about 0.15 s of the 0.2 s of CPU it spent
    loading rules. The first start lists them, the next compiles them, later ones load them
    compiled: none of them from source, with the same loaded state (the test above)."""
    cache = _copy_of(first_starts, tmp_path / "cache")
    helper = tmp_path / "from_source.pl"
    helper.write_text(LIBRARIES_FROM_SOURCE, encoding="utf-8")
    (listed,), compiled = _libraries(cache)
    assert compiled == []  # the first start had loaded them: it cannot compile them
    libraries = listed.read_text(encoding="utf-8").splitlines()
    assert {"sandbox.pl", "json.pl", "aggregate.pl"} <= {Path(f).name for f in libraries}
    without = _copy_of(first_starts, tmp_path / "without")
    listed_there = without / "rules" / listed.name
    listed_there.unlink()   # as a start of the rules cache before the libraries were listed
    assert set(libraries) <= set(_run(without, str(helper))["state"])
    second = _run(cache, str(helper))
    proc = _start(cache, str(helper))
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and "Warning" not in err, err
    third = json.loads(out)
    assert (second["origin"], third["origin"]) == ("cache", "cache")
    assert [len(found) for found in _libraries(cache)] == [1, 1]
    assert set(libraries).isdisjoint(third["state"]), third["state"]


def test_damaged_compiled_libraries_are_left_for_the_library_and_compiled_again(
        tmp_path, first_starts):
    cache = _copy_of(first_starts, tmp_path / "cache")
    _run(cache)
    (listed,), (compiled,) = _libraries(cache)
    compiled.write_bytes(b"garbage, not a QLF file")
    assert _run(cache, first_starts["helper"]) == {
        **{k: first_starts["source"][k] for k in ("probe", "state")}, "origin": "cache"}
    assert not compiled.exists()  # removed: the next start compiles it again
    _run(cache)
    assert compiled.stat().st_size > 1000
    listed.write_text("/etc/passwd\nnot a path at all\n", encoding="utf-8")
    compiled.unlink()  # a list naming files outside SWI-Prolog's library compiles none of them
    assert _run(cache, first_starts["helper"])["state"] == first_starts["source"]["state"]


def test_the_rules_load_without_a_warning(first_starts):
    """A process that compiles the rules (the first after an install or an upgrade) or loads
    them from source printed SWI-Prolog's warnings on the user's stderr: a predicate's clauses
    split by another's (jump_option_/2 in jump.pl) was five lines of `Warning:` before the
    answer of whatever command ran, the prompt hook's and the MCP server's logs included."""
    for origin in ("compiled", "source"):
        assert first_starts[origin]["origin"] == origin
        assert "Warning" not in first_starts[origin]["stderr"], first_starts[origin]["stderr"]


def test_doctor_says_where_the_rules_came_from(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    lines = []
    for cache in (tmp_path / "cache", tmp_path / "cache", blocker / "cache"):
        out = subprocess.run([sys.executable, "-c", "from attention_cloud.cli import run; run()",
                              "doctor", "--home", str(tmp_path / "home")],
                             env=dict(os.environ, ATC_CACHE=str(cache)), capture_output=True,
                             text=True, timeout=120)
        lines += [line for line in out.stdout.splitlines() if line.startswith("rules:")]
    assert lines == [
        f"rules: loaded from source and compiled into {tmp_path / 'cache' / 'rules'} for the "
        "next processes",
        f"rules: loaded compiled, from {tmp_path / 'cache' / 'rules'}",
        f"rules: loaded from source at every start: {blocker / 'cache' / 'rules'} cannot be "
        "written, or other users may write it (set ATC_CACHE to a private folder)"]


def test_a_changed_rule_is_compiled_again_never_served_stale(tmp_path):
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT / "host" / "attention_cloud", checkout / "host" / "attention_cloud",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for folder in ("rules", "facts"):
        shutil.copytree(ROOT / folder, checkout / folder)
    journal = checkout / "rules" / "journal.pl"
    original = journal.read_text(encoding="utf-8")
    journal.write_text(original + "\ncache_probe_(1).\n", encoding="utf-8")
    cache = tmp_path / "cache"
    host = checkout / "host"

    assert _run(cache, pythonpath=host) == {"origin": "compiled", "probe": 1}
    assert _run(cache, pythonpath=host)["origin"] == "cache"
    # same size, same modification second: only the content tells them apart
    stat = journal.stat()
    journal.write_text(original + "\ncache_probe_(2).\n", encoding="utf-8")
    os.utime(journal, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert _run(cache, pythonpath=host) == {"origin": "compiled", "probe": 2}
    assert _run(cache, pythonpath=host)["probe"] == 2
    assert len(_compiled(cache)) == 1  # the stale file is removed once the new one is written



# As loaded_state/1: the SWI-Prolog library predicates whose clauses hold arithmetic compiled to
# virtual-machine instructions (what a file compiled under the optimise flag holds) other than
# `X is Y + Integer`, which SWI-Prolog always compiles so.
LIBRARY_ARITHMETIC = r"""
loaded_state(Lines) :-
    current_prolog_flag(home, Home),
    atom_concat(Home, '/library/', Library),
    findall(Line, ( compiled_arithmetic_(Library, M:N/A),
                    format(string(Line), "~q", [M:N/A]) ), Lines0),
    sort(Lines0, Lines).

compiled_arithmetic_(Library, M:N/A) :-
    current_module(M),
    module_property(M, file(File)),
    sub_atom(File, 0, _, _, Library),
    current_predicate(M:N/A),
    functor(H, N, A),
    \+ predicate_property(M:H, imported_from(_)),
    \+ predicate_property(M:H, foreign),
    catch(clause(M:H, _, Ref), _, fail),
    clause_property(Ref, file(File)),
    arithmetic_instruction_(Ref, 0).

arithmetic_instruction_(Ref, PC) :-
    '$fetch_vm'(Ref, PC, Next, Instruction),
    functor(Instruction, Name, _),
    (   sub_atom(Name, 0, _, _, a_), Name \== a_add_fc
    ->  true
    ;   arithmetic_instruction_(Ref, Next)
    ).
"""


def test_libraries_keep_their_arithmetic_checked_however_the_rules_load(tmp_path):
    """Every rules file that compiles its own arithmetic (the optimise flag) must leave the
    libraries' arithmetic calling is/2 and the comparisons, which rules/arith_guard.pl wraps: a
    grantee's expression handed to a library (aggregate_all(sum(X), ...)) is checked there.
    Loaded compiled, the flag of term_guard.pl stayed set for every later file: aggregate,
    json, sandbox, isub, sha, yall and prolog_code were compiled past the check."""
    helper = tmp_path / "library_arithmetic.pl"
    helper.write_text(LIBRARY_ARITHMETIC, encoding="utf-8")
    unusable = tmp_path / "a-file"
    unusable.write_text("not a folder")
    cache = tmp_path / "cache"
    starts = [_run(cache, str(helper)), _run(cache, str(helper)), _run(cache, str(helper)),
              _run(unusable / "cache", str(helper))]   # the third loads the libraries compiled
    assert [start["origin"] for start in starts] == ["compiled", "cache", "cache", "source"]
    assert [start["state"] for start in starts] == [[], [], [], []]


# Saves a walk rule in a home (argv 1) with the text argv 2, then prints where the project's
# rules came from and what a goal calling the saved rule answers.
WALK_RULE_PROBE = r"""
import json, sys
from attention_cloud import Memory
mem = Memory.open(sys.argv[1])
mem.rules_add(sys.argv[2], "reach")
rows = mem.query("reach(X)").rows
print(json.dumps({"origin": mem.pl.rules_origin, "rows": rows}))
mem.close()
"""


def test_a_users_walk_rules_are_read_from_the_home_not_the_compiled_rules(tmp_path):
    cache, home = tmp_path / "cache", tmp_path / "home"
    home.mkdir()
    answers = []
    for text in ("reach(1).", "reach(2)."):
        out = subprocess.run([sys.executable, "-c", WALK_RULE_PROBE, str(home), text],
                             env=dict(os.environ, ATC_CACHE=str(cache)), capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        answers.append(json.loads(out.stdout))
    assert answers == [{"origin": "compiled", "rows": [{"X": 1}]},
                       {"origin": "cache", "rows": [{"X": 2}]}]


def test_concurrent_first_starts_each_load_whole_rules(tmp_path):
    cache = tmp_path / "cache"
    procs = [_start(cache) for _ in range(4)]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        results.append(json.loads(out))
    assert {r["origin"] for r in results} <= {"compiled", "cache"}
    names = _compiled(cache)
    assert len(names) == 1 and names[0].endswith(".qlf")  # no half-written temporaries left
    assert _run(cache)["origin"] == "cache"


def test_a_cache_others_can_write_is_never_loaded(tmp_path, first_starts):
    cache = _copy_of(first_starts, tmp_path / "cache")   # compiled by a first start
    (cache / "rules").chmod(0o777)  # anyone could have planted the compiled file
    assert _run(cache)["origin"] == "source"
    (cache / "rules").chmod(0o700)
    (planted,) = (cache / "rules").glob("*.qlf")
    planted.chmod(0o666)
    assert _run(cache)["origin"] == "compiled"


def test_a_damaged_compiled_file_falls_back_to_source_and_is_rebuilt(tmp_path, first_starts):
    cache = _copy_of(first_starts, tmp_path / "cache")   # compiled by a first start
    (compiled,) = (cache / "rules").glob("*.qlf")
    compiled.write_bytes(b"garbage, not a QLF file")
    assert _run(cache)["origin"] == "source"
    assert _run(cache)["origin"] == "compiled"


def test_the_key_names_another_file_for_another_prolog_or_other_sources(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "a.pl").write_text("a(1).\n")
    key = cache_key([rules], "pyswip", "9.0.4", "/usr/lib/swi-prolog")
    assert key == cache_key([rules], "pyswip", "9.0.4", "/usr/lib/swi-prolog")
    assert key != cache_key([rules], "pyswip", "9.2.9", "/usr/lib/swi-prolog")
    assert key != cache_key([rules], "janus", "9.0.4", "/usr/lib/swi-prolog")
    assert key != cache_key([rules], "pyswip", "9.0.4", "/opt/swipl/lib/swipl")
    (rules / "a.pl").write_text("a(2).\n")
    assert key != cache_key([rules], "pyswip", "9.0.4", "/usr/lib/swi-prolog")
    (rules / "a.pl").write_text("a(1).\n")
    (rules / "sub").mkdir()
    (rules / "sub" / "b.pl").write_text("b.\n")
    assert key != cache_key([rules], "pyswip", "9.0.4", "/usr/lib/swi-prolog")


def test_with_no_home_folder_the_rules_never_land_in_the_cwd(tmp_path, monkeypatch):
    """With no home folder "~" stays unexpanded: compiled rules must not land in the cwd;
    they go to this user's private temporary folder (paths.cache_dir), or nowhere."""
    from attention_cloud.bridge import rules_cache

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("ATC_CACHE", raising=False)
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr("pwd.getpwuid", lambda uid: (_ for _ in ()).throw(KeyError(uid)))
    monkeypatch.setenv("XDG_CACHE_HOME", "~/.cache")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert rules_cache._cache_place() == tmp_path / f"attention-cloud-{os.getuid()}" / "rules"
    assert list(work.iterdir()) == []


def test_compiled_rules_of_deleted_checkouts_are_pruned(tmp_path):
    """Each checkout (a worktree, a clone, an installed venv) compiles its own file (~260 KB)
    into the shared cache, and nothing removed those of checkouts since deleted: the cache
    grew by one file per checkout forever. Writing a new file now removes those whose sources
    are gone, keeps those of checkouts still there, and removes files that name no sources
    once they are a month old."""
    import time

    place = tmp_path / "cache" / "rules"
    place.mkdir(parents=True, mode=0o700)
    live = tmp_path / "live-checkout" / "rules" / "api.pl"
    live.parent.mkdir(parents=True)
    live.write_text("% another checkout\n")
    planted = {}
    for name, source in (("deleted", tmp_path / "gone" / "rules" / "api.pl"), ("live", live),
                         ("unnamed-old", None), ("unnamed-new", None)):
        qlf = place / f"rules-{name}-pyswip-9.0.4-0123456789abcdef0123.qlf"
        qlf.write_bytes(b"compiled")
        if source is not None:
            qlf.with_suffix(".source").write_text(str(source))
        planted[name] = qlf
    month = 31 * 86400
    os.utime(planted["unnamed-old"], (time.time() - month, time.time() - month))
    assert _run(tmp_path / "cache")["origin"] == "compiled"
    left = sorted(p.name for p in place.iterdir())
    assert planted["deleted"].name not in left and "rules-deleted" not in " ".join(left)
    assert planted["unnamed-old"].name not in left
    assert {planted["live"].name, planted["live"].with_suffix(".source").name,
            planted["unnamed-new"].name} <= set(left)
    ours = [n for n in left if n.endswith(".qlf") and "-deleted-" not in n
            and n not in (planted["live"].name, planted["unnamed-new"].name)]
    assert len(ours) == 1 and ours[0].replace(".qlf", ".source") in left
    assert _run(tmp_path / "cache")["origin"] == "cache"
