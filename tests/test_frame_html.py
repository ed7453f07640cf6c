"""The frame as a picture: ``atc hydrate --format html`` / ``Frame.html``.

The page is checked as text (every field of the receipt is on it, all text escaped, nothing
reaches the network) and in a real headless browser (Debian's ``chromium``, installed by
``scripts/setup --browser``): it loads with no console message and a screenshot is taken.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from attention_cloud.frame_html import render_html
from attention_cloud.hydration import FrameFact

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import frame_picture  # noqa: E402  (the browser helpers, shared with the docs screenshot)

GOAL = "why did charges fail when the processor timed out, and what retry policy did we choose"
HOSTILE = ('<script>document.title="owned"</script><img src="http://example.com/x.png"> '
           '"quoted" \'single\' & ampersand — ünïcödé 日本語 🚀 <svg onload=alert(1)> \x07bell')


def _fact(handle: str, text: str, **fields) -> FrameFact:
    base = dict(handle=handle, segment="default", level="L0", seeded_by="relevance", score=0.8,
                tokens=40, hops=0, source=f"/t/{handle}.jsonl:3", text=text,
                time="2026-01-12T09:14:43Z")
    return FrameFact(**{**base, **fields})


def _receipt(facts, *, beyond=(), suppressed=(), segments=None, anchor=None):
    segments = segments or {"default": {"budget": 500, "spent": sum(f.tokens for f in facts),
                                        "path": "hybrid"}}
    return {"id": "r_0123456789abcdef", "goal": "why <b>did</b> \"it\" fail?", "plane": "default",
            "created": "2026-12-03T08:00:00Z", "path": "hybrid", "ceiling": "L0", "anchor": anchor,
            "budget": {"total": sum(s["budget"] for s in segments.values()),
                       "spent": sum(s["spent"] for s in segments.values()), "segments": segments},
            "tokens": {"estimated": True, "estimator": "max(ceil(utf8_bytes/4), ceil(words*1.3))"},
            "facts": [], "beyond": list(beyond), "suppressed": list(suppressed)}


#: Every element the page is made of.
_PAGE_TAGS = {"html", "head", "meta", "title", "style", "body", "header", "div", "h1", "h2", "h3",
              "span", "b", "svg", "circle", "line", "text", "g", "aside", "ul", "li", "i", "p",
              "section", "table", "thead", "tbody", "tr", "th", "td", "code", "footer"}


def _tags(page: str) -> tuple[set[str], set[str]]:
    """The element names and attribute names the page holds (as a browser's parser reads it)."""
    from html.parser import HTMLParser

    tags: set[str] = set()
    attributes: set[str] = set()

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.add(tag)
            attributes.update(name for name, _ in attrs)

    Collect().feed(page)
    return tags, attributes


def _visible(page: str) -> str:
    """The page with tags removed (what escaping must keep as text)."""
    return re.sub(r"<[^>]*>", " ", page)


def test_every_receipt_field_is_on_the_page():
    facts = (_fact("it_focus", "the processor timed out"),
             _fact("it_hop", "retry with backoff", hops=1, seeded_by="entity_expansion",
                   level="L2", score=0.41, tokens=17, segment="ops"),
             _fact("it_far", "an old incident", hops=2, seeded_by="rule:error_fix", level="L3",
                   score=0.2, tokens=6, segment="ops"))
    receipt = _receipt(
        facts,
        beyond=[{"handle": "it_crumb", "segment": "ops", "level": "L3", "tokens": 9,
                 "source": "/t/crumb.jsonl:8", "text": "#error #webhooks"}],
        suppressed=[{"handle": "it_dup", "segment": "default", "suppressed": "redundant",
                     "like": "it_focus", "similarity": 0.91}],
        segments={"default": {"budget": 300, "spent": 40, "path": "hybrid"},
                  "ops": {"budget": 200, "spent": 23, "path": "lexical"}},
        anchor={"phrase": "two weeks ago", "from": "2026-01-01T00:00:00Z",
                "to": "2026-01-08T00:00:00Z"})
    page = render_html(receipt, facts)
    text = " ".join(_visible(page).split())
    for f in facts:
        row = re.search(rf'<tr id="fact-\d+">.*?{f.handle}.*?</tr>', page, re.S).group(0)
        row_text = " ".join(_visible(row).split())
        for value in (f.level, f"{f.score:.2f}", f.segment, str(f.tokens), f.seeded_by,
                      f.source, f.time, f.text):
            assert value in row_text, (f.handle, value)
    # one mark per fact in the picture, each with its text and source on hover
    assert page.count('<g class="fact"') == 3
    assert "source: /t/it_hop.jsonl:3" in page and "retry with backoff" in page
    # the bands of the fovea, breadcrumbs past the edge, the redundant fact
    for label in ("focus", "one hop", "periphery", "breadcrumbs"):
        assert label in text.lower()
    assert page.count('<g class="crumb"') == 1 and "it_crumb" in text and "#error #webhooks" in text
    assert page.count('<g class="redundant"') == 1 and "it_dup" in text and "0.91" in text
    # budgets per segment: spent and left; the jump's path and anchor
    assert "40 spent · 260 left · 300 budget" in text
    assert "23 spent · 177 left · 200 budget" in text
    assert "63 spent of 500, 437 left" in text
    # the frame's own lines are paid from the budget: what is left is left after them
    receipt["budget"]["framing"] = 99
    receipt["budget"]["segments"]["default"]["framing"] = 60
    receipt["budget"]["segments"]["ops"]["framing"] = 39
    text = " ".join(_visible(render_html(receipt, facts)).split())
    assert "63 spent + 99 framing of 500, 338 left" in text
    assert "40 spent · 60 framing · 200 left · 300 budget" in text
    assert "23 spent · 39 framing · 138 left · 200 budget" in text
    assert "jump: hybrid" in text and "lexical" in text
    assert "two weeks ago" in text and "2026-01-08T00:00:00Z" in text


def test_all_text_is_escaped_and_the_page_reaches_nothing():
    facts = (_fact("it_x", HOSTILE), _fact("it_y", "plain", hops=1, seeded_by="entity_expansion"))
    receipt = _receipt(facts, beyond=[{"handle": "it_b", "segment": "default", "level": "L3",
                                       "tokens": 3, "source": "<script>x</script>", "text": HOSTILE}])
    receipt["goal"] = HOSTILE
    page = render_html(receipt, facts)
    tags, attributes = _tags(page)
    # no tag from the data: a <script> or <img> could only be the data's own
    assert tags <= _PAGE_TAGS, tags - _PAGE_TAGS
    assert "&lt;script&gt;document.title=&quot;owned&quot;&lt;/script&gt;" in page
    assert "&#x27;single&#x27; &amp; ampersand" in page
    assert "ünïcödé 日本語 🚀" in page and "\x07" not in page and "\ufffdbell" in page
    # self-contained: no URL but the SVG namespace, no script, no fetch of any kind
    assert not attributes & {"src", "href", "xlink:href", "action", "srcset", "background"}
    assert re.findall(r'xmlns="([^"]*)"', page) == ["http://www.w3.org/2000/svg"]
    assert "default-src 'none'" in page and "url(" not in page and "@import" not in page


def test_lone_surrogates_and_empty_frames_render():
    page = render_html(_receipt(()), ())
    assert "memory holds nothing for this goal" in page
    page = render_html(_receipt((_fact("it_s", "bad \ud800 half"),)), (_fact("it_s", "bad \ud800 half"),))
    page.encode("utf-8")  # no lone surrogate reaches the page


@pytest.fixture
def curated(curated_samples):
    """The bundled samples, ingested and curated (hash embedder): a copy of a home built once."""
    return curated_samples


def test_frame_html_matches_the_frame(curated):
    frame = curated.hydrate(GOAL, budget=900)
    page = frame.html
    assert page == render_html(frame.receipt, frame.facts)  # a pure function of frame + receipt
    assert page.count('<g class="fact"') == len(frame.facts) > 0
    assert frame.receipt_id in page
    for fact in frame.facts:
        assert fact.handle in page


def _atc(home: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(ROOT / ".venv" / "bin" / "atc"), *args, "--home", str(home)],
                          capture_output=True, text=True, timeout=120, **kw)


