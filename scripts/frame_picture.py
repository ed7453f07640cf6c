"""The frame as a picture, in a real browser: build a small memory, render a frame with
``atc hydrate --format html`` and load it in headless Chromium (Debian's ``chromium``;
``scripts/setup --browser`` installs it).

    .venv/bin/python scripts/frame_picture.py               # rewrites docs/frame.png
    .venv/bin/python scripts/frame_picture.py --out x.png   # elsewhere

The memory is the bundled sample sessions (the payments service) in two segments, plus a
session of repeated timeout reports whose repeats the frame leaves out as redundant, so the
picture shows every kind of mark. tests/test_frame_html.py uses the helpers below to check the
page loads with no console message and to take its screenshot.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ATC = ROOT / ".venv" / "bin" / "atc"
GOAL = "Why did charges fail when the processor timed out, and what retry policy did we settle on?"
BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    """The headless browser to use, or None when none is installed."""
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


def run_browser(page: Path, *args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    """Load ``page`` in headless Chromium with its console logged to stderr; ``args`` say what
    to produce (``--dump-dom``, ``--screenshot=FILE``)."""
    browser = find_browser()
    if browser is None:
        raise RuntimeError("no chromium found (scripts/setup --browser installs Debian's)")
    with tempfile.TemporaryDirectory(prefix="atc-chromium-") as profile:
        return subprocess.run(
            [browser, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
             "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
             f"--user-data-dir={profile}", *args, page.resolve().as_uri()],
            capture_output=True, text=True, timeout=timeout, cwd=profile)


def console_messages(stderr: str) -> list[str]:
    """What the page wrote to the browser console (errors, blocked loads, CSP violations)."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def screenshot(page: Path, png: Path, width: int = 1280, height: int = 1000) -> list[str]:
    """Save a screenshot of ``page``; returns the console messages seen while loading it."""
    done = run_browser(page, f"--window-size={width},{height}", f"--screenshot={png.resolve()}")
    if done.returncode != 0 or not png.exists():
        raise RuntimeError(f"chromium failed ({done.returncode}): {done.stderr[-500:]}")
    return console_messages(done.stderr)


TIMEOUTS = [
    ("user", "The nightly charge batch failed again; look at the processor timeouts."),
    ("assistant", "Charge failed because the card processor timed out and the charge was not retried."),
    ("assistant", "Charge failed because the card processor timed out and the charge was not retried again."),
    ("assistant", "The charge failed because the card processor timed out and was not retried."),
    ("assistant", "The batch charges the processor sequentially, so one slow answer stalls every "
                  "charge behind it; the retry policy applies per charge, not per batch."),
]


def build_memory(home: Path, work: Path) -> None:
    """The sample sessions in segments ``payments`` and ``webhooks``, plus repeated failures."""
    from attention_cloud.paths import samples_dir

    env = {**os.environ, "ATC_HOME": str(home)}
    samples = sorted(Path(samples_dir()).glob("*.jsonl"))
    webhooks = [p for p in samples if "webhook" in p.name]
    payments = [p for p in samples if p not in webhooks]
    timeouts = work / "nightly-batch.jsonl"
    timeouts.write_text("".join(json.dumps({"role": r, "content": c}) + "\n" for r, c in TIMEOUTS),
                         encoding="utf-8")
    (home / "config.json").write_text('{"embedder": "hash"}\n', encoding="utf-8")
    for paths, segment in ((payments + [timeouts], "payments"), (webhooks, "webhooks")):
        subprocess.run([str(ATC), "ingest", *map(str, paths), "--segment", segment],
                       env=env, check=True, capture_output=True)
    subprocess.run([str(ATC), "curate"], env=env, check=True, capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "frame.png")
    parser.add_argument("--html", type=Path, default=None, help="also keep the page here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="atc-frame-") as tmp:
        home, page = Path(tmp) / "home", Path(tmp) / "frame.html"
        home.mkdir()
        build_memory(home, Path(tmp))
        subprocess.run([str(ATC), "hydrate", "--goal", GOAL, "--budget", "1200",
                        "--format", "html", "--output", str(page)],
                       env={**os.environ, "ATC_HOME": str(home)}, check=True)
        messages = screenshot(page, args.out)
        if args.html:
            shutil.copyfile(page, args.html)
    for line in messages:
        print(f"console: {line}", file=sys.stderr)
    print(f"wrote {args.out}")
    return 1 if messages else 0


if __name__ == "__main__":
    sys.exit(main())
