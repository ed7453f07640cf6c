"""Reading a text: entities, cue phrases and the distillation built from them."""
from __future__ import annotations

from attention_cloud.curate import ItemView, curate_items
from attention_cloud.curate.analysis import analyse
from attention_cloud.curate.cues import cue_categories
from attention_cloud.curate.entities import find_entities, rank_entities
from attention_cloud.curate.sentences import HEAD_CHARS, TAIL_CHARS, split_sentences, window


def kinds(text: str) -> dict[str, str]:
    return {e.text: e.kind for e in find_entities(text)}


def item(text: str, kind: str = "turn", handle: str = "it_1") -> ItemView:
    return ItemView(handle, "ses_a", 1, kind, "", "2026-01-01T00:00:00Z", "src.jsonl#L1", text)


# -- entities -------------------------------------------------------------------------

def test_paths_urls_and_errors_in_a_coding_turn():
    found = kinds(
        "Fixed ModuleNotFoundError in host/attention_cloud/curate/ladder.py; see "
        "https://docs.python.org/3/library/re.html and ./build/out.json, then edit README.md. "
        "The copy failed with ENOENT."
    )
    assert found["ModuleNotFoundError"] == "error"
    assert found["ENOENT"] == "error"
    assert found["host/attention_cloud/curate/ladder.py"] == "path"
    assert found["./build/out.json"] == "path"
    assert found["README.md"] == "path"
    assert found["https://docs.python.org/3/library/re.html"] == "url"  # trailing dot dropped


def test_numbers_with_units_money_and_test_counts():
    found = kinds("After 5 retries with a 200 ms timeout on 3.2 GB of logs: 12 passed, 1 failed; "
                  "it cost $10 and 1,200 euros, 40% faster.")
    for surface, kind in [("5 retries", "quantity"), ("200 ms", "quantity"), ("3.2 GB", "quantity"),
                          ("12 passed", "quantity"), ("1 failed", "quantity"), ("$10", "money"),
                          ("1,200 euros", "money"), ("40%", "quantity")]:
        assert found.get(surface) == kind, surface


def test_identifiers_calls_and_backticked_code():
    found = kinds("Call curate_items() instead of os.path.join; ModelCurator wraps `retry_count=5` "
                  "and getUser.")
    assert found["curate_items()"] == "call"
    assert found["os.path.join"] == "identifier"
    assert found["ModelCurator"] == "identifier"
    assert found["retry_count=5"] == "code"
    assert found["getUser"] == "identifier"


def test_dates_times_and_durations_from_conversation():
    text = ("Over a year of waiting ended on May 30, 2023 at 10:18. We met on 2023-05-20T07:47:00Z "
            "and again two months ago, last Tuesday at 3 pm.")
    entities = analyse(text).entities
    found = {e.text: e.kind for e in entities}
    assert found["Over a year"] == "duration"
    assert found["two months ago"] == "duration"
    assert found["May 30, 2023"] == "date"
    assert found["2023-05-20T07:47:00Z"] == "date"
    assert found["Tuesday"] == "date"
    assert found["10:18"] == "time" and found["3 pm"] == "time"
    assert [e.start for e in entities] == sorted(e.start for e in entities)


def test_named_things_but_not_sentence_openers_or_pronouns():
    found = kinds("I'm planning a trip to Jordan to see Petra. The History Museum had a lecture. "
                  "My Sony A7R IV needs a flash. Then I went home.")
    assert found["Jordan"] == "name" and found["Petra"] == "name"
    assert found["History Museum"] == "name"  # "The" dropped
    assert found["Sony A7R IV"] == "name"
    assert "Then" not in found and "I'm" not in found and "I" not in found and "The" not in found


def test_error_class_is_not_swallowed_by_a_capitalised_run():
    found = kinds("Fixed ValueError in the parser.")
    assert found == {"ValueError": "error"}


def test_not_paths_and_not_identifiers():
    found = kinds("Use it and/or skip it, e.g. on weekends, 24/7 if needed.")
    assert "and/or" not in found and "e.g" not in found and "24/7" not in found


def test_ranking_puts_errors_and_paths_first_and_drops_contained_names():
    ranked = rank_entities(find_entities("Sony makes the Sony A7R IV. It logged ValueError to "
                                         "logs/app/run.log on 2023-05-20."), 10)
    assert ranked[0] == "ValueError" and ranked[1] == "logs/app/run.log"
    assert "Sony A7R IV" in ranked and "Sony" not in ranked


# -- cues -----------------------------------------------------------------------------

def test_cue_categories_for_coding_statements():
    assert "decision" in cue_categories("We decided to go with SQLite for the index.")
    assert "decision" in cue_categories("Let's use faiss instead of annoy.")
    assert "constraint" in cue_categories("The budget must stay under 200 ms and never block.")
    assert "constraint" in cue_categories("Retry at most 3 times.")
    assert "outcome" in cue_categories("All tests pass now: 12 passed.")
    assert "outcome" in cue_categories("The deploy failed with an error.")
    assert cue_categories("The sky looks blue today.") == frozenset()


def test_cue_categories_for_conversation():
    assert "fact" in cue_categories("My favourite cuisine is Ethiopian.")
    assert "constraint" in cue_categories("I'm allergic to peanuts.")
    assert "outcome" in cue_categories("I managed to raise $250 for the shelter.")
    assert "decision" in cue_categories("I've decided to adopt the dog.")
    assert "fact" in cue_categories("I’ve been learning Spanish")  # curly apostrophe


