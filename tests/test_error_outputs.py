"""Tool output that reports a failure is kept as an error item, whatever tool printed it: a
goal with a failure word favours error items, so a failure read as an ordinary result is one a
"why did the build fail" frame ranks below the successes."""
from __future__ import annotations

import pytest

from attention_cloud.ingest.classify import tool_output_kind
from attention_cloud.ingest.entities import looks_like_error


@pytest.mark.parametrize("output", [
    # before, these were ordinary tool results
    "gcc -c parse.c\nparse.c:12:5: warning: unused variable\nmake: *** [Makefile:4: all] Error 1",
    "make[2]: Entering directory '/src/lib'\nmake[2]: *** [lib.o] Error 2",
    "[INFO] ------------------------------------------------------------------------\n"
    "[INFO] BUILD FAILURE\n[INFO] Total time:  3.112 s",
    "> Task :app:compileJava\n\nBUILD FAILED in 2s\n3 actionable tasks: 3 executed",
    "$ ./bench --size 10\nSegmentation fault (core dumped)",
    # and these were already errors
    "Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: bad",
    "FAILED tests/test_retry.py::test_backoff - AssertionError",
    "npm ERR! code ELIFECYCLE",
])
def test_a_failure_report_is_an_error(output):
    assert looks_like_error(output)
    assert tool_output_kind(None, output, False) == "error"


@pytest.mark.parametrize("output", [
    "make: Nothing to be done for 'all'.",
    "make[1]: Leaving directory '/src/lib'",
    "BUILD SUCCESSFUL in 2s",
    "[INFO] BUILD SUCCESS",
    "the rating was *** (three stars)",
    "no errors found; 0 failed",
    "we talked about the segmentation fault in the old parser last week",
])
def test_ordinary_output_is_not_an_error(output):
    assert not looks_like_error(output)
