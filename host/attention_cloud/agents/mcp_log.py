"""What ``atc mcp`` logs on stderr: one line per record, as the CLI's errors.

The MCP SDK configures the root logger with rich's handler, which wraps a record to the width
of its console (80 columns when stderr is a pipe, as an MCP client reads it) behind a time and
level column, so one failed tool call (``Tool 'remember' failed: '…'``) took several lines of a
client's log. :func:`log_on_one_line` puts a plain handler there first: the SDK's
``logging.basicConfig`` leaves a root logger that already has one alone.
"""
from __future__ import annotations

import logging
import sys

from ..errors import lines_joined

#: What starts each line the server logs (the CLI's errors start ``atc:``).
PREFIX = "atc mcp: "


class OneLineFormatter(logging.Formatter):
    """``atc mcp: MESSAGE``, the message's lines joined (:func:`..errors.lines_joined`). An
    unexpected exception's traceback still follows it, as Python prints one for the CLI."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 (logging's name)
        return PREFIX + lines_joined(record.getMessage())


def log_on_one_line(level: int = logging.INFO) -> logging.Handler:
    """Log the process's records at ``level`` and above to stderr, one line each; returns the
    handler installed on the root logger. Call before the server is built."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLineFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    return handler
