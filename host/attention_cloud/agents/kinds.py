"""The kinds a remembered item may have: a module of its own so that the command line's option
lists them without importing curation (``atc hook`` starts on every prompt)."""

#: The kinds a remembered item may have (its ``item_kind/2``).
REMEMBER_KINDS: tuple[str, ...] = ("note", "decision", "preference")
