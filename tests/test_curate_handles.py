"""HandleList: curation's compact list of handles reads back exactly what was appended."""
from __future__ import annotations

import numpy as np
import pytest

from attention_cloud.curate.handles import HandleList


def test_handles_read_back_in_order_by_slice_and_index():
    handles = HandleList(["it_3fa2", "it_b"])
    handles.extend([])
    handles.extend(["it_é", "x" * 300])  # non-ASCII and a long handle widen nothing else
    assert len(handles) == 4 and handles
    assert handles[0:2] == ["it_3fa2", "it_b"] and handles[2] == "it_é" and handles[-1] == "x" * 300
    handles.extend(["it_c"])  # appending after a read
    assert list(handles) == ["it_3fa2", "it_b", "it_é", "x" * 300, "it_c"]
    assert handles[3:100] == ["x" * 300, "it_c"] and "it_b" in handles and "it_" not in handles
    with pytest.raises(IndexError):
        handles[5]
    assert not HandleList() and HandleList()[0:10] == []


def test_handles_taken_by_rows_and_sorted_as_text():
    names = ["it_b", "it_é", "it_a", "x" * 40, "it_", "Z"]
    handles = HandleList(names[:3])
    handles.extend(names[3:])
    assert handles.take([4, 0, 0]) == ["it_", "it_b", "it_b"] and handles.take([]) == []
    handles.sort()
    assert list(handles) == sorted(names)
    assert handles.take(np.array([0, 5])) == [sorted(names)[0], sorted(names)[5]]
