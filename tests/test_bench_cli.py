"""``atc bench attention`` through click's CliRunner: reports, JSON, plots, hold-out handling, and
an outside policy over the JSON-lines protocol."""
from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from attention_cloud.benchmark.cli import bench_attention

TOY_POLICY = r'''
"""A toy outside agent: read the most authoritative live source of each due claim, then decide."""
import json, sys

def due(scenario):
    horizon = scenario["limits"]["session_horizon_s"]
    return [g for g in scenario["goals"] if g["deadline_s"] is None or g["deadline_s"] <= horizon]

for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "end":
        break
    if kind == "hello":
        continue
    if kind == "trial":
        scenario = msg["scenario"]
        believed = {c["claim_id"]: (c["belief"] or {}).get("value", True) for c in scenario["claims"]}
        plan = []
        for goal in due(scenario):
            for cid in goal["depends_on"]:
                live = [o for o in scenario["objects"] if o["about_claim"] == cid
                        and o["content_as_of_s"] is None and o["trusted"]]
                if live:
                    plan.append(max(live, key=lambda o: o["authority"])["object_id"])
        plan = plan[:scenario["limits"]["max_inspections"]]
        batch = scenario["limits"]["inspection_protocol"] == "batch"
    elif kind == "observation" and msg["ok"] and msg["reports"]:
        believed[msg["reports"]["claim_id"]] = msg["reports"]["value"]
    elif kind == "observations":
        for obs in msg["results"]:
            if obs["ok"] and obs["reports"]:
                believed[obs["reports"]["claim_id"]] = obs["reports"]["value"]
        plan = []
    if batch and kind == "trial":
        print(json.dumps({"type": "inspect", "object_ids": plan}), flush=True)
        continue
    if plan and not batch:
        print(json.dumps({"type": "inspect", "object_id": plan.pop(0)}), flush=True)
        continue
    decisions = {}
    for goal in scenario["goals"]:
        for row in goal["rule"]:
            if all(believed[c] == v for c, v in row["when"].items()):
                decisions[goal["goal_id"]] = row["option_id"]
    print(json.dumps({"type": "decide", "decisions": decisions}), flush=True)
'''


def _invoke(*args):
    result = CliRunner().invoke(bench_attention, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result

def _run_policy(tmp_path, source: str, *options: str) -> dict:
    """Run the benchmark with the outside policy ``source`` (Python) and ``options``; the run
    must succeed, and its JSON report is returned."""
    script = tmp_path / "policy.py"
    script.write_text(source)
    out = tmp_path / "out.json"
    result = _invoke(*options, "--policies", "random", "--policy-cmd",
                     f"{sys.executable} {script}", "--json", str(out))
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())



