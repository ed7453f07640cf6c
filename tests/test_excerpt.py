"""Goal-focused excerpts: a long record too big for its share of the budget is shown as the
verbatim sentences of its L0 nearest the goal (receipt: level L0 with ``excerpt``), not as a
summary chosen without the goal."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from attention_cloud import Memory
from attention_cloud.bridge import Atom, Var, to_plain
from attention_cloud.curate import estimate_tokens
from attention_cloud.excerpt import GAP, excerpt_text, goal_weights

# A long answer whose relevant sentence (the free lessons website) is neither its first nor
# its last, among others that the summary may prefer.
ANSWER = (
    "There are many great resources online that can help you learn music theory, whether you "
    "are a beginner or an advanced musician. Here are a few recommendations:\n\n"
    "1. Harmonica Atlas: This website offers free lessons and exercises on music theory, "
    "covering rhythm, chords and scales.\n\n"
    "2. Online courses: Platforms offer paid courses on music theory taught by professional "
    "musicians and educators, with certificates at the end.\n\n"
    "3. Video channels: There are numerous channels dedicated to teaching music theory, with "
    "long series on harmony and counterpoint for every level.\n\n"
    "4. Books: There are many great books on music theory for beginners and advanced "
    "learners. Some popular options include \"Theory for Everyone\" by Ada Quist and \"The "
    "Jazz Harmony Book\" by Bo Lindqvist.\n\n"
    "5. Private lessons: If you are serious about learning music theory, consider taking "
    "private lessons from a music teacher. They can provide personalised instruction and help "
    "you progress faster, especially with ear training and sight reading.\n\n"
    "I hope this helps! Good luck and have fun learning music theory!")
GOAL = "Which website did you recommend for free lessons and exercises?"
TARGET = "Harmonica Atlas: This website offers free lessons and exercises"

# Text that must cross the bridge as data: Prolog syntax, quotes, unicode.
ODD = ("Setup notes for the café in Zürich, written over several evenings. "
       "The first rule was foo(X) :- bar(X), \\+ baz('it''s'). which we kept. "
       "Prices are in francs — ça coûte 12 CHF, 日本語のメモ too. "
       "The espresso grinder Mazzer Mini needs a new burr set every 9 months. "
       "We replaced the \"quoted\" door sign and repainted the counter twice. "
       "Opening hours moved from 7:00 to 6:30 on weekdays after the survey in March. "
       "Nobody liked the playlist, so it was changed to jazz and bossa nova records. ") * 2


def _unlabelled(text: str) -> str:
    """A fact's text after the speaker label that every turn of these conversations carries
    (their parties are unnamed: "user: ", "assistant: ")."""
    label, sep, rest = text.partition(": ")
    assert sep and label in ("user", "assistant"), text
    return rest


def _pieces(text: str) -> list[str]:
    """The verbatim pieces of an excerpt: what lies between its gap markers."""
    return [p for p in (s.strip() for s in re.split(re.escape(GAP), text)) if p]


@pytest.fixture
def music(tmp_path: Path, curated_hash_memory, built_home):
    """A curated home holding one conversation with the long answer above (a copy of one built
    once per process)."""
    mem = Memory.open(built_home("excerpt-music", lambda home: _build_music(home, curated_hash_memory),
                                 tmp_path / "home"))
    yield mem
    mem.close()


def _build_music(home: Path, curated_hash_memory) -> None:
    sessions = home.parent / "sessions"
    sessions.mkdir()
    messages = [
        {"role": "user", "content": "Can you recommend resources for learning music theory?"},
        {"role": "assistant", "content": ANSWER},
        {"role": "user", "content": "Thanks. I also practise jazz piano and want to play scales daily."},
        {"role": "assistant", "content": "Practising scales daily with a metronome builds speed and accuracy."},
        {"role": "user", "content": "Here are my notes: " + ODD},
    ]
    (sessions / "music.json").write_text(json.dumps({"session_id": "m1", "messages": messages}),
                                         encoding="utf-8")
    curated_hash_memory(home.parent, sessions).close()


def _item_with(mem: Memory, words: str) -> str:
    (found,) = [str(h) for h, text in mem.pl.solutions("atc_journal:item_text", Var(), Var())
                if words in str(text)]
    return found


def _fact(frame, handle):
    return next((f for f in frame.facts if f.handle == handle), None)


def test_long_record_becomes_an_excerpt_holding_the_goal_sentence(music):
    handle = _item_with(music, TARGET)
    (l1,) = music.pl.once("atc_ladder:rung", Atom(handle), Atom("l1"), Var())
    assert TARGET not in str(l1)  # the summary kept another sentence: the case to fix
    frame = music.hydrate(GOAL, budget=200)
    fact = _fact(frame, handle)
    assert fact is not None and fact.level == "l0" and fact.excerpt_spans
    assert TARGET in fact.text
    entry = next(f for f in frame.receipt["facts"] if f["handle"] == handle)
    assert entry["level"] == "L0"
    assert entry["excerpt"]["kept"] == len(entry["excerpt"]["spans"]) < entry["excerpt"]["of"]
    # verbatim: every piece is the item's own text, and the spans point at what was kept
    l0 = music.item(handle).text
    for piece in _pieces(_unlabelled(fact.text)):
        assert piece in l0
    kept = [l0[s:e] for s, e in entry["excerpt"]["spans"]]
    assert any(TARGET in k for k in kept)
    assert all(k in fact.text for k in kept)
    assert f"L0 excerpt {entry['excerpt']['kept']}/{entry['excerpt']['of']}" in frame.text
    assert estimate_tokens(fact.text) <= fact.tokens
    assert frame.receipt["budget"]["spent"] + frame.receipt["budget"]["framing"] <= 200


def test_no_excerpt_gives_the_summary_as_before(music):
    handle = _item_with(music, TARGET)
    frame = music.hydrate(GOAL, budget=200, excerpt=False)
    fact = _fact(frame, handle)
    assert fact is not None and fact.level == "l1" and not fact.excerpt_spans
    assert all("excerpt" not in f for f in frame.receipt["facts"])
    assert "L0 excerpt" not in frame.text


def test_roomy_frame_shows_the_whole_record(music):
    handle = _item_with(music, TARGET)
    frame = music.hydrate(GOAL, budget=2000)
    fact = _fact(frame, handle)
    assert fact.level == "l0" and not fact.excerpt_spans
    assert fact.text == "assistant: " + music.item(handle).text


def test_goal_without_terms_in_the_record_gets_no_excerpt(music):
    frame = music.hydrate("quantum chromodynamics lattice gauge", budget=200)
    assert all(not f.excerpt_spans for f in frame.facts)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(min_value=0, max_value=700),
       goal=st.sampled_from([GOAL, "espresso grinder burr set", "opening hours survey March",
                             "foo(X) :- bar(X) rule", "café Zürich 日本語"]))
# budgets where the frame's head, priced as one text, came out a token over (its lines are
# counted one by one)
@example(budget=371, goal=GOAL)
@example(budget=663, goal="opening hours survey March")
@example(budget=326, goal="café Zürich 日本語")
def test_frames_with_excerpts_never_exceed_the_budget(music, budget, goal):
    frame = music.hydrate(goal, budget=budget)
    r = frame.receipt
    assert r["budget"]["spent"] == sum(f["tokens"] for f in r["facts"]) + sum(
        c["tokens"] for c in r["beyond"])
    if r["facts"] or r["beyond"]:  # the frame's text, its heading lines included, fits
        assert r["budget"]["spent"] + r["budget"]["framing"] <= budget
    else:
        assert r["budget"]["spent"] == 0
    for fact in frame.facts:
        assert estimate_tokens(fact.text) <= fact.tokens
        if fact.excerpt_spans:
            l0 = music.item(fact.handle).text
            assert all(piece in l0 for piece in _pieces(_unlabelled(fact.text)))


def test_summary_that_already_answers_is_kept(music):
    handle = _item_with(music, "foo(X) :- bar(X)")
    (l1,) = music.pl.once("atc_ladder:rung", Atom(handle), Atom("l1"), Var())
    assert "Mazzer Mini needs a new burr set" in str(l1)  # curation chose the goal's sentence
    frame = music.hydrate("espresso grinder Mazzer burr set", budget=170)
    fact = _fact(frame, handle)
    assert fact is not None and fact.level == "l1" and not fact.excerpt_spans


def test_prolog_syntax_quotes_and_unicode_survive(music):
    handle = _item_with(music, "foo(X) :- bar(X)")
    frame = music.hydrate("opening hours survey March weekdays café Zürich", budget=170)
    fact = _fact(frame, handle)
    assert fact is not None and fact.excerpt_spans
    assert "Opening hours moved from 7:00 to 6:30 on weekdays after the survey in March." in fact.text
    l0 = music.item(handle).text
    for piece in _pieces(_unlabelled(fact.text)):
        assert piece in l0
    frame = music.hydrate("foo(X) :- bar(X) 'it''s' 日本語のメモ", budget=170)
    fact = _fact(frame, handle)
    assert fact is not None and fact.excerpt_spans
    assert "foo(X) :- bar(X), \\+ baz('it''s')." in fact.text or "日本語のメモ" in fact.text
    for piece in _pieces(_unlabelled(fact.text)):
        assert piece in l0


def test_cli_no_excerpt(music):
    from click.testing import CliRunner

    from attention_cloud.cli import main

    home = str(music.home)
    music.close()
    with_ = CliRunner().invoke(main, ["hydrate", "--goal", GOAL, "--budget", "200", "--format",
                                      "json", "--home", home])
    without = CliRunner().invoke(main, ["hydrate", "--goal", GOAL, "--budget", "200",
                                        "--no-excerpt", "--format", "json", "--home", home])
    assert with_.exit_code == 0 and without.exit_code == 0, with_.output + without.output
    facts_with = json.loads(with_.output)["receipt"]["facts"]
    facts_without = json.loads(without.output)["receipt"]["facts"]
    assert any("excerpt" in f for f in facts_with)
    assert not any("excerpt" in f for f in facts_without)


def test_hydrate3_option_excerpt_false(music):
    music.jump  # the host's predicates
    (on,) = music.pl.once("atc_hydrate:hydrate", GOAL, {"budget": 200}, Var())
    (off,) = music.pl.once("atc_hydrate:hydrate", GOAL, {"budget": 200, "excerpt": Atom("false")},
                           Var())
    assert any(s["excerpted"] for s in to_plain(on.args[0])["segments"])
    assert not any(s["excerpted"] for s in to_plain(off.args[0])["segments"])
    with pytest.raises(Exception, match="boolean"):
        music.pl.once("atc_hydrate:hydrate", GOAL, {"budget": 200, "excerpt": Atom("maybe")}, Var())


# -- the excerpt itself (pure) -------------------------------------------------------------------
def test_excerpt_keeps_order_cap_and_verbatim_pieces():
    weights = goal_weights(GOAL)
    found = excerpt_text(ANSWER, weights, cap=60)
    assert found is not None and TARGET in found.text
    assert found.tokens == estimate_tokens(found.text) <= 60
    assert found.text.startswith(GAP) and found.text.endswith(GAP)  # cut at both ends
    starts = [s for s, _ in found.spans]
    assert starts == sorted(starts)
    for piece in _pieces(found.text):
        assert piece in ANSWER
    assert 0 < found.coverage <= 1


VERSIONS = """## OpenTelemetry Package Versions for mix.exs

