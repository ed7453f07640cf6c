"""Erasure on the attention side: after ``atc forget`` no belief, inspection, event payload,
claim or trace event keeps a part of the item's text (a rare token of it, or a long span of
it), and a belief that cites the item as support loses its value; the records stay, dirty."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.attention.controller import Controller
from attention_cloud.cli import main
from attention_cloud.home import write_config

TOKEN = "hunter2-zebra"
SPAN = "rotate the vault credentials every ninety days"
SECRET_TEXT = f"The secret token is {TOKEN}. Remember to {SPAN} please."
KEPT = "marmoset lanternfish ptarmigan v9000"


def _turn(role: str, n: int, text: str) -> str:
    return json.dumps({"type": role, "uuid": f"S1-{n}", "sessionId": "S1",
                       "timestamp": f"2026-01-01T10:0{n}:00Z",
                       "message": {"role": role, "content": text}})


@pytest.fixture
def secret_home(home: Path, tmp_path: Path):
    """A home with the secret item ingested and curated; (home, handle of the secret item)."""
    write_config(home, {"embedder": "hash"})
    source = tmp_path / "s.jsonl"
    source.write_text("\n".join([_turn("user", 0, SECRET_TEXT),
                                 _turn("assistant", 1, f"Noted; deploys use {KEPT}.")]) + "\n",
                      encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([source])
        mem.curate()
        handle = mem.query(f'item_text(H, T), sub_string(T, _, _, _, "{TOKEN}")').rows[0]["H"]
    return home, handle


def _files_holding(home: Path, needle: str) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*")
                  if p.is_file() and needle.lower().encode() in p.read_bytes().lower())


def _atc(home: Path, *args: str) -> str:
    out = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert out.exit_code in (0, 1), out.output
    return out.output


def test_forget_redacts_fragments_in_every_attention_record_cli(secret_home):
    """Before: a belief whose value was only a fragment of the forgotten item (its token), an
    inspection result, an event payload and a claim text copying part of it kept the fragment
    in journal.pl after `atc forget` (the belief went dirty, the secret stayed)."""
    home, handle = secret_home
    common = ("--type", "dependency_version", "--confidence", "0.9", "--age", "10",
              "--volatility", "package_release")
    _atc(home, "source", "add", "vault", "--type", "dependency_version", "--kind", "package_registry")
    _atc(home, "belief", "add", "tok", "--subject", "vault token", "--value", TOKEN,
         "--supports", handle, *common)
    _atc(home, "belief", "add", "cited", "--subject", "vault policy", "--value", "short",
         "--supports", handle, *common)
    _atc(home, "belief", "add", "span", "--subject", "policy", "--value", f"we {SPAN}", *common)
    _atc(home, "belief", "add", "kept", "--subject", "deploy", "--value", KEPT,
         "--source", "vault", *common[:4], "--age", "100000", *common[6:])
    _atc(home, "source", "event", "state_change", "--from", "vault", "--target", "vault",
         "--payload", f"token now {TOKEN}!")
    _atc(home, "claim", f"the token is {TOKEN}", "--type", "dependency_version", "--subject", "vault")
    turn = json.loads(_atc(home, "attend", "--goal", "g", "--depends-on", "kept",
                           "--budget", "3", "--format", "json"))
    _atc(home, "inspect", turn["chosen"]["candidate_id"], "--result", f"{TOKEN} seen")
    assert _files_holding(home, TOKEN)

    _atc(home, "forget", handle, "--yes")
    assert _files_holding(home, TOKEN) == []
    assert _files_holding(home, SPAN) == []
    tok = _atc(home, "belief", "show", "tok")
    assert "[forgotten]" in tok and "DIRTY" in tok, tok
    cited = _atc(home, "belief", "show", "cited")
    assert "[forgotten]" in cited and "DIRTY" in cited, cited  # cites it: its value goes
    assert "[forgotten]" in _atc(home, "belief", "show", "span")
    kept = _atc(home, "belief", "show", "kept")
    assert KEPT in kept and "[forgotten]" not in kept  # another item's text stays


def test_forget_redacts_fragments_api(secret_home):
    """The same through the Python API: `Memory.forget` leaves no fragment in any file."""
    home, handle = secret_home
    with Memory.open(home) as mem:
        ctl = Controller(mem.pl, "default", memory=mem)
        ctl.add_source("vault", claim_type="dependency_version", kind="package_registry")
        ctl.add_belief("frag", claim_type="dependency_version", subject="vault token", value=TOKEN,
                       confidence=0.9, observed_at=0, volatility="package_release")
        ctl.add_belief("cited", claim_type="dependency_version", subject="policy", value="short",
                       confidence=0.9, observed_at=0, volatility="package_release",
                       supports=[handle])
        ctl.add_event("state_change", source="vault", target="vault",
                      payload_text=f"now {TOKEN}", now=1)
        ctl.claim(f"it is {TOKEN}", claim_type="dependency_version", now=2)
        mem.forget([handle], reason="a secret")
    assert _files_holding(home, TOKEN) == []
    with Memory.open(home) as mem:
        ctl = Controller(mem.pl, "default", memory=mem)
        assert ctl.belief("frag", now=3)["value"] == "[forgotten]"
        cited = ctl.belief("cited", now=3)
        assert cited["value"] == "[forgotten]" and cited["dirty"], cited
        assert all(TOKEN not in json.dumps(c) for c in ctl.claims())
