"""Helpers for tests that need file modes to bind: root reads and writes whatever the mode."""
from __future__ import annotations

import os
import shutil

import pytest


def without_file_capabilities() -> list[str]:
    """The prefix that makes a root process obey file modes as any user does (root ignores
    them); nothing for another user."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: file modes cannot be made to bind")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
