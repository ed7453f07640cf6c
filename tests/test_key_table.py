"""The vector store's key table: a dict's answers from arrays (embed/key_table.py)."""
from __future__ import annotations

import numpy as np
import pytest

from attention_cloud.embed import key_table
from attention_cloud.embed.key_table import KeyTable


def blob_of(keys: list[str]) -> np.ndarray:
    return np.frombuffer("\0".join(keys).encode("utf-8"), dtype=np.uint8)


KEYS = ["it_f51b3a4eedc021c8", "it_f51b3a4eedc021c8#l2", "arc_2401c71280f4", "é-ünïcode", "x", "",
        "a-key-that-is-longer-than-twenty-four-bytes"]


def check_like_dict(table: KeyTable, expected: dict[str, int], absent: list[str]) -> None:
    assert len(table) == len(expected)
    for key, row_id in expected.items():
        assert table.get(key) == row_id and table[key] == row_id and key in table
        assert table.key_of(row_id) == key
    for key in absent:
        assert table.get(key) is None and key not in table and table.get(key, -7) == -7
        with pytest.raises(KeyError):
            table[key]
    queries = list(expected) + absent
    assert table.ids(queries).tolist() == [expected.get(k, -1) for k in queries]
    assert table.keys() == [k for k, _ in sorted(expected.items(), key=lambda kv: kv[1])]


def test_loaded_keys_answer_as_a_dict_and_changes_overlay_them():
    ids = np.array([5, 0, 9, 2, 3, 7, 11])
    table = KeyTable.from_blob(blob_of(KEYS), ids)
    expected = dict(zip(KEYS, ids.tolist()))
    absent = ["it_f51b3a4eedc021c9", "it_f51b3a4eedc021c", "nul\0key", "a-key-that-is-longer-than-twenty-four-bytes!" * 2]
    check_like_dict(table, expected, absent)
    # remove a loaded key, re-add it under a new row id, add a new key, remove an added key
    assert table.pop("arc_2401c71280f4") == 9 and table.pop("arc_2401c71280f4") is None
    assert table.key_of(9) is None
    table["arc_2401c71280f4"] = 12
    table["it_new"] = 13
    table["nul\0key"] = 14
    assert table.pop("it_new") == 13 and table.key_of(13) is None
    expected.update({"arc_2401c71280f4": 12, "nul\0key": 14})
    check_like_dict(table, expected, ["it_new", "missing"])


def test_an_empty_table_and_a_mismatched_blob():
    table = KeyTable.from_blob(np.zeros(0, dtype=np.uint8), np.zeros(0, dtype=np.int64))
    check_like_dict(table, {}, ["a"])
    table["a"] = 0
    check_like_dict(table, {"a": 0}, ["b"])
    with pytest.raises(ValueError):
        KeyTable.from_blob(blob_of(["a", "b"]), np.array([0, 1, 2]))


def test_hash_collisions_cost_a_second_look_not_a_wrong_answer(monkeypatch):
    monkeypatch.setattr(key_table, "_hash_rows", lambda rows: np.zeros(len(rows), dtype=np.uint64))
    monkeypatch.setattr(key_table, "_hash_one", lambda padded: 0)
    keys = [f"k{i}" for i in range(50)]
    table = KeyTable.from_blob(blob_of(keys), np.arange(50))
    table.pop("k7")
    expected = {k: i for i, k in enumerate(keys) if k != "k7"}
    check_like_dict(table, expected, ["k7", "k50", "zz"])


def test_one_key_and_arrays_hash_alike():
    rows = np.frombuffer(b"it_f51b3a4eedc021c8#l2\0\0" + b"abc".ljust(24, b"\0"), dtype=np.uint8).reshape(2, 24)
    assert key_table._hash_rows(rows).tolist() == [key_table._hash_one(r.tobytes()) for r in rows]


def test_ids_find_keys_in_the_overlay_the_load_or_neither_in_any_mix():
    """Before a checkpoint most keys live in the overlay: ids() looks there first and hashes
    only the rest; a loaded key replaced (popped, set again) answers its new row id, a popped
    one -1, and a HandleList is read like a list."""
    import numpy as np

    from attention_cloud.curate.handles import HandleList
    from attention_cloud.embed.key_table import KeyTable

    loaded = [f"it_{i:04d}" for i in range(50)]
    table = KeyTable.from_blob(np.frombuffer("\0".join(loaded).encode(), dtype=np.uint8),
                               np.arange(50))
    table.pop("it_0003")
    table["it_0003"] = 70  # replaced: its new row
    table.pop("it_0004")  # removed
    table.update((f"new_{i}", 100 + i) for i in range(5))
    keys = ["new_2", "it_0003", "it_0004", "it_0010", "absent", "new_0", "it_0049"]
    expected = [102, 70, -1, 10, -1, 100, 49]
    assert table.ids(keys).tolist() == expected
    assert table.ids(HandleList(keys)).tolist() == expected
    assert table.ids(["new_1", "new_4"]).tolist() == [101, 104]  # all in the overlay
    assert table.ids(["it_0001", "it_0002"]).tolist() == [1, 2]  # none in it
    assert table.ids([]).tolist() == []
    assert KeyTable().ids(["x"]).tolist() == [-1]


def test_ascii_and_other_keys_are_looked_up_alike():
    """ids() of keys that are all ASCII (every handle; numpy encodes them) and of keys that
    are not (encoded one by one) give the same answers: a key longer than the widest loaded
    one, one that ends in NUL or holds one, and a prefix of a loaded key are absent either way."""
    ids = np.array([5, 0, 9, 2, 3, 7, 11])
    table = KeyTable.from_blob(blob_of(KEYS), ids)
    ascii_keys = [k for k in KEYS if k.isascii()]
    edge = ["x\0", "nul\0key", "a-key-that-is-longer-than-twenty-four-bytes" + "!",
            "it_f51b3a4eedc021c", "arc_2401c71280f4\0", ""]
    want = dict(zip(KEYS, ids.tolist()))
    for queries in (ascii_keys + edge, edge + ["é-ünïcode"] + ascii_keys):
        assert table.ids(queries).tolist() == [want.get(k, -1) for k in queries]
