"""What Meta's "Download your information" exports (Facebook Messenger, Instagram) write alike
in JSON (:mod:`.messenger`) and HTML (:mod:`.messenger_html`): text whose UTF-8 bytes were
written as characters of their own, and the likes and reactions Instagram writes as messages."""

from __future__ import annotations

import re
from typing import Any

# Instagram writes a like or a reaction as a message of its own
REACTION = re.compile(r"(?:Liked a message|Reacted .{1,16} to (?:your|a) message)\Z")


def meta_text(value: Any) -> str:
    """A string of a Meta export as it was written: each character below 256 taken for a
    byte, the bytes read as UTF-8 where they make it; any other string as it is."""
    if not isinstance(value, str):
        return ""
    try:
        return value.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return value
