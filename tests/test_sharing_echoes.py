"""An echo (a later session's restatement of an earlier item) counts half in a frame because
its original carries the same content. For a grantee who cannot see the original, the echo is
the only copy: it was halved all the same, ranked below a turn that says nothing ("good to
know"), and the halving told them that a record they cannot see says it too."""
from __future__ import annotations

from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.sharing import add_grant, add_principal, reader_hydrate

EARLIER = ("[2024-03-01 09:00] Priya: The staging database is read-only on Fridays after the "
           "nightly migration window closes.\n"
           "[2024-03-01 09:01] Omar: noted, thanks.\n"
           "[2024-03-01 09:02] Priya: keep it in mind.\n"
           "[2024-03-01 09:03] Omar: sure.\n")
LATER = ("[2024-03-08 10:00] Priya: The staging database is read-only on Fridays after the "
         "nightly migration window closes.\n"
         "[2024-03-08 10:01] Omar: good to know.\n"
         "[2024-03-08 10:02] Priya: lunch at noon?\n"
         "[2024-03-08 10:03] Omar: yes.\n")
GOAL = "is the staging database read-only"


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    root = tmp_path_factory.mktemp("echoes")
    home = root / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    (root / "earlier.txt").write_text(EARLIER, encoding="utf-8")
    (root / "later.txt").write_text(LATER, encoding="utf-8")
    memory = Memory.open(home)
    memory.ingest([root / "earlier.txt"], format="text", segment="private")
    memory.ingest([root / "later.txt"], format="text", segment="shared")
    memory.curate()
    add_principal(memory, "alice", owner=True)
    add_principal(memory, "bob")
    add_principal(memory, "carol")
    add_grant(memory, "bob", segments=["shared"], ceiling="L0")
    add_grant(memory, "carol", ceiling="L0")
    yield memory
    memory.close()


def scores(frame) -> dict[str, float]:
    return {f["handle"]: f["score"] for f in frame.receipt["facts"]}


def test_an_echo_whose_original_the_reader_cannot_see_is_not_discounted(mem):
    (row,) = mem.query("echo_of(E, O, _)").rows
    echo, original = row["E"], row["O"]
    bobs = reader_hydrate(mem, "bob", GOAL, budget=600)
    assert original not in scores(bobs)
    assert bobs.receipt["facts"][0]["handle"] == echo, bobs.receipt["facts"]
    # carol sees both: the echo still counts half beside its original, as in the owner's frame
    carols = scores(reader_hydrate(mem, "carol", GOAL, budget=600))
    owners = scores(mem.hydrate(GOAL, budget=600))
    assert carols[echo] == owners[echo] < scores(bobs)[echo]
