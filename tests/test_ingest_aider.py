"""Aider's chat history, `.aider.chat.history.md` (qa64): before, `atc ingest` skipped it
("cannot detect format"), so a project's aider chats never reached memory."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.ingest import detect_format, parse_path, parse_text

FIXTURE = Path(__file__).parent / "fixtures" / "ingest" / "aider_project" / ".aider.chat.history.md"
FIRST_CHAT = ".aider.chat.history@2025-03-02 14:05:11"


def test_each_chat_is_a_session_with_its_users_requests_replies_and_aiders_output():
    result = parse_path(FIXTURE)
    assert result.format == "aider" == detect_format(FIXTURE)
    assert [(i.kind, i.role, i.pointer.rsplit(":", 1)[1]) for i in result.items] == [
        ("user_goal", "user", "10"),
        ("conclusion", "assistant", "12-22"),        # the reply with its edit block, whole
        ("file_op", "assistant", "24-26"),           # > Applied edit to cli.py
        ("tool_result", "tool", "24-26"),            # > Commit 3f2a9c1 ...
        ("turn", "user", "28"),                      # /run pytest -q drives aider: no goal
        ("user_goal", "user", "33-34"),              # two "####" lines, one message
        ("conclusion", "assistant", "36-41"),        # "> " and "####" inside its fence stay
        ("error", "tool", "43-44"),
        ("user_goal", "user", "50"),                 # /ask carries a request
        ("conclusion", "assistant", "52")]
    items = result.items
    assert [i.session for i in items] == [FIRST_CHAT] * 8 + [
        ".aider.chat.history@2025-03-03 09:00:02"] * 2
    assert {i.time for i in items[:8]} == {"2025-03-02T14:05:11Z"}
    assert items[2].text == ('edit cli.py: "parser.add_argument("paths", nargs="+")" -> '
                             '"parser.add_argument("paths", nargs="+") '
                             'parser.add_argument("--verbose", action="store_true")"')
    assert ("touches_file", "cli.py") in [r[1:] for r in items[2].relations]
    assert items[3].text == "Commit 3f2a9c1 feat: add --verbose flag to CLI"
    assert items[5].text.endswith("\nit only happens when main() is called twice")
    assert "#### and so is this one" in items[6].text
    assert items[7].goal == items[5].text.replace("\n", " ")
    assert items[8].text == "/ask what did we change yesterday?"
    # "yesterday" in the second chat is the day of the first
    assert ("mentions_date", "2025-03-02") in [r[1:] for r in items[9].relations]
    assert result.ignored == {"aider-notice": 9}      # banner, costs, questions, chat members


def test_a_chat_opened_and_closed_is_read_and_a_file_without_a_chat_start_is_not_aider():
    opened = "\n# aider chat started at 2025-03-02 14:05:11\n\n> Aider v0.79.2  \n"
    result = parse_text(opened, name=".aider.chat.history.md")
    assert (result.format, result.items, result.ignored) == ("aider", [], {"aider-notice": 1})
    assert detect_format("User: #### add a flag\nAssistant: Done.\n") == "text"


def test_cli_ingest_again_changes_nothing_and_a_grown_history_adds_only_its_new_turns(tmp_path):
    history = tmp_path / "app" / ".aider.chat.history.md"
    history.parent.mkdir()
    whole = FIXTURE.read_text()
    cut = whole.index("\n# aider chat started at 2025-03-03")
    history.write_text(whole[:cut])
    home = str(tmp_path / "home")

    def ingest():
        out = CliRunner().invoke(main, ["ingest", str(tmp_path / "app"), "--home", home,
                                        "--format-output", "json"])
        assert out.exit_code == 0, out.output
        return json.loads(out.stdout)

    half = whole.index("> Commit 3f2a9c1")
    history.write_text(whole[:half])                    # aider has applied the edit, not committed
    assert ingest()["new"] == 3
    history.write_text(whole[:cut])
    grown = ingest()                                   # the commit line joins aider's output
    assert (grown["new"], grown.get("superseded", 0)) == (5, 0)
    assert ingest()["new"] == 0
    history.write_text(whole)                          # aider appends the next chat
    grown = ingest()
    assert (grown["new"], grown.get("superseded", 0)) == (2, 0)
    out = CliRunner().invoke(main, ["query", "item_kind(H, user_goal), item_session(H, S), "
                                    "item_text(H, T)", "--home", home, "--format", "json"])
    rows = json.loads(out.stdout)
    assert rows[-1]["T"] == "/ask what did we change yesterday?"


def test_show_source_finds_an_aider_item_in_its_file(tmp_path):
    # before: atc show --source parsed the file again with the item's session as the default,
    # named each chat "<session>@<start>@<start>", and said the file had changed
    home = str(tmp_path / "home")
    out = CliRunner().invoke(main, ["ingest", str(FIXTURE), "--home", home])
    assert out.exit_code == 0, out.output
    rows = json.loads(CliRunner().invoke(main, [
        "query", "item_kind(H, file_op), item_session(H, S)", "--home", home,
        "--format", "json"]).stdout)
    assert rows[0]["S"] == FIRST_CHAT
    shown = CliRunner().invoke(main, ["show", rows[0]["H"], "--source", "--home", home])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines() == [    # aider's lines, verbatim
        "> Tokens: 5.2k sent, 120 received. Cost: $0.02 message, $0.02 session.  ",
        "> Applied edit to cli.py  ", "> Commit 3f2a9c1 feat: add --verbose flag to CLI  "]
