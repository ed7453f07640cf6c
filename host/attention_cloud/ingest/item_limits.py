"""How long one item's L0 text may be: the ``max_item_chars`` setting's default and floor.

Apart from the collector that applies them, so that checking a home's config.json
(:mod:`attention_cloud.home`, read by every command) does not import the collector and its
date parsing.
"""
from __future__ import annotations

DEFAULT_MAX_ITEM_CHARS = 32_000
"""The most characters of one message or tool output an item keeps as L0 (``max_item_chars``
in config.json): a longer one keeps its head and tail around a line marking the cut, and its
pointer pages back to the whole (a 5 MB tool result must not become a 5 MB journal fact)."""
MIN_ITEM_CHARS = 2_000
"""The smallest ``max_item_chars`` accepted."""