def test_report_json_and_plots(tmp_path):
    out = tmp_path / "out.json"
    plots = tmp_path / "plots"
    result = _invoke("--families", "B,G", "--trials", "6", "--policies",
                     "random,no_inspection,bayes_visible", "--json", str(out), "--plots", str(plots))
    assert result.exit_code == 0, result.output
    assert "## B. Summary vs authoritative instrument — announced" in result.output
    assert "## B. Summary vs authoritative instrument — unprompted" in result.output
    assert "## Initiation gap" in result.output
    data = json.loads(out.read_text())
    rows = {(r["family"], r["policy"], r["condition"]): r for r in data["rows"]}
    assert rows[("G", "oracle", "announced")]["normalized_score"] == pytest.approx(100.0)
    assert rows[("B", "bayes_visible", "unprompted")]["n"] == 6
    for key in ("regret_mean", "spontaneous_authoritative", "critical_recall", "overinspection",
                "stages", "codes", "utility_per_compute"):
        assert key in rows[("B", "random", "announced")]
    assert data["freeze"]["generator_version"].startswith("attention-bench-generator/")
    assert len(data["freeze"]["code_hash"]) == 64
    assert len(data["trials"]) == len(data["rows"]) * 6
    for name in ("regret_by_policy.png", "score_by_family.png"):
        assert (plots / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_outside_policy_is_scored_over_json_lines(tmp_path):
    data = _run_policy(tmp_path, TOY_POLICY, "--families", "B,G", "--trials", "8")
    rows = {(r["family"], r["policy"], r["condition"]): r for r in data["rows"]}
    assert not data["notes"], data["notes"]
    for family in ("B", "G"):
        ext = rows[(family, "external", "announced")]
        assert ext["n"] == 8
        assert ext["normalized_score"] > rows[(family, "random", "announced")]["normalized_score"]
    assert rows[("B", "external", "announced")]["spontaneous_authoritative"]["rate"] == 1.0


def test_a_misbehaving_outside_policy_forfeits_trials_not_the_run(tmp_path):
    data = _run_policy(tmp_path, "import sys\nfor line in sys.stdin:\n    print('not json', flush=True)\n",
                       "--families", "F", "--trials", "3")
    assert any("external forfeited trials of family F" in n for n in data["notes"])
    ext = [r for r in data["rows"] if r["policy"] == "external"][0]
    assert ext["decision_accuracy"]["rate"] < 1.0 and ext["n"] == 3


def test_sealed_run_prints_aggregates_only(tmp_path):
    seeds = tmp_path / "holdout.txt"
    seeds.write_text("# hold-out\n" + "\n".join(str(900_000 + i) for i in range(5)) + "\n")
    out = tmp_path / "sealed.json"
    result = _invoke("--families", "B", "--trials", "5", "--policies", "random", "--sealed",
                     "--seeds-file", str(seeds), "--json", str(out))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert "trials" not in data and data["sealed"] is True
    assert data["freeze"]["settings"]["seeds_source"] == "external seeds file"
    assert str(seeds) not in result.output and "900000" not in result.output
    assert "trial-" not in result.output and "obj-" not in json.dumps(data)
    assert "sealed" in result.output


def test_sealed_run_refuses_dev_seeds_and_seed_files_in_the_repository():
    result = _invoke("--families", "B", "--trials", "2", "--policies", "random", "--sealed")
    assert result.exit_code == 2 and "--sealed needs --seeds-file" in result.output
    result = _invoke("--families", "B", "--trials", "2", "--policies", "random", "--sealed",
                     "--seeds-file", "scripts/bench/attention_dev_seeds.txt")
    assert result.exit_code == 2 and "inside the repository" in result.output


def test_bad_arguments_give_one_clear_line(tmp_path):
    bad = tmp_path / "seeds.txt"
    bad.write_text("12\nabc\n")
    result = _invoke("--seeds-file", str(bad), "--trials", "1", "--policies", "random")
    assert result.exit_code == 1 and "not an integer seed: 'abc'" in result.output
    binary = tmp_path / "seeds.bin"     # a file given by mistake was a UnicodeDecodeError
    binary.write_bytes(b"\xff\xfe\x00\x01")
    result = _invoke("--seeds-file", str(binary), "--trials", "1", "--policies", "random")
    assert result.exit_code == 1 and result.output.endswith(
        f"cannot read seeds file {binary}: not UTF-8 text (invalid start byte at byte 0)\n")
    result = _invoke("--families", "Q", "--trials", "1")
    assert result.exit_code == 2 and "unknown family 'Q'" in result.output
    result = _invoke("--policies", "telepathy", "--trials", "1")
    assert result.exit_code == 2 and "unknown policy 'telepathy'" in result.output
    result = _invoke("--families", "F", "--trials", "1", "--policies", "random",
                     "--policy-cmd", str(tmp_path / "no-such-agent"))
    assert result.exit_code == 2 and "cannot start --policy-cmd" in result.output
    few = tmp_path / "few.txt"
    few.write_text("1\n2\n")
    result = _invoke("--seeds-file", str(few), "--trials", "3", "--policies", "random")
    assert result.exit_code == 2 and "exceeds the 2 seeds" in result.output


def test_print_schema_describes_the_policy_visible_documents():
    result = _invoke("--print-schema")
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["scenario"]["additionalProperties"] is False
    assert "untrusted_preview" in schema["scenario"]["properties"]["objects"]["items"]["properties"]


def test_a_silent_outside_policy_times_out_and_is_restarted(tmp_path):
    script = tmp_path / "silent.py"
    script.write_text("import sys, time\nfor line in sys.stdin:\n    time.sleep(30)\n")
    out = tmp_path / "out.json"
    result = _invoke("--families", "F", "--trials", "2", "--policies", "random",
                     "--policy-cmd", f"{sys.executable} {script}", "--policy-timeout", "0.5",
                     "--json", str(out))
    assert result.exit_code == 0, result.output
    notes = json.loads(out.read_text())["notes"]
    assert any("no answer within 0.5 s (x2)" in n for n in notes), notes


def test_a_restarted_policy_never_hears_the_killed_ones_end(tmp_path, monkeypatch):
    """A policy that timed out is killed and started again; the end of file its reader thread
    sees afterwards belongs to the killed process. It reached the new process's queue, so a
    trial the new process never saw failed as "the policy process exited" (on a loaded machine
    the test above failed that way). Here the killed process's reader is held back until the
    new process has started, as a busy machine may hold it."""
    import queue
    import threading

    from attention_cloud.benchmark.external import ExternalPolicy

    restarted = threading.Event()
    readers = []
    pump = ExternalPolicy._pump

    def held_back(*args):
        if not readers:
            readers.append(args)
            restarted.wait(10)  # the first process's reader: not until the restart
        return pump(*args)

    monkeypatch.setattr(ExternalPolicy, "_pump", staticmethod(held_back))
    script = tmp_path / "silent.py"
    script.write_text("import sys, time\nfor line in sys.stdin:\n    time.sleep(30)\n")
    policy = ExternalPolicy(f"{sys.executable} {script}", timeout_s=0.2)
    try:
        policy._start()
        killed = policy._lines
        with pytest.raises(Exception, match="no answer within"):
            policy._receive()  # killed on the timeout
        policy._start()
        restarted.set()
        assert killed.get(timeout=10) is None  # the killed process's end, in its own queue
        with pytest.raises(queue.Empty):
            policy._lines.get(timeout=0.5)  # nothing from it in the new process's
    finally:
        policy._kill()


@pytest.mark.parametrize("timeout", ["-1", "0", "nan", "inf"])
def test_a_policy_timeout_that_is_not_a_positive_number_is_refused(tmp_path, timeout):
    # A NaN timeout never expired (a silent policy hung the run); a negative one raised
    # ValueError from queue.get() as a traceback.
    script = tmp_path / "agent.py"
    script.write_text("import json, sys\nfor line in sys.stdin:\n"
                      "    if json.loads(line)['type'] == 'trial':\n"
                      "        print(json.dumps({'type': 'decide', 'decisions': {}}), flush=True)\n")
    result = _invoke("--families", "B", "--trials", "1", "--policies", "random",
                     "--policy-cmd", f"{sys.executable} {script}", "--policy-timeout", timeout)
    assert result.exit_code == 2, result.output
    assert "--policy-timeout must be a positive number of seconds" in result.output
    assert "Traceback" not in result.output


def test_an_empty_policy_cmd_is_refused_not_ignored():
    result = _invoke("--families", "B", "--trials", "1", "--policies", "random",
                     "--policy-cmd", "")
    assert result.exit_code == 2 and "--policy-cmd is empty" in result.output


def test_a_crashing_outside_policy_is_named_once_per_cause(tmp_path):
    # Each restart's note quotes that process's stderr, not every earlier one's too, so the
    # same crash on every trial is one note with its count.
    notes = _run_policy(tmp_path, "import sys\nsys.stdin.readline()\nraise SystemExit('boom')\n",
                        "--families", "F", "--trials", "3")["notes"]
    assert notes == ["external forfeited trials of family F — the policy process exited "
                     "(stderr: boom) (x3)"], notes


@pytest.mark.parametrize("flag, name", [("--json", "x.json"), ("--markdown", "x.md"),
                                        ("--plots", "plots")])
def test_an_output_path_that_cannot_be_written_is_refused_before_the_run(tmp_path, flag, name):
    # It was a FileExistsError traceback, raised after every trial had run.
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = _invoke("--families", "B", "--trials", "1", "--policies", "random",
                     flag, str(blocker / name))
    assert result.exit_code == 2, result.output
    assert f"{flag} {blocker / name}: cannot write there" in result.output
    assert "# Attention benchmark" not in result.output


def test_a_policy_line_that_never_ends_forfeits_the_trial_in_bounded_memory(tmp_path):
    # Before: the reader held the whole line; one that never ended grew until the machine ran
    # out of memory (3 GB in 10 s here), and the trial was only lost to the timeout.
    endless = ("import sys\nsys.stdin.readline()\nchunk = '{' * (1 << 20)\n"
               "while True:\n    sys.stdout.write(chunk)\n")
    notes = _run_policy(tmp_path, endless, "--families", "F", "--trials", "2",
                        "--policy-timeout", "60")["notes"]
    assert notes == ["external forfeited trials of family F — a line longer than 1048576 "
                     "characters (x2)"], notes


def test_a_crashing_policy_s_long_stderr_is_quoted_short(tmp_path):
    # Before: a 2 MB line on stderr went whole into the report's notes.
    crash = ("import sys\nsys.stdin.readline()\n"
             "sys.stderr.write('E' * 2_000_000 + '\\n')\nraise SystemExit('boom')\n")
    notes = _run_policy(tmp_path, crash, "--families", "F", "--trials", "1")["notes"]
    assert notes == ["external forfeited trials of family F — the policy process exited "
                     f"(stderr: {'E' * 300} [...] | boom)"], notes


def test_a_batch_of_non_string_object_ids_is_refused_not_a_traceback(tmp_path):
    # Before: a batch holding an object or a list (`"object_ids": [{"id": 1}]`) raised
    # "TypeError: unhashable type" out of the evaluator and ended the whole run.
    odd = ("import json, sys\n"
           "for line in sys.stdin:\n"
           "    kind = json.loads(line)['type']\n"
           "    if kind == 'end':\n        break\n"
           "    if kind == 'hello':\n        continue\n"
           "    print(json.dumps({'type': 'inspect', 'object_ids': [{'id': 1}, ['x']]}), flush=True)\n")
    notes = _run_policy(tmp_path, odd, "--families", "G", "--trials", "2")["notes"]
    assert len(notes) == 1 and "external forfeited trials of family G" in notes[0], notes
    assert "object ids are strings" in notes[0], notes


def test_a_decision_naming_an_unknown_goal_or_option_is_refused_and_reported(tmp_path):
    # Before: a misspelt option (or goal) id was accepted without a word and scored as the
    # goal's worst option, so an outside agent never learnt its decisions were thrown away.
    typo = ("import json, sys\n"
            "for line in sys.stdin:\n"
            "    msg = json.loads(line)\n"
            "    if msg['type'] == 'end':\n        break\n"
            "    if msg['type'] == 'hello':\n        continue\n"
            "    if msg['type'] == 'trial':\n"
            "        goals = msg['scenario']['goals']\n"
            "    if msg['type'] == 'error':\n"
            "        sys.stderr.write(msg['message'] + '\\n')\n"
            "    print(json.dumps({'type': 'decide', 'decisions':\n"
            "        {g['goal_id']: g['options'][0]['option_id'] + '-typo' for g in goals}}),\n"
            "        flush=True)\n")
    notes = _run_policy(tmp_path, typo, "--families", "F", "--trials", "2")["notes"]
    assert notes and all("external forfeited trials of family F" in n for n in notes), notes
    assert all("-typo' is not an option of goal" in n for n in notes), notes
    unknown_goal = typo.replace("{g['goal_id']: g['options'][0]['option_id'] + '-typo' for g in goals}",
                                "{'no-such-goal': 'x'}")
    notes = _run_policy(tmp_path, unknown_goal, "--families", "F", "--trials", "2")["notes"]
    assert len(notes) == 1 and "unknown goal 'no-such-goal'" in notes[0], notes


def test_a_decision_with_known_ids_still_passes(tmp_path):
    data = _run_policy(tmp_path, TOY_POLICY, "--families", "F", "--trials", "3")
    assert not data["notes"], data["notes"]


def test_a_policy_that_writes_bytes_that_are_not_utf8_is_told_so_not_timed_out(tmp_path):
    # Before: the reader thread died on the first such byte (a UnicodeDecodeError traceback
    # on the evaluator's stderr), and each trial then sat out the whole timeout and was
    # reported as "no answer within N s".
    latin1 = ("import json, sys\n"
              "for line in sys.stdin:\n"
              "    kind = json.loads(line)['type']\n"
              "    if kind == 'end':\n        break\n"
              "    if kind == 'hello':\n        continue\n"
              "    sys.stdout.buffer.write(b'{\"type\": \"decide\", \"x\": \"caf\\xe9\"}\\n')\n"
              "    sys.stdout.flush()\n")
    notes = _run_policy(tmp_path, latin1, "--families", "F", "--trials", "2",
                        "--policy-timeout", "60")["notes"]
    assert notes == ["external forfeited trials of family F — 3 invalid messages, last: "
                     "not UTF-8 text (x2)"], notes


def test_a_crashing_policy_s_stderr_that_is_not_utf8_is_still_quoted(tmp_path):
    crash = ("import sys\nsys.stdin.readline()\n"
             "sys.stderr.buffer.write(b'caf\\xe9 exploded\\n'); sys.stderr.flush()\n"
             "raise SystemExit(3)\n")
    notes = _run_policy(tmp_path, crash, "--families", "F", "--trials", "1")["notes"]
    assert notes == ["external forfeited trials of family F — the policy process exited "
                     "(stderr: caf\ufffd exploded)"], notes
