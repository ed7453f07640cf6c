"""What `atc belief` and `atc attend` show of a belief: the dirt as structure in JSON, P(stale)
of a dirty belief as the controller weighs it, and free text that cannot break a table row."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from attention_cloud.attention.cli import COMMANDS

NOW = "1000000"


@pytest.fixture(scope="module")
def module_home(tmp_path_factory):
    return tmp_path_factory.mktemp("display") / "home"


@pytest.fixture(scope="module")
def atc(module_home):
    """Run one attention command on the module's home; returns the click Result."""
    runner = CliRunner()

    def run(command: str, *args: str, ok: bool = True, scope: str = "display"):
        result = runner.invoke(COMMANDS[command], [*args, "--home", str(module_home),
                                                   "--scope", scope, "--now", NOW])
        if ok:
            assert result.exit_code == 0, result.output + repr(result.exception)
        return result

    yield run
    from attention_cloud.memory import current

    if current() is not None:
        current().close()


@pytest.fixture(scope="module")
def dirtied(atc):
    """The seed's first step: the registry read says 4.2, so `compat` (resting on the summary's
    4.1) goes dirty; `compat`'s subject holds a newline and its value a tab."""
    atc("source", "add", "registry", "--type", "dependency_version", "--kind", "package_registry")
    atc("source", "add", "summary", "--type", "dependency_version", "--kind", "own_summary")
    atc("source", "add", "matrix", "--type", "compatibility", "--kind", "compatibility_matrix")
    atc("belief", "add", "dep_version", "--type", "dependency_version", "--subject", "libfoo",
        "--value", "4.1", "--confidence", "0.9", "--age", "21600",
        "--volatility", "package_release", "--source", "summary")
    atc("belief", "add", "compat", "--type", "compatibility", "--subject", "deploy\nrow two",
        "--value", "A\tor B", "--confidence", "0.9", "--age", "21600",
        "--volatility", "config_docs", "--supports", "dep_version")
    out = atc("attend", "--goal", "deploy", "--depends-on", "compat", "--budget", "3").output
    registry = next(line.split()[1] for line in out.splitlines() if " registry " in line)
    atc("inspect", registry, "--result", "4.2")
    return atc


def test_dirt_cause_in_json_is_structure_not_a_prolog_term(dirtied):
    # Before: "cause": "superseded(dep_version,'dep_version@insp-1')", a Prolog-quoted term a
    # JSON reader had to parse again.
    info = json.loads(dirtied("belief", "show", "compat", "--format", "json").output)
    [dirt] = info["dirt"]
    assert dirt["cause"] == {"kind": "superseded", "belief": "dep_version",
                             "by": "dep_version@insp-1"}
    assert dirt["at"] == float(NOW)
    why = json.loads(dirtied("belief", "why", "compat", "--format", "json").output)
    assert why["dirt"] == [dirt]
    listed = json.loads(dirtied("belief", "list", "--dirty", "--format", "json").output)
    assert [b["dirt"] for b in listed] == [[dirt]]


def test_dirt_cause_in_text_names_what_happened_without_prolog_quotes(dirtied):
    shown = dirtied("belief", "show", "compat").output
    assert "dirty: dep_version superseded by dep_version@insp-1 (at 1000000)" in shown, shown
    why = dirtied("belief", "why", "compat").output
    assert "DIRTY: dep_version superseded by dep_version@insp-1" in why, why


def test_a_dirty_belief_shows_the_p_stale_the_controller_weighs(dirtied):
    # Before: P(stale) 0.008 (the hazard over 6 h of config_docs alone) for a belief whose
    # support was just superseded, while the controller took it as changed with P >= 0.8.
    info = json.loads(dirtied("belief", "show", "compat", "--format", "json").output)
    floor = json.loads(dirtied("belief", "show", "dep_version@insp-1", "--format",
                               "json").output)
    assert info["dirty"] and info["p_stale"] == pytest.approx(0.8)
    assert info["p_stale_by_age"] == pytest.approx(0.0083, abs=1e-3)
    assert floor["p_stale"] == floor["p_stale_by_age"] == 0.0   # clean and just read
    text = dirtied("belief", "show", "compat").output
    assert "P(stale) 0.800 (dirty; by age 0.008)" in text, text


@pytest.mark.parametrize("command", [["belief", "list"], ["belief", "show", "compat"],
                                     ["belief", "why", "compat"],
                                     ["attend", "--goal", "deploy", "--budget", "2"]])
def test_control_characters_in_free_text_cannot_break_a_row(dirtied, command):
    # Before: a subject "deploy\nrow two" split the belief's row (and the candidate's row of
    # `atc attend`) in two, the second half looking like a row of its own.
    out = dirtied(*command).output
    rows = [line for line in out.splitlines() if "deploy" in line and "row two" in line]
    assert rows and all("deploy\\nrow two" in row for row in rows), out
    assert not any(line.startswith("row two") for line in out.splitlines()), out
    if command[0] == "belief":
        assert "A\\tor B" in out, out


