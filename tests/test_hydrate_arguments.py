"""Memory.hydrate refuses arguments of the wrong kind with one line naming the argument."""
from __future__ import annotations

import pytest

from attention_cloud import Memory
from attention_cloud.errors import UsageError
from attention_cloud.home import write_config


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    home = tmp_path_factory.mktemp("args") / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    m = Memory.open(home)
    m.remember("The processor retries three times with jitter.", curate=False)
    yield m
    m.close()


@pytest.mark.parametrize("kwargs, named", [
    ({"goal": None}, "goal"),
    ({"goal": 123}, "goal"),
    ({"budget": 1.5}, "budget"),
    ({"budget": True}, "budget"),
    ({"budget": "100"}, "budget"),
    ({"budget": None}, "budget"),
    ({"ceiling": None}, "ceiling"),
    ({"plane": None}, "plane"),
    ({"segments": {"default": -5}}, "default"),
    ({"segments": {"default": 2.5}}, "default"),
    ({"segments": {"default": "abc"}}, "default"),
    ({"segments": ["default"]}, "segments"),
])
def test_a_wrong_argument_is_one_line_naming_it(mem, kwargs, named):
    args = {"goal": "retries", **kwargs}
    goal = args.pop("goal")
    with pytest.raises(UsageError) as error:
        mem.hydrate(goal, **args)
    message = str(error.value)
    assert named in message and "\n" not in message, message


def test_a_right_frame_still_comes(mem):
    frame = mem.hydrate("retries", budget=300, segments={"default": 300})
    assert frame.receipt["budget"]["segments"]["default"]["budget"] == 300
