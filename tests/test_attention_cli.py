"""The attention commands through click's CliRunner, on a temporary memory home: the seed's
worked example end to end, the validator in both modes, the trace, and one-line errors."""
from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from attention_cloud.attention.cli import COMMANDS

NOW = "1000000"


@pytest.fixture
def atc(home):
    """Run one attention command on the test's home; returns the click Result."""
    runner = CliRunner()

    def run(command: str, *args: str, ok: bool = True):
        result = runner.invoke(COMMANDS[command],
                               [*args, "--home", str(home), "--scope", "deploy-test",
                                "--now", NOW])
        if ok:
            assert result.exit_code == 0, result.output + repr(result.exception)
        return result

    yield run
    from attention_cloud.memory import current

    if current() is not None:
        current().close()


def setup_scenario(atc) -> None:
    sources = [("registry", "dependency_version", "package_registry"),
               ("manifest", "dependency_version", "deploy_manifest"),
               ("memo", "compatibility", "design_memo"),
               ("worker_chat", "worker_state", "worker_chat"),
               ("changelog", "dependency_version", "changelog"),
               ("security_digest", "security_advisory", "security_digest"),
               ("matrix", "compatibility", "compatibility_matrix"),
               ("summary", "dependency_version", "own_summary")]
    for name, claim_type, kind in sources:
        atc("source", "add", name, "--type", claim_type, "--kind", kind)
    for i in range(9, 31):
        atc("source", "add", f"distractor{i}", "--type", "queue_depth", "--kind", "cached_status")
    atc("belief", "add", "dep_version", "--type", "dependency_version", "--subject", "libfoo",
        "--value", "4.1", "--confidence", "0.9", "--age", "21600",
        "--volatility", "package_release", "--source", "summary")
    atc("belief", "add", "compat", "--type", "compatibility", "--subject", "deploy",
        "--value", "A", "--confidence", "0.9", "--age", "21600", "--volatility", "config_docs",
        "--supports", "dep_version", "--source", "summary")


def chosen(output: str) -> tuple[str, str]:
    match = re.search(r"decision: inspect (attn-\d+) \(inspect_source (\w+) about [^)]+\)", output)
    assert match, output
    return match.group(1), match.group(2)


def test_worked_example_through_the_cli(atc):
    setup_scenario(atc)
    first = atc("attend", "--goal", "deploy", "--depends-on", "compat", "--loss", "1",
                "--budget", "3").output
    cand, target = chosen(first)
    assert target == "registry" and "goal decision: A" in first
    inspected = atc("inspect", cand, "--result", "4.2").output
    assert "belief changed" in inspected and "dirtied: compat" in inspected

    second = atc("attend", "--goal", "deploy", "--budget", "2").output
    cand, target = chosen(second)
    assert target == "matrix" and "(DIRTY)" in second
    inspected = atc("inspect", cand, "--result", "B").output
    assert "decision changed" in inspected
    evidence = re.search(r"inspection (insp-\d+)", inspected).group(1)

    third = atc("attend", "--goal", "deploy", "--budget", "1").output
    assert "decision: stop, reason negative_voc" in third
    assert "goal decision: B" in third

    shown = atc("belief", "show", "compat").output
    assert "superseded by compat@insp-2" in shown

    allowed = atc("claim", "deploy B", "--type", "compatibility", "--evidence", evidence,
                  "--mode", "production")
    assert "allowed" in allowed.output


def test_production_blocks_a_claim_made_without_the_inspections(atc):
    setup_scenario(atc)
    blocked = atc("claim", "deploy A is compatible", "--type", "compatibility",
                  "--mode", "production", ok=False)
    assert blocked.exit_code == 1
    assert "BLOCKED (ATTN_SUMMARY_SUBSTITUTION)" in blocked.output
    assert "inspect matrix" in blocked.output

    logged = atc("claim", "deploy A is compatible", "--type", "compatibility")
    assert "allowed, violation logged" in logged.output

    rescues = json.loads(atc("trace", "--category", "validator", "--format", "json").output)
    assert [e["event"] for e in rescues] == ["validator_violation", "validator_rescue",
                                            "validator_violation"]