Here are the latest stable versions:

**opentelemetry_api**
- Latest: 1.4.0, constraint ~> 1.4

**opentelemetry_exporter**
- Latest: 1.8.0, constraint ~> 1.8

### Example mix.exs Dependencies Block
{:opentelemetry_api, "~> 1.4"}
"""


@pytest.mark.parametrize("cap", [20, 30, 45, 60])
def test_a_heading_is_kept_with_what_it_heads(cap):
    """Headings hold the goal's words ("versions", "opentelemetry", "mix.exs") but not the
    answer: an excerpt of headings alone said nothing. Each heading kept is followed by the
    line it heads."""
    lines = VERSIONS.splitlines()
    headings = {"## OpenTelemetry Package Versions for mix.exs",
                "Here are the latest stable versions:", "**opentelemetry_api**",
                "**opentelemetry_exporter**", "### Example mix.exs Dependencies Block"}
    found = excerpt_text(VERSIONS, goal_weights(
        "which versions of the opentelemetry packages did the subagent recommend for mix.exs"), cap)
    assert found is not None and found.tokens <= cap
    kept = [VERSIONS[s:e] for s, e in found.spans]
    for i, piece in enumerate(kept):
        if piece in headings:
            following = next(line for line in lines[lines.index(piece) + 1:] if line.strip())
            assert i + 1 < len(kept) and kept[i + 1] == following, kept
    assert any("1.4" in piece for piece in kept)  # a version, not only names of them


def test_excerpt_cuts_a_long_line_into_runs_of_words():
    line = " ".join(f"w{i}" for i in range(300)) + " needle haystack " + " ".join(
        f"v{i}" for i in range(300))
    found = excerpt_text(line, goal_weights("needle"), cap=80)
    assert found is not None and "needle" in found.text and found.tokens <= 80
    assert all(piece in line for piece in _pieces(found.text))


def test_no_excerpt_without_a_goal_term_or_room():
    assert excerpt_text(ANSWER, goal_weights("quantum chromodynamics"), cap=100) is None
    assert excerpt_text(ANSWER, goal_weights(GOAL), cap=3) is None
    assert excerpt_text("One sentence about free lessons.", goal_weights(GOAL), cap=100) is None


# -- the same excerpt and frame in every process ---------------------------------------------
_TIE = """
import json
from attention_cloud.excerpt import excerpt_text
# 0.1 + 0.2 + 0.3 summed in some orders is 0.6000000000000001, in others 0.6: the two
# sentences tie exactly, and the tie must go to the first whatever the set's order
weights = {"delta": 0.6, "alpha": 0.1, "beta": 0.2, "gamma": 0.3}
text = "Delta was here. Alpha beta gamma. End of it."
print(json.dumps([excerpt_text(text, weights, cap=cap).text for cap in (7, 8, 9)]))
"""

_FRAME = """
import json, sys, tempfile
from pathlib import Path
from attention_cloud import Memory
from attention_cloud.home import write_config
scratch = tempfile.TemporaryDirectory()   # removed as the process exits
home = Path(scratch.name) / "home"
home.mkdir()
write_config(home, {"embedder": "hash"})
with Memory.open(home) as mem:
    mem.ingest([sys.argv[1]])
    mem.curate()
    out = []
    for goal in ("which instagram handle to tag in the spring campaign",
                 "why did the post schedule fail"):
        for budget in (150, 250, 400):
            frame = mem.hydrate(goal, budget=budget, now="2026-02-04T00:00:00Z")
            out.append([frame.text.split("\\n", 2)[2],
                        [[f.handle, f.level, f.tokens, f.excerpt] for f in frame.facts]])