def _cli(home: Path, *args: str):
    """``atc ARGS --home HOME`` through click's runner in this process (the real program runs
    in the test beside it)."""
    from click.testing import CliRunner

    from attention_cloud.cli import main

    return CliRunner().invoke(main, [*args, "--home", str(home)])


def test_cli_writes_the_page_to_a_file_or_stdout(curated, home, tmp_path):
    curated.close()
    out = tmp_path / "frame.html"
    done = _atc(home, "hydrate", "--goal", GOAL, "--format", "html", "--output", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    rid = re.search(r"r_[0-9a-f]{16}", page).group(0)
    assert json.loads(_cli(home, "receipt", rid).stdout)["id"] == rid  # its receipt is stored
    shown = _cli(home, "hydrate", "--goal", GOAL, "--format", "html")
    assert shown.exit_code == 0 and shown.stdout.startswith("<!DOCTYPE html>")
    bad = _cli(home, "hydrate", "--goal", GOAL, "--format", "html",
               "--output", str(tmp_path / "missing" / "f.html"))
    assert bad.exit_code == 1 and bad.stderr.startswith("atc: ") and "cannot write" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def _browser_or_skip() -> None:
    if frame_picture.find_browser() is None:
        if os.environ.get("ATC_REQUIRE_BROWSER"):
            pytest.fail("chromium is required (ATC_REQUIRE_BROWSER) but not installed")
        pytest.skip("no chromium: scripts/setup --browser installs Debian's")


def test_the_page_loads_in_a_real_browser_without_console_messages(curated, tmp_path):
    _browser_or_skip()
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_text(json.dumps({"role": "user", "content": "processor timed out " + HOSTILE})
                       + "\n", encoding="utf-8")
    curated.ingest([hostile])
    curated.curate()
    frame = curated.hydrate("processor timed out " + HOSTILE, budget=900)
    assert any("<script>document.title" in f.text for f in frame.facts)  # the hostile item is in
    page = tmp_path / "frame.html"
    page.write_text(frame.html, encoding="utf-8")

    dom = frame_picture.run_browser(page, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-500:]
    assert frame_picture.console_messages(dom.stderr) == []
    assert dom.stdout.count('<g class="fact"') == len(frame.facts)
    assert "<svg" in dom.stdout and 'class="budget"' in dom.stdout
    tags, attributes = _tags(dom.stdout)  # the document as the browser built it
    assert tags <= _PAGE_TAGS and "onload" not in attributes  # the item's tags are text
    assert re.search(r"<title>(.*?)</title>", dom.stdout, re.S).group(1).startswith("memory frame")

    png = tmp_path / "frame.png"
    assert frame_picture.screenshot(page, png) == []
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a picture, not a blank page


def test_the_console_check_catches_a_broken_page(tmp_path):
    """The check above can fail: a page that loads from the network or runs a script does."""
    _browser_or_skip()
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\" "
                    "content=\"default-src 'none'\"><img src=\"http://example.com/x.png\">",
                    encoding="utf-8")
    assert frame_picture.console_messages(frame_picture.run_browser(page, "--dump-dom").stderr)