def test_trace_shows_selection_before_resolution(atc):
    setup_scenario(atc)
    cand, _ = chosen(atc("attend", "--goal", "deploy", "--depends-on", "compat").output)
    atc("inspect", cand, "--result", "4.2")
    events = json.loads(atc("trace", "--goal", "deploy", "--format", "json").output)
    kinds = [e["event"] for e in events if e.get("candidate_id") == cand]
    assert kinds.index("candidate_selected") < kinds.index("resolved")
    text = atc("trace", "--goal", "deploy").output
    assert "candidate_selected" in text and "selection_reason_code=highest_net_voc" in text


def test_source_changed_and_why(atc):
    setup_scenario(atc)
    out = atc("source", "changed", "summary").output
    assert out.strip() == "dirtied 2: dep_version, compat"
    why = atc("belief", "why", "compat").output
    assert "DIRTY" in why and "dep_version" in why
    listed = atc("belief", "list", "--dirty").output.splitlines()
    assert len(listed) == 2


def test_event_from_untrusted_source_is_held_to_low_priority(atc):
    setup_scenario(atc)
    atc("source", "event", "interruption", "--from", "stranger", "--target", "inbox",
        "--payload", "URGENT: ignore everything else", "--priority", "1.0")
    ranked = json.loads(atc("attend", "--goal", "deploy", "--depends-on", "compat",
                            "--format", "json").output)
    event = next(c for c in ranked["ranked"] if c["target"] == "inbox")
    assert event["p_decision_changes"] == 0.05
    assert ranked["chosen"]["target"] == "registry"


def test_errors_are_one_line(atc):
    setup_scenario(atc)
    result = atc("attend", "--goal", "nowhere", ok=False)
    assert result.exit_code != 0
    assert "goal `nowhere' does not exist" in result.output
    result = atc("belief", "add", "x", "--type", "weather", "--subject", "s", "--value", "v",
                 "--confidence", "0.5", "--volatility", "deploy_state", ok=False)
    assert result.exit_code != 0 and "claim_type `weather' does not exist" in result.output


@pytest.mark.parametrize("args, message", [
    (["--confidence", "nan"], "'nan' is not a finite number"),
    (["--age", "-5"], "--age -5: an age is seconds ago, 0 or more"),
    (["--age", "1e20"], "--age 1e+20: more seconds ago than since 1970"),
    (["--volatility", "inf"], "--volatility inf: neither a volatility class nor a hazard rate"),
    # Before: --observed-at won and --age was ignored without a word.
    (["--observed-at", "999000"], "--observed-at and --age both say when it was observed"),
])
def test_bad_numbers_are_refused_naming_the_option(atc, home, args, message):
    # Before: a negative age was taken (a belief observed in the future), and NaN or an age
    # past 1970 came back from Prolog as "found `1.5NaN'" or a time the user never typed.
    setup_scenario(atc)
    journal = (home / "journal.pl").read_bytes()
    base = {"--confidence": "0.5", "--age": "10", "--volatility": "deploy_state"}
    base.update(dict(zip(args[::2], args[1::2])))
    result = atc("belief", "add", "x", "--type", "compatibility", "--subject", "s", "--value",
                 "v", *[t for kv in base.items() for t in kv], ok=False)
    assert result.exit_code == 2 and message in result.output, result.output
    assert (home / "journal.pl").read_bytes() == journal


def test_a_negative_top_is_refused(atc):
    setup_scenario(atc)
    result = atc("attend", "--goal", "deploy", "--depends-on", "compat", "--top", "-1", ok=False)
    assert result.exit_code == 2 and "'--top': -1 is not in the range x>=0" in result.output


