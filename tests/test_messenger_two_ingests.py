"""A Messenger thread's export read in both formats by two ingests, one after the other (the
export downloaded as HTML, Meta's default, then again as JSON, or the other way round). One
ingest already read the JSON and left the page out; across two, every message of the thread
was held twice (the page's handles differ: its times to the minute in the account's zone).
Now the JSON is what memory keeps, whichever came first: a page read after it is left out and
said so, and the JSON read after a page supersedes the page's items."""
from __future__ import annotations

import shutil
from pathlib import Path

from attention_cloud import Memory
from attention_cloud.ingest import parse_path

THREAD = (Path(__file__).parent / "fixtures" / "ingest" / "messenger_export"
          / "your_facebook_activity" / "messages" / "inbox" / "runningclub_3825")
SESSION = "inbox/runningclub_3825"


def _two_exports(tmp_path: Path) -> tuple[Path, Path]:
    folders = []
    for kind, page in (("json", "message_1.json"), ("html", "message_1.html")):
        folder = tmp_path / f"facebook-{kind}" / "messages" / "inbox" / THREAD.name
        folder.mkdir(parents=True)
        shutil.copy(THREAD / page, folder)
        folders.append(tmp_path / f"facebook-{kind}")
    return folders[0], folders[1]


def _thread_handles(mem: Memory) -> set[str]:
    return {r["H"] for r in mem.query(f"item_session(H, '{SESSION}')").rows}


def test_a_page_ingested_after_its_threads_json_is_left_out(tmp_path):
    as_json, as_html = _two_exports(tmp_path)
    wanted = {i.handle for i in parse_path(next(as_json.rglob("message_1.json"))).items}
    page = next(as_html.rglob("message_1.html"))
    with Memory.open(tmp_path / "home") as mem:
        mem.ingest([str(as_json)])
        report = mem.ingest([str(as_html)])
        assert _thread_handles(mem) == wanted
        named = mem.ingest([str(page)])  # the page named, as `atc watch` names what changed
        assert _thread_handles(mem) == wanted
    why = "memory holds the thread's JSON export already (the same messages), left out"
    assert report.new == named.new == 0
    assert [(Path(f).name, w) for f, w in report.files_skipped] == [("message_1.html", why)]
    assert named.files_skipped == [(str(page), why)]


def test_the_json_ingested_after_its_threads_page_supersedes_the_pages_items(tmp_path):
    as_json, as_html = _two_exports(tmp_path)
    page = next(as_html.rglob("message_1.html"))
    wanted = {i.handle for i in parse_path(next(as_json.rglob("message_1.json"))).items}
    from_page = {i.handle for i in parse_path(page).items}
    assert from_page and not from_page & wanted
    with Memory.open(tmp_path / "home") as mem:
        mem.ingest([str(as_html)])
        assert _thread_handles(mem) == from_page
        report = mem.ingest([str(as_json)])
        assert _thread_handles(mem) == wanted
        assert report.superseded == len(from_page)
        # the page again (a walk of both folders): left out, the JSON kept
        again = mem.ingest([str(tmp_path)])
        assert _thread_handles(mem) == wanted
        # a frame cites none of the page's items: they left BM25 with their tombstone
        frame = mem.hydrate("What did the running club say?", budget=400)
    assert again.new == 0
    assert frame.facts and not {f.handle for f in frame.facts} & from_page
