"""The shapes of speaker lines that exports and apps write beyond ``Name: …``, for
:mod:`.plain_text`: LINE's chat history (``13:56<TAB>Priya<TAB>…``), Zoom's saved meeting chat
(``13:56:03 From Priya to Everyone:``), Discord messages pasted from the app (``Priya —
05/08/2023 1:56 PM``), Otter.ai's and Slack's ``Priya Patel  0:01`` over the words, caption
transcripts (WebVTT, SubRip, Teams' ``<v Priya>``) and the ChatGPT Exporter's ``#### You:``
headings. Each speaker pattern has the groups of :data:`.plain_text._NAMED_SPEAKER` (``name``,
``rest`` and the time's groups), so the reader treats them alike; the words around the name
say where it is, so it may be written in any case.
"""

from __future__ import annotations

import re

# LINE's chat history export: "13:56<TAB>Priya<TAB>text" ("1:56 PM", "午後1:56" on some
# phones). The tabs say where the name is, so it may be anything a LINE name is (lower case,
# an emoji in it); the groups are those of _NAMED_SPEAKER.
_TAB_CLOCK = r"(?:(?:午前|午後|[AaPp][Mm] ?)?\d{1,2}:\d\d(?::\d\d)?(?: ?[AaPp]\.?[Mm]\.?)?)"
TAB_SPEAKER = re.compile(
    r"(?P<bare>" + _TAB_CLOCK + r")\t(?P<name>[^\t\n]*[^\W\d_][^\t\n]{0,60})\t"
    r"(?P<stamp>(?!))?(?P<paren>(?!))?(?P<square>(?!))?(?P<bold>(?!))?(?P<rest>.*)",
    re.DOTALL,
)
# Zoom's saved meeting chat: "13:56:03 From Priya Patel to Everyone:" with the message on the
# lines below (tab-indented), or an older client's "13:56:03<TAB> From  Priya Patel : …". The
# words say where the name is, so it may be anything a display name is ("tomás (he/him)").
ZOOM_SPEAKER = re.compile(
    r"(?P<bare>\d{1,2}:\d\d:\d\d)[ \t]+From[ \t]+(?P<name>[^\t\n]*?[^\W\d_][^\t\n]*?)"
    r"(?:[ \t]+to[ \t]+[^\t\n:]+?)?[ \t]*:(?:[ \t]+|\Z)"
    r"(?P<stamp>(?!))?(?P<paren>(?!))?(?P<square>(?!))?(?P<bold>(?!))?(?P<rest>.*)",
    re.DOTALL,
)
# Discord messages copied from the app: the author's line, "Priya — 05/08/2023 1:56 PM" or
# "Tomás — Today at 1:56 PM" ("Heute um 13:56 Uhr" in German; Finnish writes its clock with a
# dot after a date or "klo", "8.5.2023 13.56", "tänään klo 13.56"), over the message's lines.
# The dash and the clock at the line's end say where the name is, so it may be lower case.
DASH_SPEAKER = re.compile(
    r"(?P<name>[^\W\d_][^\t\n\u2014]{0,60}?)[ \t]+\u2014[ \t]+"
    r"(?P<bare>[^\t\n\u2014]{0,30}?(?:\d{1,2}:\d\d|(?:\d|klo)[ \t]+\d{1,2}\.\d\d)"
    r"(?:[ \t]?[AaPp]\.?[Mm]\.?|[ \t]Uhr)?)[ \t]*\Z"
    r"(?P<stamp>(?!))?(?P<paren>(?!))?(?P<square>(?!))?(?P<bold>(?!))?(?P<rest>)",
)
# A caption cue's voice, as Teams writes its transcripts: "<v Priya Patel>Are we on?</v>". The
# tag says where the name is, so it may be anything; the groups are those of _NAMED_SPEAKER.
VOICE_SPEAKER = re.compile(
    r"<v(?:\.[^\s>]+)?[ \t]+(?P<name>[^>\n]*?[^\W\d_][^>\n]{0,60}?)>(?P<rest>.*?)(?:</v>)?[ \t]*\Z"
    r"(?P<stamp>(?!))?(?P<bare>(?!))?(?P<paren>(?!))?(?P<square>(?!))?(?P<bold>(?!))?",
    re.DOTALL,
)
# A name, two spaces or more and a time, over the words: Otter.ai's text export ("Priya Patel
# 0:01", the recording's offset) and a Slack channel copied from the app ("Priya Patel  1:56
# PM"). The groups are those of _NAMED_SPEAKER.
SPACED_SPEAKER = re.compile(
    r"(?P<name>[^\W\d_][\w'.\-]{0,30}(?: [^\W\d_][\w'.\-]{0,30}){0,2}) {2,}"
    r"(?P<bare>\d{1,2}:\d\d(?::\d\d)?(?:[ \t]?[AaPp]\.?[Mm]\.?)?)[ \t]*\Z"
    r"(?P<stamp>(?!))?(?P<paren>(?!))?(?P<square>(?!))?(?P<bold>(?!))?(?P<rest>)")