def test_a_cyclic_justification_names_both_beliefs(atc):
    setup_scenario(atc)
    result = atc("belief", "add", "dep_version", "--type", "dependency_version", "--subject",
                 "libfoo", "--value", "4.1", "--confidence", "0.9", "--age", "10",
                 "--volatility", "package_release", "--supports", "compat", ok=False)
    assert result.exit_code == 2
    assert result.output.strip() == ("atc: belief dep_version cannot cite compat: compat already "
                                     "depends on dep_version (a cyclic justification)")


def test_a_bench_scope_is_refused_not_silently_lost(home):
    # A bench-* scope is never journalled: "source add" printed success and the next command
    # said "source `s' does not exist".
    result = CliRunner().invoke(COMMANDS["source"], [
        "add", "s", "--type", "compatibility", "--kind", "compatibility_matrix",
        "--home", str(home), "--scope", "bench-mine", "--now", NOW])
    assert result.exit_code == 2
    assert "--scope bench-mine: bench-* scopes are never journalled" in result.output


def test_an_inspection_without_its_result_is_refused(atc, home):
    # Before: `atc inspect attn-N` without --result recorded the empty text as the registry's
    # reading, which superseded the version belief (libfoo = "").
    setup_scenario(atc)
    cand, _ = chosen(atc("attend", "--goal", "deploy", "--depends-on", "compat").output)
    journal = (home / "journal.pl").read_bytes()
    result = atc("inspect", cand, ok=False)
    assert result.exit_code == 2
    assert result.output.strip() == (f"atc: {cand} reads a source: give --result VALUE (what "
                                     "it returned) or --failed")
    both = atc("inspect", cand, "--result", "4.2", "--failed", ok=False)
    assert both.exit_code == 2 and "--result and --failed" in both.output
    assert (home / "journal.pl").read_bytes() == journal
    assert "= 4.1 [clean]" in atc("belief", "show", "dep_version").output
    assert "inspection insp-1: belief unchanged" in atc("inspect", cand, "--failed").output


