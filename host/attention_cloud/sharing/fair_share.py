"""Each principal's share of a server's time (``atc serve``).

The server answers one request at a time: one memory, one Prolog engine. A grantee sending
slow goals (a query may run QUERY_TIME_LIMIT_MAX seconds) or a stream of cheap ones held
every other caller behind them for as long as they kept at it. Each principal now has a
bucket of server seconds: it holds at most ``burst`` seconds, fills at ``share`` of a second
per second, and each answered request takes the seconds it ran. A principal whose bucket is
empty is answered 429 with the seconds until it holds some again (``Retry-After``), without
their request being read; the others are not held up by them for more than their share.
"""
from __future__ import annotations

import math
import time
from typing import Callable


class FairShare:
    """Buckets of server seconds, one per principal (see the module docstring)."""

    def __init__(self, share: float, burst: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not 0 < share <= 1:
            raise ValueError(f"share must be more than 0 and at most 1, not {share}")
        if not burst > 0:
            raise ValueError(f"burst must be more than 0 seconds, not {burst}")
        self.share = share
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}    # principal: (seconds, as of)

    def _held(self, principal: str) -> float:
        now = self._clock()
        held, since = self._buckets.get(principal, (self.burst, now))
        held = min(self.burst, held + (now - since) * self.share)
        self._buckets[principal] = (held, now)
        return held

    def retry_after(self, principal: str) -> int | None:
        """None when ``principal`` may be answered now; else the whole seconds until they
        may (at least 1)."""
        held = self._held(principal)
        if held > 0:
            return None
        return max(1, math.ceil(-held / self.share - 1e-9))   # 8.000000001 s is 8

    def charge(self, principal: str, seconds: float) -> None:
        """Take the ``seconds`` a request of ``principal`` ran from their bucket."""
        held = self._held(principal)            # filled to now first: never past the burst
        self._buckets[principal] = (held - max(0.0, seconds), self._buckets[principal][1])
