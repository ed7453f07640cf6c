"""What reading hot cells costs as receipts pile up (attention_cloud/cells/hot.py).

The prompt hook stores a receipt per prompt, so a home used for months holds thousands.
``receipt_touches`` reads the newest RECEIPTS files, chosen by when they were written; the
baseline in the same run reads every receipt to learn its time (how it was done before).

    .venv/bin/python scripts/bench/hot_cells.py --receipts 1000 10000
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from attention_cloud.cells.hot import RECEIPTS, receipt_touches


def _write_receipts(home: Path, count: int) -> None:
    folder = home / "receipts"
    folder.mkdir(parents=True)
    start = time.time() - count
    for i in range(count):
        receipt = {"id": f"r{i:08d}", "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + i)),
                   "facts": [{"handle": f"it_{(i * 7 + k) % 5000:012x}", "level": "L1"} for k in range(30)]}
        path = folder / f"r{i:08d}.json"
        path.write_text(json.dumps(receipt, separators=(",", ":")))
        os.utime(path, ns=(int((start + i) * 1e9),) * 2)


def _read_all(home: Path) -> int:
    """The baseline: every receipt read, the newest RECEIPTS kept."""
    dated = []
    for path in (home / "receipts").iterdir():
        receipt = json.loads(path.read_text(encoding="utf-8"))
        dated.append((receipt["created"], path.name, receipt))
    dated.sort(reverse=True)
    return len(dated[:RECEIPTS])


def _median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--receipts", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'receipts':>9} {'all read ms':>12} {'newest read ms':>15} {'ratio':>7}")
    for count in args.receipts:
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp)
            _write_receipts(home, count)
            baseline = _median_ms(lambda: _read_all(home), args.repeat)
            newest = _median_ms(lambda: receipt_touches(home), args.repeat)
            print(f"{count:>9} {baseline:>12.1f} {newest:>15.1f} {newest / baseline:>7.3f}")


if __name__ == "__main__":
    main()