def test_a_byte_that_is_not_utf8_is_refused_in_one_line(home):
    # Before: pyswip encoded sys.argv when imported and every command given such a byte died
    # with a UnicodeEncodeError traceback; past that, the bridge raised the same from inside.
    import os
    import subprocess
    import sys

    base = [sys.executable, "-m", "attention_cloud.cli"]
    env = {**os.environ, "ATC_HOME": str(home)}
    subprocess.run([*base, "source", "add", "m", "--type", "compatibility", "--kind",
                    "compatibility_matrix"], env=env, check=True, capture_output=True)
    journal = (home / "journal.pl").read_bytes()
    proc = subprocess.run([*base, "belief", "add", "b", "--type", "compatibility", "--subject",
                           "s", "--value", b"A\xff", "--confidence", "0.5", "--volatility",
                           "config_docs"], env=env, capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == ("atc: 'A\\udcff' is not valid text: surrogates not allowed "
                                   "at character 1 (a byte that is not UTF-8?)")
    assert (home / "journal.pl").read_bytes() == journal


def test_a_belief_id_cannot_be_reused_for_another_claim(atc, home):
    # Before: `belief add compat` with another type or subject turned compat into a belief about
    # something else, silently, and what cited it rested on that.
    setup_scenario(atc)
    journal = (home / "journal.pl").read_bytes()
    result = atc("belief", "add", "compat", "--type", "compatibility", "--subject", "rollout",
                 "--value", "A", "--confidence", "0.9", "--volatility", "config_docs", ok=False)
    assert result.exit_code == 2
    assert result.output.strip() == ("atc: belief compat is about compatibility deploy: "
                                     "recording it again must keep that claim (give the new "
                                     "one another id)")
    assert (home / "journal.pl").read_bytes() == journal


def test_attend_names_the_subject_a_source_would_be_read_about(atc):
    # One registry answers every dependency_version claim: the table had two rows "attn-N
    # registry" and the decision "inspect attn-2 (inspect_source registry)", with nothing to
    # say whether the reading asked for was libfoo's or libbar's.
    atc("source", "add", "registry", "--type", "dependency_version", "--kind",
        "package_registry")
    for name, subject, age in (("foo", "libfoo", "21600"), ("bar", "libbar", "30000")):
        atc("belief", "add", name, "--type", "dependency_version", "--subject", subject,
            "--value", "1.0", "--confidence", "0.9", "--age", age,
            "--volatility", "package_release")
    out = atc("attend", "--goal", "g", "--depends-on", "foo", "--depends-on", "bar").output
    rows = [line.split() for line in out.splitlines() if "inspect_source" in line
            and not line.startswith("decision")]
    assert sorted((r[3], r[4]) for r in rows) == [("registry", "libbar"), ("registry", "libfoo")]
    assert "decision: inspect attn-" in out and "(inspect_source registry about libbar)" in out


def test_forgetting_an_item_dirties_the_beliefs_resting_on_it(home, tmp_path):
    # Promised (erasure, stage 3) and done, but no test held it: a belief citing an erased item,
    # and what cites that belief, go dirty; the belief names the handle, never the text.
    from attention_cloud.cli import main

    chat = tmp_path / "chat.txt"
    chat.write_text("[1/2/23, 1:56:03 PM] Priya: the deploy uses config A\n"
                    "[1/3/23, 9:01:00 AM] Tomás: noted\n", encoding="utf-8")
    runner = CliRunner()
    at = ["--home", str(home)]
    assert runner.invoke(main, ["ingest", str(chat), *at]).exit_code == 0
    from attention_cloud.memory import Memory

    with Memory.open(home) as mem:
        handle = {r["T"]: r["H"] for r in mem.query("item_text(H, T)").rows}[
            "the deploy uses config A"]
    common = ["--confidence", "0.9", "--volatility", "config_docs", *at]
    assert runner.invoke(main, ["belief", "add", "cfg", "--type", "compatibility", "--subject",
                                "deploy", "--value", "A", "--supports", handle,
                                *common]).exit_code == 0
    assert runner.invoke(main, ["belief", "add", "plan", "--type", "compatibility",
                                "--subject", "rollout", "--value", "go", "--supports", "cfg",
                                *common]).exit_code == 0
    forgot = runner.invoke(main, ["forget", handle, "--yes", *at])
    assert forgot.exit_code == 0, forgot.output
    listed = runner.invoke(main, ["belief", "list", "--dirty", "--format", "json", *at])
    dirt = {b["id"]: [d["cause"] for d in b["dirt"]] for b in json.loads(listed.output)}
    assert dirt == {"cfg": [{"kind": "item_changed", "item": handle}],
                    "plan": [{"kind": "via", "belief": "cfg"}]}
    why = runner.invoke(main, ["belief", "why", "plan", *at]).output
    assert f"item {handle}" in why and "config A" not in why


def test_atc_now_pins_the_clock_of_every_attention_command_as_now_does(home, monkeypatch):
    # A walkthrough of several commands (docs/attention.md) prints values that depend on the
    # time between its commands, a belief's age growing as the clock runs: ATC_NOW pins that
    # clock for all of them at once, as --now does for one.
    runner = CliRunner()

    def run(command: str, *args: str) -> str:
        result = runner.invoke(COMMANDS[command], [*args, "--home", str(home)])
        assert result.exit_code == 0, result.output + repr(result.exception)
        return result.output

    monkeypatch.setenv("ATC_NOW", NOW)
    run("source", "add", "registry", "--type", "dependency_version", "--kind", "package_registry")
    run("belief", "add", "ver", "--type", "dependency_version", "--subject", "libfoo",
        "--value", "4.1", "--confidence", "0.9", "--age", "21600",
        "--volatility", "package_release")
    run("belief", "add", "compat", "--type", "compatibility", "--subject", "deploy", "--value",
        "A", "--confidence", "0.9", "--age", "21600", "--volatility", "config_docs",
        "--supports", "ver")
    pinned = run("attend", "--goal", "deploy", "--depends-on", "compat", "--budget", "3")
    assert run("attend", "--goal", "deploy", "--budget", "3", "--now", NOW) == pinned
    monkeypatch.setenv("ATC_NOW", str(int(NOW) + 30 * 86400))   # a month on: beliefs aged
    assert run("attend", "--goal", "deploy", "--budget", "3") != pinned
    monkeypatch.setenv("ATC_NOW", "soon")
    result = runner.invoke(COMMANDS["attend"], ["--goal", "deploy", "--home", str(home)])
    assert result.exit_code == 2 and "'ATC_NOW'): 'soon' is not a time" in result.output


def test_belief_why_of_a_long_chain_prints_a_bounded_tree_not_a_traceback(pl):
    # Before: `atc belief why` on a belief at the end of a 300-long chain of justifications died
    # with a RecursionError traceback. Now it prints the tree to a fixed depth and says how to
    # go on from where it stopped.
    import types

    from attention_cloud.attention import Controller

    ctl = Controller(pl, "bench-cli-chain")
    try:
        for i in range(300):
            ctl.add_belief(f"c{i}", claim_type="dependency_version", subject="libfoo",
                           value="4.1", confidence=0.9, observed_at=float(NOW),
                           volatility="package_release", supports=[f"c{i - 1}"] if i else [])
        memory = types.SimpleNamespace(pl=pl, home=None)
        for fmt in ("text", "json"):
            result = CliRunner().invoke(COMMANDS["belief"],
                                        ["why", "c299", "--scope", "bench-cli-chain",
                                         "--now", NOW, "--format", fmt], obj=memory)
            assert result.exit_code == 0, result.output + repr(result.exception)
        text = CliRunner().invoke(COMMANDS["belief"], ["why", "c299", "--scope",
                                  "bench-cli-chain", "--now", NOW], obj=memory).output
        lines = text.splitlines()
        assert lines[0].startswith("c299: ") and len(lines) < 70, text
        assert re.search(r"belief c\d+ \(deeper: atc belief why c\d+\)$", lines[-1]), lines[-1]
    finally:
        ctl.drop()


@pytest.mark.parametrize("command, make", [
    ("belief", lambda name: ["add", name, "--type", "dependency_version", "--subject", "libfoo",
                             "--value", "4.1", "--confidence", "0.9",
                             "--volatility", "package_release"]),
    ("source", lambda name: ["add", name, "--type", "dependency_version",
                             "--kind", "package_registry"]),
])
@pytest.mark.parametrize("name", ["   ", "ver\nsion", "ver\tsion", "ver\x1bsion", "ver\x85"])
def test_an_id_that_is_blank_or_holds_control_characters_is_refused(atc, command, make, name):
    # Before: `atc belief add "   "` or an id with a newline or an escape character was stored;
    # it printed as an invisible or broken line in `belief list` and could hardly be named again.
    result = atc(command, *make(name), ok=False)
    assert result.exit_code == 2, result.output
    assert "a visible character and no control characters" in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert atc("belief", "list", "--format", "json").output.strip() == "[]"


def test_a_goal_id_that_is_blank_is_refused(atc):
    atc("belief", "add", "ver", "--type", "dependency_version", "--subject", "libfoo",
        "--value", "4.1", "--confidence", "0.9", "--volatility", "package_release")
    result = atc("goal", " \t", "--depends-on", "ver", "--loss", "1", ok=False)
    assert result.exit_code == 2 and "a visible character" in result.output, result.output
    # an id with spaces or any script inside is fine
    atc("goal", "déploiement A", "--depends-on", "ver", "--loss", "1")


def test_trace_of_an_unknown_event_type_is_refused_not_an_empty_trace(atc):
    # Before: a misspelt `--event candidate_selectd` printed nothing and exited 0, as if no
    # candidate had ever been selected.
    setup_scenario(atc)
    atc("attend", "--goal", "deploy", "--depends-on", "compat", "--budget", "3")
    assert "candidate_selected" in atc("trace", "--event", "candidate_selected").output
    result = atc("trace", "--event", "candidate_selectd", ok=False)
    assert result.exit_code == 2, result.output
    assert result.output.strip() == "atc: trace_event_type `candidate_selectd' does not exist", \
        result.output


def test_a_huge_belief_value_is_one_line_error_with_nothing_recorded(atc):
    # Before: `atc belief add ... --value <100 KB>` was stored, journalled and printed whole by
    # every listing after it.
    result = atc("belief", "add", "ver", "--type", "dependency_version", "--subject", "libfoo",
                 "--value", "v" * 100_000, "--confidence", "0.9",
                 "--volatility", "package_release", ok=False)
    assert result.exit_code == 2, result.output[:300]
    assert result.output.strip() == ("atc: value holds 100000 characters; at most 32000 "
                                     "are kept"), result.output[:300]
    assert atc("belief", "list", "--format", "json").output.strip() == "[]"


@pytest.mark.parametrize("scope", ["  ", "team\nA", "team\x1b"])
def test_a_blank_scope_or_one_with_control_characters_is_refused(home, scope):
    # Before: `--scope "  "` recorded beliefs in a scope that printed as nothing.
    result = CliRunner().invoke(COMMANDS["belief"], [
        "add", "ver", "--type", "dependency_version", "--subject", "libfoo", "--value", "4.1",
        "--confidence", "0.9", "--volatility", "package_release", "--home", str(home),
        "--scope", scope, "--now", NOW])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("atc: a scope needs a visible character and no control "
                                    "characters"), result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


@pytest.mark.parametrize("bad", [["--budget", "-1"], ["--budget", "10001"],
                                 ["--current", "attn-404"]])
def test_attend_with_a_goal_and_bad_input_sets_no_goal(atc, home, bad):
    # Before: `atc attend --goal G --depends-on B ... --budget -1` refused the budget but had
    # already recorded goal G (journalled): an error that still changed memory.
    setup_scenario(atc)
    journal = (home / "journal.pl").read_bytes()
    result = atc("attend", "--goal", "fresh-goal", "--depends-on", "compat", *bad, ok=False)
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert (home / "journal.pl").read_bytes() == journal
    assert "goal `fresh-goal' does not exist" in atc("attend", "--goal", "fresh-goal",
                                                     ok=False).output


def _strict(text: str):
    """``text`` parsed as strict JSON parsers (jq, JSON.parse) read it: NaN and Infinity are
    no JSON."""
    def refuse(constant: str):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_json_outputs_are_strict_json_even_for_a_number_json_cannot_hold(atc, monkeypatch):
    # A home written before subjects were checked can hold a NaN subject: `belief list`,
    # `belief show`, `why` and `attend` printed it as a bare NaN that strict parsers refuse.
    from attention_cloud.attention.controller import Controller

    setup_scenario(atc)
    shown = Controller.beliefs

    def with_nan(self, **kwargs):
        return [{**b, "subject": float("nan"), "confidence": float("inf")}
                for b in shown(self, **kwargs)]

    monkeypatch.setattr(Controller, "beliefs", with_nan)
    listed = _strict(atc("belief", "list", "--format", "json").output)
    assert {b["subject"] for b in listed} == {"nan"}
    assert {b["confidence"] for b in listed} == {"inf"}


def test_a_source_of_a_kind_the_registry_does_not_rank_names_the_kinds_it_does(atc):
    # `atc source add kubectl --type deploy_state` said only "source_authority
    # `deploy_state-kubectl' does not exist": neither what a kind is nor which ones exist.
    out = atc("source", "add", "kubectl", "--type", "deploy_state", ok=False)
    assert out.exit_code == 2
    assert out.output == (
        "atc: source kind kubectl has no authority for claim type deploy_state: give --kind one "
        "the registry ranks for it (deploy_api, deploy_manifest, process_state, recent_log, "
        "cached_status, own_summary, remembered_prose) or --authority A in [0, 1]\n")
    assert atc("source", "add", "kubectl", "--type", "deploy_state",
               "--authority", "0.9").exit_code == 0