print(json.dumps(out))
"""


def _in_fresh_processes(script: str, *args: str) -> list[str]:
    """What ``script`` prints in fresh interpreters with different string hash seeds."""
    import os
    import subprocess
    import sys

    outs = []
    for seed in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run([sys.executable, "-c", script, *args], env=env, text=True,
                              capture_output=True, timeout=300, check=True)
        outs.append(done.stdout)
    return outs


def test_a_score_tie_goes_to_the_first_unit_in_every_process():
    outs = _in_fresh_processes(_TIE)
    assert outs[0] == outs[1] == outs[2]
    assert json.loads(outs[0])[0] == "Delta was here. …"


def test_the_same_frame_with_excerpts_comes_out_of_fresh_processes(children_tmpdir):
    transcript = Path(__file__).parent / "fixtures" / "long_v1" / "transcript.jsonl"
    first, *others = _in_fresh_processes(_FRAME, str(transcript))
    frames = json.loads(first)
    assert any(fact[3] for _, facts in frames for fact in facts)  # excerpts were chosen
    assert all(other == first for other in others)
    assert list(children_tmpdir.iterdir()) == []   # their scratch homes removed


# A pre-commit hook's output as the real Claude Code sessions hold it: the goal's words lie in
# its heading lines, its cause in a diagnostic that holds none of them.
FAILED_HOOK = (
    "$ git add -A && git commit -m 'feat: instrument hook controllers'\n"
    "Pre-commit validation failed:\\n\\n[DIALYZER]\\nFinding suitable PLTs\n"
    "Checking PLT...\n[:acceptor_pool, :ash, :ash_ai, :ash_computer, :ash_json_api, :ash_oban]\n"
    "PLT is up to date!\nNo :ignore_warnings opt specified in mix.exs and default does not exist.\n"
    "Starting Dialyzer\n[\n  check_plt: false,\n  init_plt: ~c\"/home/USER/app/_build/dev/x.plt\",\n"
    "  ...\n]\nTotal errors: 2, Skipped: 0, Unnecessary Skips: 0\ndone in 0m12.09s\n"
    "lib/app_web/controllers/otel_trace_helpers.ex:57:13:pattern_match\n"
    "The pattern can never match the type.\n\nPattern:\n{:ok, _trace_id}\n\nType:\n:error\n"
    "________________________________________________________________________________\n"
    "[Output truncated: showing 30 of 47 lines]\\n\\nFix these issues before committing.")


def test_an_errors_excerpt_keeps_the_diagnostic_its_summary_named():
    # The excerpt chosen by "pre-commit", "check" and "fail" showed the heading lines ("Pre-commit
    # validation failed ... Checking PLT...") in place of the summary that named the cause.
    from attention_cloud.curate import ItemView, curate_items
    from attention_cloud.excerpt import Next, excerpts

    summary = curate_items([ItemView("it_1", "s", 1, "error", "", "", "p#L1", FAILED_HOOK)])[0].l1
    assert "otel_trace_helpers.ex:57:13" in summary
    weights = goal_weights("why did the pre-commit check fail and how was it fixed")
    below = Next(summary, estimate_tokens(summary), 0.4)
    found = excerpts(weights, FAILED_HOOK, [90], below, keep=summary)
    assert found, "no excerpt"
    text = found[0][0].text
    assert "otel_trace_helpers.ex:57:13:pattern_match" in text and "can never match" in text, text
    assert "Pre-commit validation failed" in text, text   # and what the goal's words found
    assert found[0][0].tokens <= 90
    # without it (any record but an error), the goal's words alone choose
    plain = excerpts(weights, FAILED_HOOK, [90], below)
    assert plain and "pattern_match" not in plain[0][0].text


def test_an_identifier_written_with_markdown_escapes_counts_whole_in_an_excerpt():
    """LLM answers write ``SIAC_GEE`` as ``SIAC\\_GEE``: BM25 reads it as the identifier a goal
    names (c022f03), and so must the excerpt's scan of a record's sentences, or a sentence
    naming the two parts apart (first here) ties with the one naming the identifier."""
    text = ("The siac team met the gee team at noon on Friday. "
            "Set SIAC\\_GEE to the batch mode before the run starts. "
            "Everything else stays the same for the whole of next week.")
    excerpt = excerpt_text(text, goal_weights("SIAC_GEE"), cap=16)
    assert excerpt is not None
    assert "Set SIAC\\_GEE to the batch mode" in excerpt.text
    assert "siac team" not in excerpt.text