def test_first_person_sentence_with_specifics_counts_as_a_fact():
    analysis = analyse("Nice weather. We adopted Biscuit on March 3 from the shelter.")
    assert "fact" not in analysis.cues[0]
    assert "fact" in analysis.cues[1]


def test_distillation_of_a_coding_conclusion():
    text = ("We decided to stream the file in 64 MB chunks instead of loading it whole. "
            "The reader must never hold more than 128 MB. "
            "After the change tests/test_reader.py reports 12 passed, 0 failed. "
            "Thanks for the help!")
    d = curate_items([item(text, "conclusion")])[0].distillation
    assert d.decisions and "64 MB chunks" in d.decisions[0]
    assert d.constraints and "never" in d.constraints[0]
    assert d.outcomes and "12 passed" in d.outcomes[0]
    assert "tests/test_reader.py" in d.entities and "64 MB" in d.entities
    assert not any("Thanks" in s for s in d.decisions + d.constraints + d.outcomes + d.facts)
    assert "conclusion" in d.tags and "py" in d.tags


def test_distillation_of_a_chat_turn_keeps_the_personal_facts():
    text = ("Thanks for the resources! I'll definitely check them out. By the way, I recently "
            "ran the Bike-a-Thon for Cancer Research and my team managed to raise $5,000! "
            "Do you have tips on staying motivated?")
    d = curate_items([item(text)])[0].distillation
    assert any("$5,000" in s for s in d.outcomes + d.facts)
    assert "Bike-a-Thon for Cancer Research" in d.entities and "$5,000" in d.entities
    assert not any(s.startswith("By the way") for s in d.outcomes + d.facts)


# -- sentences and the window ---------------------------------------------------------

def test_sentences_skip_markdown_and_flag_code():
    sentences = split_sentences(
        "1. **Embrace** it, says Dr. Smith. Really!\n```python\nx = f(1)\n```\n"
        "Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\nValueError: bad"
    )
    texts = [s.text for s in sentences]
    assert texts[0] == "Embrace it, says Dr. Smith."  # no "1.", no "**", "Dr." kept
    assert texts[1] == "Really!"
    code = {s.text: s.code for s in sentences}
    assert code["x = f(1)"] and code['File "a.py", line 3, in <module>']
    assert not code["ValueError: bad"]


def test_window_reads_only_head_and_tail_of_a_long_text():
    text = "Start of the story. " + "filler words here. " * 100_000 + "The ending is here."
    view = window(text)
    assert len(view) <= HEAD_CHARS + TAIL_CHARS + 2
    assert view.startswith("Start of the story.") and view.endswith("The ending is here.")


def test_a_failed_checks_summary_names_its_diagnostic():
    # A pre-commit hook's output (shaped as in the real Claude Code sessions): the summary was
    # "Pre-commit validation failed ... Finding suitable PLTs Total errors: 2, Skipped: 0", so
    # six failures of it in a frame said what failed nowhere. The line naming the source file
    # and line, and the message beside it, are what a later question asks for.
    text = ("$ git commit -m 'feat: trace hooks'\n"
            "Pre-commit validation failed:\\n\\n[DIALYZER]\\nFinding suitable PLTs\n"
            "Checking PLT...\nPLT is up to date!\nStarting Dialyzer\n"
            "Total errors: 2, Skipped: 0, Unnecessary Skips: 0\ndone in 0m12.09s\n"
            "lib/web/controllers/trace_helpers.ex:57:13:pattern_match\n"
            "The pattern can never match the type.\n\nPattern:\n{:ok, _trace_id}\n\nType:\n:error\n"
            "[Output truncated: showing 30 of 47 lines]\\n\\nFix these issues before committing.")
    l1 = curate_items([item(text, "error")])[0].l1
    assert "trace_helpers.ex:57:13:pattern_match" in l1, l1
    assert "The pattern can never match the type." in l1, l1
    # a refused tool call: the reason after the tag, not the code it quoted
    refused = ("Edit lib/otel.ex\n<tool_use_error>String to replace not found in file.\n"
               "String:   defp do_setup do\n    try do\n      :ok\n    rescue\n      error ->\n"
               "        Logger.warning(\"setup failed\")\n    end\nSetup Phoenix instrumentation with "
               "Bandit adapter and LiveView support\n  end</tool_use_error>")
    assert "String to replace not found" in curate_items([item(refused, "error")])[0].l1


def test_a_glob_keeps_its_stars_in_the_summary():
    # Claude Code's Glob call heads its result: the summary read "Glob lib/spotter/services//.ex"
    # (the stars taken for Markdown emphasis), a pattern the agent never searched for.
    text = ("Glob /home/USER/projects/app/lib/spotter/services/**/*.ex\n"
            "/home/USER/projects/app/lib/spotter/services/review_context_builder.ex\n"
            "/home/USER/projects/app/lib/spotter/services/co_change_calculator.ex")
    rungs = curate_items([item(text, "tool_result")])[0]
    assert "lib/spotter/services/**/*.ex" in rungs.l1, rungs.l1
    assert [s.text for s in split_sentences("ls src/* and **/test/**")] == ["ls src/* and **/test/**"]
    # emphasis is still dropped
    assert [s.text for s in split_sentences("**Latest:** 1.10.0, see *the* notes")] == \
        ["Latest: 1.10.0, see the notes"]