def test_json_keeps_free_text_as_written(dirtied):
    info = json.loads(dirtied("belief", "show", "compat", "--format", "json").output)
    assert info["subject"] == "deploy\nrow two" and info["value"] == "A\tor B"


def test_trace_text_writes_values_as_json_writes_them_not_as_python(dirtied):
    # Before: `atc trace` printed Python's reprs: triggers=['goal_dependency'], floor=False,
    # selected=True, while --format json (and every other command) says false/true.
    text = dirtied("trace").output
    assert "floor=false" in text and "selected=true" in text, text
    assert "triggers=goal_dependency" in text, text
    assert "False" not in text and "True" not in text and "['" not in text, text


def test_a_revised_belief_names_itself_as_the_cause(atc):
    # `belief add` of an id again with another value dirties what cites it; before, that cause
    # was the one a JSON reader could not name (no field but a term string).
    atc("source", "add", "registry", "--type", "dependency_version", "--kind",
        "package_registry", scope="revised")
    atc("belief", "add", "ver", "--type", "dependency_version", "--subject", "libfoo",
        "--value", "4.1", "--confidence", "0.9", "--volatility", "package_release",
        scope="revised")
    atc("belief", "add", "plan", "--type", "compatibility", "--subject", "deploy", "--value",
        "A", "--confidence", "0.9", "--volatility", "config_docs", "--supports", "ver",
        scope="revised")
    atc("belief", "add", "ver", "--type", "dependency_version", "--subject", "libfoo",
        "--value", "4.2", "--confidence", "0.9", "--volatility", "package_release",
        scope="revised")
    info = json.loads(atc("belief", "show", "plan", "--format", "json", scope="revised").output)
    assert [d["cause"] for d in info["dirt"]] == [{"kind": "belief_revised", "belief": "ver"}]
    assert "dirty: ver revised" in atc("belief", "show", "plan", scope="revised").output


def test_a_belief_without_a_subject_is_refused_naming_the_field(pl):
    # Before: subject=None said "key `subject' does not exist in _308{claim_type: ...}" (the
    # key was there, and the whole belief was printed).
    from attention_cloud.attention import Controller
    from attention_cloud.errors import AtcError

    ctl = Controller(pl, "bench-no-subject")
    try:
        with pytest.raises(AtcError) as raised:
            ctl.add_belief("w", claim_type="dependency_version", subject=None, value="1",
                           confidence=0.5, observed_at=1e9, volatility="package_release")
        assert str(raised.value) == "a belief needs a subject (null given)"
    finally:
        ctl.drop()


def test_inspecting_a_candidate_twice_says_why_in_words(atc):
    # Before: "atc: No permission to inspect closed_candidate `'attn-1''" (quoted twice, and
    # nothing said what closed it or what to do).
    atc("source", "add", "registry", "--type", "dependency_version", "--kind",
        "package_registry", scope="twice")
    atc("belief", "add", "ver", "--type", "dependency_version", "--subject", "libfoo",
        "--value", "4.1", "--confidence", "0.9", "--age", "86400",
        "--volatility", "package_release", "--source", "registry", scope="twice")
    out = atc("attend", "--goal", "ship", "--depends-on", "ver", "--budget", "2",
              scope="twice").output
    cand = next(line.split()[1] for line in out.splitlines() if " registry " in line)
    atc("inspect", cand, "--result", "4.1", scope="twice")
    again = atc("inspect", cand, "--result", "4.1", scope="twice", ok=False)
    assert again.exit_code != 0
    assert again.output.strip() == (f"atc: candidate {cand} is closed (resolved): it was "
                                    "already carried out; atc attend proposes fresh ones"), \
        again.output


def test_a_bad_budget_has_the_same_words_with_or_without_a_goal_to_set(dirtied):
    # Before: with --depends-on "--budget -1: inspections left, 0 to 10000"; without it,
    # "Type error: `nonneg' expected, found `-1' (an integer)".
    for extra in ([], ["--depends-on", "compat"]):
        result = dirtied("attend", "--goal", "deploy", "--budget", "-1", *extra, ok=False)
        assert result.exit_code == 2
        assert result.output.strip() == "atc: --budget -1: inspections left, 0 to 10000", \
            result.output


def test_a_joined_emoji_and_accents_are_shown_as_written():
    from attention_cloud.attention.cli import _shown

    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467"
    assert _shown(f"déploiement {family}") == f"déploiement {family}"
    assert _shown("a\u2028b\x85c\x7f") == "a\\u2028b\\x85c\\x7f"
