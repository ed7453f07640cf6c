#!/usr/bin/env python3
"""Check `atc serve`'s refusals: requests without a token, with malformed, random or altered
tokens, with another scheme, and each grantee's token asking for grants — a token must never
read another grantee's grants, and every unauthenticated or wrong-token request must be 401.

One home (the bundled samples) with four persons and a team, each with its own grant; the
server runs in a subprocess on loopback (a free port) and is stopped at the end.

    ATC_PROLOG=pyswip nice .venv/bin/python scripts/bench/sharing_server.py --requests 2000
"""
from __future__ import annotations

import argparse
import random
import secrets
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))


def main() -> None:
    from attention_cloud import Memory
    from attention_cloud.home import write_config
    from attention_cloud.paths import samples_dir
    from attention_cloud.sharing import add_grant, add_principal, join_team
    from attention_cloud.sharing.mounts import MountError, call_mount

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    counts: Counter = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        write_config(home, {"embedder": "hash"})
        tokens: dict[str, str] = {}
        with Memory.open(home) as mem:
            mem.ingest([samples_dir()], segment="payments")
            mem.curate()
            add_principal(mem, "alice", owner=True)
            for p in ("bob", "carol", "dave", "erin"):
                tokens[p] = add_principal(mem, p) or ""
            add_principal(mem, "platform", kind="team")
            join_team(mem, "bob", "platform")
            expected = {"bob": {add_grant(mem, "platform", ceiling="L2"),
                                add_grant(mem, "bob", ceiling="L3")},
                        "carol": {add_grant(mem, "carol", ceiling="L1")},
                        "dave": {add_grant(mem, "dave", ceiling="L0")},
                        "erin": set()}
        proc = subprocess.Popen([sys.executable, "-m", "attention_cloud.cli", "serve", "--port",
                                 "0", "--home", str(home)], stdout=subprocess.PIPE, text=True)
        try:
            url = proc.stdout.readline().split()[-1]
            started = time.time()
            for _ in range(args.requests):
                kind = rng.choice(["none", "malformed", "random", "altered", "scheme", "grants"])
                who = rng.choice(sorted(tokens))
                token = {"none": None, "malformed": secrets.token_urlsafe(rng.randint(1, 60)),
                         "random": f"atc_{secrets.token_hex(8)}.{secrets.token_urlsafe(32)}",
                         "altered": tokens[who][:-4] + secrets.token_urlsafe(3)[:4],
                         "scheme": None, "grants": tokens[who]}[kind]
                path = rng.choice(["/v1/grants", "/v1/whoami", "/v1/show/it_50a40759a4205f7e"])
                counts[f"requests: {kind}"] += 1
                try:
                    if kind == "scheme":
                        import urllib.request
                        req = urllib.request.Request(url + path, headers={
                            "Authorization": "Basic " + tokens[who]})
                        urllib.request.urlopen(req, timeout=30)
                        answer = {}
                    else:
                        answer = call_mount(url, token, "/v1/grants" if kind == "grants" else path)
                except MountError as exc:
                    if kind != "grants" and "HTTP 401" in str(exc):
                        counts["refused with 401"] += 1
                    else:
                        counts[f"unexpected error: {exc}"] += 1
                    continue
                except Exception as exc:  # urllib's HTTPError for the Basic scheme
                    if kind == "scheme" and getattr(exc, "code", None) == 401:
                        counts["refused with 401"] += 1
                    else:
                        counts[f"unexpected error: {exc}"] += 1
                    continue
                if kind != "grants":
                    counts["violation: accepted without a valid token"] += 1
                    continue
                got = {g["id"] for g in answer["grants"]}
                if got != expected[who]:
                    counts["violation: grants of another grantee (or missing own)"] += 1
                else:
                    counts["own grants only"] += 1
            elapsed = time.time() - started
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    for key in sorted(counts):
        print(f"{key}: {counts[key]}")
    violations = sum(v for k, v in counts.items() if k.startswith(("violation", "unexpected")))
    print(f"violations: {violations}")
    print(f"elapsed: {elapsed:.0f} s ({args.requests / elapsed:.0f} requests/s)")
    sys.exit(1 if violations else 0)


if __name__ == "__main__":
    main()
