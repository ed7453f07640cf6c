"""A message edited after it was sent says so in every people's chat format that records it
(``relation(H, edited, TIME)``, or ``true`` where the export says not when), its text the last
one written. Before, the edit was dropped in silence (WhatsApp's mark was cut, Telegram's
``edited``, Slack's ``edited`` and Discord's ``timestampEdited`` were never read)."""
from __future__ import annotations

import json

import pytest

from attention_cloud.ingest import parse_text

TELEGRAM = {"name": "Club", "type": "private_group", "id": 1, "messages": [
    {"id": 7, "type": "message", "date": "2023-05-08T15:56:00", "date_unixtime": "1683554160",
     "edited": "2023-05-08T16:00:00", "edited_unixtime": "1683554400", "from": "Priya",
     "from_id": "user1", "text": "River loop at 7, not 8"}]}
SLACK = [{"type": "message", "user": "U1", "ts": "1683554160.000100",
          "user_profile": {"real_name": "Priya Patel"}, "text": "River loop at 7, not 8",
          "edited": {"user": "U1", "ts": "1683554400.000000"}}]
DISCORD = {"guild": {"id": "1", "name": "Club"}, "channel": {"id": "2", "name": "general"},
           "messages": [{"id": "3", "type": "Default", "content": "River loop at 7, not 8",
                         "timestamp": "2023-05-08T13:56:00+00:00",
                         "timestampEdited": "2023-05-08T14:00:00+00:00",
                         "author": {"id": "4", "name": "priya", "nickname": "Priya"}}]}
WHATSAPP = ("08/05/2023, 13:56 - Priya: River loop at 7, not 8 <This message was edited>\n"
            "13/05/2023, 09:00 - Tomás: see you there\n")


@pytest.mark.parametrize("name, content, edited", [
    ("result.json", json.dumps(TELEGRAM), "2023-05-08T14:00:00Z"),
    ("2023-05-08.json", json.dumps(SLACK), "2023-05-08T14:00:00Z"),
    ("export.json", json.dumps(DISCORD), "2023-05-08T14:00:00Z"),
    ("chat.txt", WHATSAPP, "true"),
], ids=["telegram", "slack", "discord", "whatsapp"])
def test_an_edited_message_says_when_it_was_edited(name, content, edited):
    item = parse_text(content, name=name).items[0]
    assert item.text == "River loop at 7, not 8"
    assert ("edited", edited) in [r[1:] for r in item.relations]
