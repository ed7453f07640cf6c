"""A message whose ``content`` is a JSON number (a logger that parsed a model's "42" as JSON,
a quiz or a counter bot) is a message saying that number, in every chat format users log by
hand; it is not counted as empty."""
from __future__ import annotations

import json

import pytest
from attention_cloud.ingest import parse_text

QUESTION = "How many tickets are still open in the support queue right now?"


def _openai(answer):
    return json.dumps([{"role": "user", "content": QUESTION},
                       {"role": "assistant", "content": answer}])


def _openai_part(answer):
    return json.dumps([{"role": "user", "content": QUESTION},
                       {"role": "assistant", "content": [{"type": "text", "text": answer}]}])


def _sharegpt(answer):
    return json.dumps([{"conversations": [{"from": "human", "value": QUESTION},
                                          {"from": "gpt", "value": answer}]}])


def _anthropic(answer):
    return json.dumps({"model": "claude", "messages": [{"role": "user", "content": QUESTION},
                                                       {"role": "assistant", "content": answer}]})


def _langchain(answer):
    return json.dumps([{"type": "human", "data": {"content": QUESTION}},
                       {"type": "ai", "data": {"content": answer}}])


@pytest.mark.parametrize("fmt,build", [("openai", _openai), ("openai", _openai_part),
                                       ("sharegpt", _sharegpt), ("anthropic", _anthropic),
                                       ("langchain", _langchain)])
@pytest.mark.parametrize("answer,text", [(42, "42"), (3.5, "3.5"), (-7, "-7"), (1e21, "1e+21")])
def test_a_numeric_content_is_the_number_said(fmt, build, answer, text):
    result = parse_text(build(answer), name="chat.json", format=fmt)
    assert [(i.role, i.text) for i in result.items] == [("user", QUESTION), ("assistant", text)]
    assert "empty" not in result.ignored
    assert not result.skipped


def test_a_numeric_content_is_found_by_detection_too():
    result = parse_text(_openai(42), name="chat.json")
    assert result.format == "openai"
    assert [i.text for i in result.items][-1] == "42"
