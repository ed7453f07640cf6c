"""Text that SWI-Prolog's reader splits otherwise than "every ' quotes, the first */ ends a
comment" hid deep nesting from the bracket check, and the reader's C recursion ended the
process (SIGSEGV): `X = 0''', Y = [[[...30,000...]]]` as an `atc query` goal, as a grantee's
goal, in a rules file, or built at run time and read by term_to_atom/2. Each is now refused in
one line, exit 2, the home as it was."""
from __future__ import annotations

from pathlib import Path

import pytest

from granted_home import granted_home, run_atc

#: What the reader takes for code but the old scanner took for a quote or a comment.
BEFORE = {
    "code_of_a_quote": "X = 0''', ",
    "radix_number": "X = 16'FF, ",
    "hex_escape": "X = '\\x41\\', ",
    "nested_comment": "X = 1 /* /* */ ' */, ",
    "atom_ending_in_comment_start": "X = (+/*), ",
    "escaped_quote_code": "X = 0'\\', ",
}
DEEP = "[" * 30000 + "]" * 30000
#: A grantee's goal is at most 32,768 characters; 15,000 levels ended the process as well.
GRANTEE_DEEP = "[" * 16000 + "]" * 16000


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return granted_home(tmp_path_factory.mktemp("reader_split"), "L0")


def _journal(home: Path) -> bytes:
    return (home / "journal.pl").read_bytes()


def _refused(done, home: Path, before: bytes) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr[-300:])
    assert done.stderr.count("\n") == 1, done.stderr[-300:]
    assert "nests brackets more than 2,000 deep" in done.stderr
    assert _journal(home) == before


@pytest.mark.parametrize("who", ["owner", "grantee"])
@pytest.mark.parametrize("name", sorted(BEFORE))
def test_a_goal_hiding_its_nesting_is_refused_not_a_crash(home, name, who):
    before = _journal(home)
    tail = ", Z = 'a' /* */" if name != "atom_ending_in_comment_start" else " /* */"
    deep = GRANTEE_DEEP if who == "grantee" else DEEP
    args = ["query", BEFORE[name] + "Y = " + deep + tail, "--time-limit", "20"]
    if who == "grantee":
        args += ["--as", "bob"]
    _refused(run_atc(home, *args, timeout=120), home, before)


@pytest.mark.parametrize("name", ["code_of_a_quote", "nested_comment"])
def test_a_rules_file_hiding_its_nesting_is_refused_not_a_crash(home, tmp_path, name):
    before = _journal(home)
    rules = tmp_path / "deep.pl"
    rules.write_text("deep :- " + BEFORE[name] + "Y = " + DEEP + ", Z = 'a'.\n")
    _refused(run_atc(home, "query", "item(H)", "--rules", str(rules), timeout=120),
             home, before)


def test_text_built_at_run_time_and_read_is_refused_not_a_crash(home):
    """term_to_atom/2 reads text a grantee's goal builds: the same check guards it."""
    before = _journal(home)
    goal = ("length(L, 30000), maplist(=(0'[), L), atom_codes(Open, L), "
            "atom_concat('X = 0\\'\\'\\', Y = ', Open, A), term_to_atom(T, A)")
    _refused(run_atc(home, "query", goal, "--as", "bob", "--time-limit", "20", timeout=120),
             home, before)


def test_quoted_brackets_still_count_for_nothing(home):
    done = run_atc(home, "query", "X = '\\x41\\', Y = \"" + "(" * 5000 + "\", atom_length(Y, N)",
                   "--as", "bob")
    assert done.returncode == 0 and "5000" in done.stdout, done.stderr[-300:]