# A line that is only a recording's time with its seconds, as Google Meet's transcript marks
# one every few minutes: "00:05:00".
TIME_MARK = re.compile(r"[ \t]*\d{1,2}:\d\d:\d\d[ \t]*")
# A caption cue's timing line (WebVTT, SubRip): "00:00:05.000 --> 00:00:07.000".
CUE_TIMING = re.compile(r"[ \t]*(?:(\d{1,2}):)?(\d{1,2}):(\d\d)[.,](\d{1,3})[ \t]+-->[ \t]+"
                         r"(?:\d{1,2}:)?\d{1,2}:\d\d[.,]\d{1,3}(?:[ \t].*)?\Z")
# Zoom names a recording's transcript after the meeting's start, in UTC:
# "GMT20230508-135603_Recording.transcript.vtt".
ZOOM_START = re.compile(r"GMT(\d{4})(\d\d)(\d\d)-(\d\d)(\d\d)(\d\d)")


def without_cues(lines: list[str]) -> tuple[list[str], dict[int, float]]:
    """``lines`` of a caption file (WebVTT, SubRip) with what no one said blanked, the
    ``WEBVTT`` header, each cue's number or id and timing line (line numbers never change),
    and the start of each cue in seconds by the number of its first line of text; other
    lines as they are, and no starts."""
    if not any(CUE_TIMING.match(line) for line in lines[:50]):
        return lines, {}
    out = list(lines)
    starts: dict[int, float] = {}
    if out and out[0].lstrip("\ufeff").startswith("WEBVTT"):
        for at, line in enumerate(out):
            if not line.strip():
                break
            out[at] = ""  # the header and its settings, up to the first blank line
    for at, line in enumerate(lines):
        timing = CUE_TIMING.match(line)
        if timing is None:
            continue
        out[at] = ""
        if at and lines[at - 1].strip() and not CUE_TIMING.match(lines[at - 1]):
            out[at - 1] = ""  # the cue's number or id
        hours, minutes, seconds, fraction = timing.groups()
        starts[at + 2] = (int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds)
                          + int(fraction) / 10 ** len(fraction))
    return out, starts


# What LINE writes that no one said, after the clock and one tab: "Priya unsent a message.",
# "Priya joined the group.", "Priyaがメッセージの送信を取り消しました".
TAB_EVENT = re.compile(_TAB_CLOCK + r"\t[^\t\n]+\Z")
# A message that is only what LINE names for a sticker, photo, video or file: "[Sticker]", "[写真]"
TAB_MEDIA = re.compile(r"\[[^\[\]\n]{1,30}\]\Z")

# A heading that is only a name and a colon, as the ChatGPT Exporter writes each turn's:
# "#### You:", "#### ChatGPT:" (the message on the lines below). The groups are those of
# _NAMED_SPEAKER.
HEADING_NAME = re.compile(
    r"[ \t]{0,3}#{1,6}[ \t]+(?P<name>[^\W\d_][\w'.\-]{0,30}(?: [^\W\d_][\w'.\-]{0,30}){0,2})"
    r"[ \t]*[:\uff1a][ \t]*#*[ \t]*\Z"
    r"(?P<stamp>(?!))?(?P<bare>(?!))?(?P<paren>(?!))?(?P<square>(?!))?(?P<bold>(?!))?(?P<rest>)")
# Speaker lines whose message is on the lines below them, never after the name.
HEADER_SHAPES = (ZOOM_SPEAKER, DASH_SPEAKER, HEADING_NAME, SPACED_SPEAKER)


def unquoted(body: list[str]) -> list[str]:
    """A LINE message of several lines without the double quotes the export wraps it in (a
    quote inside it written twice, as in CSV); other messages as they are."""
    filled = [line for line in body if line.strip()]
    if len(filled) < 2 or not body[0].startswith('"') or not filled[-1].rstrip().endswith('"'):
        return body
    text = "\n".join(body).strip()
    return text[1:-1].replace('""', '"').split("\n")
