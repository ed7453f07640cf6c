"""The Memory API is typed (py.typed): each method's return type is the class its docstring
and README name, so an integrator's editor and type checker know ``frame.receipt`` and
``report.new`` instead of ``Any``."""
from __future__ import annotations

import typing

import pytest

from attention_cloud import Memory
from attention_cloud.agents.remember import Remembered
from attention_cloud.curation import CurateReport
from attention_cloud.erasure import Erasure, ForgetReport
from attention_cloud.hydration import Frame
from attention_cloud.reembed import ReembedReport

NAMES = {cls.__name__: cls for cls in (Frame, CurateReport, ReembedReport, ForgetReport,
                                        Erasure, Remembered)}


@pytest.mark.parametrize("method, returns", [
    ("hydrate", Frame), ("curate", CurateReport), ("reembed", ReembedReport),
    ("forget", ForgetReport), ("finish_erasure", ForgetReport | None),
    ("erasures", list[Erasure]), ("remember", Remembered)])
def test_each_method_says_what_it_returns(method, returns):
    hints = typing.get_type_hints(getattr(Memory, method), localns=NAMES)
    assert hints["return"] == returns
