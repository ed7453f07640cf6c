"""The janus-swi backend (SWI-Prolog ≥ 9.1.12 with library(janus))."""
from __future__ import annotations

import importlib.util


def janus_status() -> tuple[bool, str]:
    """Whether janus-swi can be used in this process, and why (not)."""
    if importlib.util.find_spec("janus_swi") is None:
        return False, "janus-swi is not installed"
    return False, "janus backend not built yet"


class JanusEngine:  # pragma: no cover - replaced when the janus backend lands
    backend = "janus"

    def __init__(self) -> None:
        from ..errors import BridgeError

        raise BridgeError("the janus backend is not available in this build")
