"""The words of a chat message as every format of one export writes them.

One export often comes in several formats, and a user may ingest two of them: DiscordChatExporter
writes a channel as JSON, keeping each message's markdown as typed (``I signed up for the
**half marathon**!``, ```` ```py ```` fences, ``[the route](https://…)``, ``:custom_emoji:``), and
as an HTML page that renders it (bold text, a code block, a link's words, an emoji's picture).
A message's handle derived from either text made the same message two items. Derived from
:func:`comparable_words` instead, it is one: the words and numbers the message says, in order,
without markup, addresses, emoji or punctuation, which every format writes alike.
"""

from __future__ import annotations

import re

# An address, bare or in Discord's angle brackets; a masked link's words stay ("[the route](…)").
_ADDRESS = re.compile(r"<?(?:https?|ftp)://[^\s>)\]]+>?")
# A code fence with its language ("```py" then a new line): the page shows the code alone.
_FENCE = re.compile(r"```(?:[\w+#.\-]*\n)?")
# A custom emoji as the JSON writes it (``:party_parrot:``, ``<:pepe:123>``): a picture on the
# page. A clock (``10:30:45``) is none: the shortcode starts with a letter.
_SHORTCODE = re.compile(r"<a?:\w+:\d+>|(?<![\w:]):[^\W\d][\w~\-]*:(?![\w:])")
_WORD = re.compile(r"[^\W_]+")


def comparable_words(text: str) -> str:
    """The words and numbers of a message's ``text``, one space between each: what a message
    says whichever format of its export wrote it (markdown or rendered, emoji as characters
    or pictures, a link's address or its words alone)."""
    plain = _SHORTCODE.sub(" ", _FENCE.sub("\n", _ADDRESS.sub(" ", text)))
    return " ".join(_WORD.findall(plain))
