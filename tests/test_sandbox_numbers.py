"""A number read from text may not hold the process past its time limit.

SWI-Prolog 9.0 reads an integer's digits one at a time into a big integer: reading one takes
time quadratic in its length, in one C call no signal interrupts (1,000,000 digits: 21 s;
4,000,000: about 6 minutes). A goal built such a text in milliseconds and read it
(`atom_number/2`, `number_codes/2`, `term_to_atom/2`, ...), and `atc query --time-limit 1`
ran on for minutes, as did a grantee's goal in `atc serve`; a goal or a rules file that
wrote such a number held the process while it was read. Now a numeral of more than 100,000
digits is not read: the builtins refuse it in one line (`atom_number/2` fails, as for any
text that is not a number), and so do goal and rules texts.
"""
from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from granted_home import granted_home, run_atc

# an atom of 2^22 sevens, made by doubling: milliseconds to build, minutes to read before
BUILD = "length(L, 22), foldl([_, A0, A]>>atom_concat(A0, A0, A), L, '7', A)"
DIGITS_PAST = "7" * 100_001
# wall-clock seconds: the refusal takes milliseconds, but 1 s was met first on a machine at
# load 18; before the guard the read ran minutes, past this limit and run_atc's timeout alike
LIMIT = "10"
TOO_LONG = "a number of more than 100,000 digits: too long to read"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return granted_home(tmp_path_factory.mktemp("numbers"))


def _atc(home: Path, *args: str) -> subprocess.CompletedProcess:
    return run_atc(home, *args, timeout=120)


def _digest(home: Path) -> str:
    """Every file of the home but the audit log (a grantee's read is logged, refused or not)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in home.rglob("*") if p.is_file() and p.name != "audit.jsonl"):
        digest.update(str(path.relative_to(home)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@pytest.mark.parametrize("who", [[], ["--as", "bob"]], ids=["owner", "grantee"])
@pytest.mark.parametrize("read", ["number_codes(N, A)", "atom_string(A, S), number_string(N, S)",
                                  "tokenize_atom(A, Ts)", "term_to_atom(T, A)"])
def test_a_long_number_built_at_run_time_is_refused_in_one_line(home, who, read):
    before = _digest(home)
    out = _atc(home, "query", *who, "--time-limit", LIMIT, f"{BUILD}, {read}")
    assert out.returncode == 2, (out.stdout, out.stderr[-2000:])
    if read.startswith("term_to_atom"):
        # its bracket-nesting check (term_guard.pl) may meet the limit first
        assert out.stderr in (f"atc: Syntax error: {TOO_LONG}\n",
                              f"atc: stopped: ran past its time limit of {LIMIT} s\n"), out.stderr
    else:
        assert out.stderr == f"atc: Syntax error: {TOO_LONG}\n"
    assert _digest(home) == before


def test_atom_number_of_a_long_numeral_fails_as_for_any_text_not_a_number(home):
    out = _atc(home, "query", "--as", "bob", "--time-limit", LIMIT,
               f"{BUILD}, ( atom_number(A, _) -> R = read ; R = not_a_number )")
    assert out.returncode == 0, out.stderr[-2000:]
    assert "not_a_number" in out.stdout


def test_a_goal_writing_a_long_number_is_refused(home):
    out = _atc(home, "query", f"X = {DIGITS_PAST}")
    assert out.returncode == 2, out.stdout
    assert out.stderr == f"atc: Syntax error: {TOO_LONG}\n"


def test_a_goal_writing_a_long_number_in_digit_groups_is_refused(home):
    """`1_000_ 000` is one numeral to the reader (a text past the 128 KB of a command-line
    argument, so through the API, as `atc serve` and `atc mcp` take it)."""
    from attention_cloud import Memory
    from attention_cloud.errors import AtcError

    memory = Memory.open(home)
    try:
        for group in ("7_", "7_ ", "7 "):
            with pytest.raises(AtcError, match=TOO_LONG):
                memory.query("X = " + group * 100_001 + "7")
        assert memory.query("X = 1_000_000").rows == [{"X": 1000000}]
    finally:
        memory.close()


def test_a_rules_file_writing_a_long_number_is_refused_and_not_saved(home, tmp_path):
    rules = tmp_path / "big.pl"
    rules.write_text(f"big({DIGITS_PAST}).\n", encoding="utf-8")
    before = _digest(home)
    for args in (["rules", "add", str(rules)], ["query", "--rules", str(rules), "big(X)"]):
        out = _atc(home, *args)
        assert out.returncode == 2, out.stdout
        assert TOO_LONG in out.stderr and out.stderr.count("\n") == 1, out.stderr
    assert _digest(home) == before


def test_numbers_of_ordinary_length_read_as_before(home):
    out = _atc(home, "query", "--as", "bob",
               "atom_number('12345678901234567890', N), number_codes(M, \"0x1F\"), "
               "term_to_atom(T, 'f(1_000_000)'), tokenize_atom('a 12 b', Ts)")
    assert out.returncode == 0, out.stderr
    assert "12345678901234567890" in out.stdout and "31" in out.stdout
    assert "f(1000000)" in out.stdout
