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
    ({"goal": "retries \udcff"}, "goal is not valid text"),     # a byte that is not UTF-8
    ({"plane": "exec\ud800"}, "plane is not valid text"),
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


@pytest.mark.parametrize("now", ["1e300", "-1e300", "nan", "inf"])
def test_hydrate_from_a_goal_refuses_a_now_of_no_year(mem, now):
    """Memory.hydrate refuses a `now` outside the years 1 to 9999; hydrate/3 in a goal took
    1e300 and framed the goal "as of -219246529-01-00T08:29:52Z" (NaN: as of no time)."""
    from attention_cloud.errors import PrologError

    with pytest.raises(PrologError, match="now"):
        mem.query(f'X is {now}, hydrate("retries", _{{now: X, budget: 200}}, _)')
    assert mem.query('hydrate("retries", _{now: 1700000000, budget: 200}, _)').rows


@pytest.mark.parametrize("command", ["hydrate", "query"])
def test_a_goal_byte_that_is_not_utf8_is_one_line_from_the_cli(tmp_path, command):
    """`atc hydrate $'goal \\xff'` printed a Prolog warning about string_lower/2 and an error
    about split_string/4; `atc query` a raw syntax_error term."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    atc = Path(sys.executable).with_name("atc")
    env = {**os.environ, "ATC_HOME": str(home)}
    done = subprocess.run([os.fsencode(atc), command.encode(), b"retries \xff"], env=env,
                          capture_output=True, timeout=120)
    err = done.stderr.decode("utf-8", "replace").strip()
    assert done.returncode == 2 and done.stdout == b"", err
    assert err.splitlines() == [err] and "goal is not valid text" in err and "UTF-8" in err
