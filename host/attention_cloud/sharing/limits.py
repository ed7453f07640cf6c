"""The sharing server's limits, apart from the server (and asyncio) so that the CLI shows
them as its options' defaults without importing either at every `atc` start."""
from __future__ import annotations

#: The longest ``time_limit`` a query takes, in seconds (the default): requests are answered
#: one at a time and a running goal cannot be cancelled, so one goal with a longer limit held
#: every other caller of the server for as long (``1e9``: for ever).
QUERY_TIME_LIMIT_MAX = 30.0

#: What of the server's time one principal may take over a while (fair_share.py): half, so
#: that a grantee sending slow goals back to back leaves the other half to everyone else.
DEFAULT_SHARE = 0.5

#: The server seconds one principal may take at once before their share applies: one query at
#: the longest time limit, and a little more.
DEFAULT_BURST = QUERY_TIME_LIMIT_MAX + 5
