"""Chat exports saved as HTML found by walking a folder. Before, ``atc ingest FOLDER`` and
``atc watch FOLDER`` looked at no ``.html`` file, so the default export of Telegram Desktop,
DiscordChatExporter and Meta ("Download your information") gave nothing unless each page was
named. A page is now read when its text is one of those exports; any other page (a saved web
page, a frame ``atc hydrate`` wrote) is left out and reported, never a failed ingest."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.ingest import parse_path
from attention_cloud.watch.files import FileTable
from test_ingest_telegram_html import PAGE

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
DISCORD = FIXTURES / "Running Club - general [901].html"
INSTAGRAM = (FIXTURES / "instagram_export" / "your_instagram_activity" / "messages" / "inbox"
             / "dana_1742" / "message_1.html")

TELEGRAM = PAGE  # Telegram Desktop's messages.html

# Pages a folder holds beside a chat that are no chat: a saved article, and a page that names
# a chat exporter's marks only in prose.
WEB_PAGE = ("<!DOCTYPE html><html><head><title>Half marathon plan</title></head><body>"
            "<h1>Week 1</h1><p>Easy runs, 5 km each.</p></body></html>\n")
LOOKALIKE = ("<html><body><p>Our exporter writes page_body chat_page blocks.</p>"
             "</body></html>\n")


def _export_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "exports"
    (folder / "ChatExport_2023-05-08").mkdir(parents=True)
    (folder / "ChatExport_2023-05-08" / "messages.html").write_text(TELEGRAM, encoding="utf-8")
    shutil.copy(DISCORD, folder / DISCORD.name)
    thread = folder / "your_instagram_activity" / "messages" / "inbox" / "dana_1742"
    thread.mkdir(parents=True)
    shutil.copy(INSTAGRAM, thread / INSTAGRAM.name)
    (folder / "plan.html").write_text(WEB_PAGE, encoding="utf-8")
    (folder / "notes.htm").write_text(LOOKALIKE, encoding="utf-8")
    return folder


def _named(folder: Path) -> list[tuple[str, str, str, str]]:
    """What each chat page gives when it is named, as (handle, speaker, time, text)."""
    pages = [folder / "ChatExport_2023-05-08" / "messages.html", folder / DISCORD.name,
             next(folder.rglob("message_1.html"))]
    return sorted((i.handle, i.speaker, i.time, i.text)
                  for page in pages for i in parse_path(page).items)


def test_a_folder_walk_reads_chat_pages_and_reports_other_pages(tmp_path):
    folder = _export_folder(tmp_path)
    home = tmp_path / "home"
    out = CliRunner().invoke(main, ["ingest", str(folder), "--home", str(home)])
    assert out.exit_code == 0, out.output
    expected = _named(folder)
    with Memory.open(home) as mem:
        rows = mem.query("item_speaker(H, S), item_time(H, T)").rows
    assert sorted((r["H"], r["S"], r["T"]) for r in rows) == [e[:3] for e in expected]
    assert ("Priya Patel", "2023-05-08T11:56:03Z") in {(e[1], e[2]) for e in expected}
    assert {e[1] for e in expected} >= {"Priya Patel", "Tomás", "priya.shah"}
    assert f"new: {len(expected)}" in out.output
    for page in ("plan.html", "notes.htm"):
        assert f"{page}: an HTML page that is no chat export" in out.output, out.output
    # read again: the same handles, nothing new
    again = CliRunner().invoke(main, ["ingest", str(folder), "--home", str(home)])
    assert again.exit_code == 0 and "new: 0" in again.output, again.output


def test_a_strict_api_ingest_leaves_other_pages_out_without_failing(tmp_path):
    folder = _export_folder(tmp_path)
    with Memory.open(tmp_path / "home") as mem:
        report = mem.ingest([str(folder)])  # strict: any file that fails raises
    assert report.new == len(_named(folder))
    assert sorted(Path(f).name for f, _ in report.files_skipped) == ["notes.htm", "plan.html"]


def test_a_web_page_named_on_the_command_line_is_still_an_error(tmp_path):
    page = tmp_path / "plan.html"
    page.write_text(WEB_PAGE, encoding="utf-8")
    out = CliRunner().invoke(main, ["ingest", str(page), "--home", str(tmp_path / "home")])
    assert out.exit_code == 1 and "plan.html: cannot detect format" in out.output, out.output


def test_a_watch_follows_chat_pages_and_reports_other_pages(tmp_path):
    folder = _export_folder(tmp_path)
    table = FileTable([folder])
    table.scan(0.0)
    assert sorted(p.name for p in table.files) == sorted(
        ["messages.html", DISCORD.name, "message_1.html"])
    assert sorted(p.name for p in table.problems) == ["notes.htm", "plan.html"]
    assert table.watched(folder / "plan.html")  # an event on it is looked at ...
    assert not table.check([folder / "plan.html"], 1.0)  # ... and left out by its content
    # a page rewritten as a chat export is followed from then on
    (folder / "plan.html").write_text(TELEGRAM, encoding="utf-8")
    assert table.check([folder / "plan.html"], 2.0) == {folder / "plan.html"}
    assert folder / "plan.html" not in table.problems


def test_detect_format_takes_a_missing_page_name_for_a_file_not_for_text():
    from attention_cloud.errors import InputError
    from attention_cloud.ingest import detect_format

    with pytest.raises(InputError, match="messages.html: no such file"):
        detect_format("messages.html")  # before: read as the text "messages.html"


def test_a_thread_exported_in_both_formats_is_read_once_from_its_json(tmp_path):
    """Meta's export in both formats holds a thread's ``message_1.html`` beside its
    ``message_1.json``: the two give each message under another handle (the JSON's time to the
    millisecond), so the walk reads the JSON and leaves the page out, saying so."""
    thread = FIXTURES / "messenger_export" / "your_facebook_activity" / "messages" / "inbox" \
        / "runningclub_3825"
    folder = tmp_path / "facebook" / "messages" / "inbox" / thread.name
    shutil.copytree(thread, folder)
    assert {p.name for p in folder.iterdir()} == {"message_1.html", "message_1.json"}
    with Memory.open(tmp_path / "home") as mem:
        report = mem.ingest([str(tmp_path / "facebook")])
        handles = {r["H"] for r in mem.query("item_speaker(H, S)").rows}
    assert handles == {i.handle for i in parse_path(folder / "message_1.json").items}
    assert [(Path(f).name, why) for f, why in report.files_skipped] == [
        ("message_1.html", "the thread's JSON export, beside it or elsewhere in this ingest, "
                           "is read instead, left out")]


def test_a_thread_exported_in_both_formats_into_two_folders_is_read_once(tmp_path):
    """The export downloaded twice, once as JSON and once as HTML, unzipped into two folders
    of one walk: the page had no JSON beside it, so each message of the thread came twice (two
    handles, the JSON's time to the millisecond). The page of a thread whose JSON pages the
    same ingest reads is left out, wherever they lie; a page of another thread is read."""
    thread = FIXTURES / "messenger_export" / "your_facebook_activity" / "messages" / "inbox" \
        / "runningclub_3825"
    json_thread = tmp_path / "exports" / "facebook-json" / "messages" / "inbox" / thread.name
    html_thread = tmp_path / "exports" / "facebook-html" / "messages" / "inbox" / thread.name
    json_thread.mkdir(parents=True)
    html_thread.mkdir(parents=True)
    shutil.copy(thread / "message_1.json", json_thread)
    shutil.copy(thread / "message_1.html", html_thread)
    other = tmp_path / "exports" / "facebook-html" / "messages" / "inbox" / "dana_1742"
    other.mkdir()
    shutil.copy(INSTAGRAM, other / "message_1.html")
    with Memory.open(tmp_path / "home") as mem:
        report = mem.ingest([str(tmp_path / "exports")])
        sessions = {r["S"] for r in mem.query("item_session(H, S)").rows}
        handles = {r["H"] for r in mem.query("item_session(H, 'inbox/runningclub_3825')").rows}
    assert handles == {i.handle for i in parse_path(json_thread / "message_1.json").items}
    assert sessions == {"inbox/runningclub_3825", "inbox/dana_1742"}
    assert [(Path(f).parent.parent.parent.parent.name, why) for f, why in report.files_skipped] \
        == [("facebook-html", "the thread's JSON export, beside it or elsewhere in this ingest, "
                              "is read instead, left out")]
