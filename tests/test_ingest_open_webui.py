"""Open WebUI chat exports: the branch the user last saw of each chat, every message with its
role and its time (issue 14: no item loses its time or speaker, on any format people bring)."""
from __future__ import annotations

import json
from pathlib import Path

from attention_cloud.ingest import detect_format, parse_path, parse_text

EXPORT = Path(__file__).parent / "fixtures" / "ingest" / "open_webui_export.json"
KILN = "5f1c2b7e-9d3a-4c1e-8f21-0a6b7c8d9e10"
GLAZE = "9a8b7c6d-1111-4222-8333-444455556666"


def test_every_chat_is_read_on_the_branch_the_user_last_saw():
    # before: "cannot detect format", the whole export refused
    result = parse_path(EXPORT)
    assert result.format == "open-webui" == detect_format(EXPORT)
    assert [(i.session, i.role, i.kind, i.time, i.text) for i in result.items] == [
        (KILN, "user", "user_goal", "2024-05-20T10:13:20Z",
         "What cone should I fire stoneware glaze to?"),
        # the regenerated reply the user kept, not the first one
        (KILN, "assistant", "conclusion", "2024-05-20T10:13:50Z",
         "Fire it to cone 6 (about 1222 °C) with a slow cool."),
        (KILN, "user", "user_goal", "2024-05-20T10:15:00Z", "How slow should the cool be?"),
        (GLAZE, "user", "user_goal", "2024-05-21T14:00:00Z",
         "Summarise the attached glaze test results for me\n[attached: glaze-tests-may.pdf]"),
        # no timestamp: the time of the message before it
        (GLAZE, "assistant", "conclusion", "2024-05-21T14:00:00Z",
         "Tile 3 (the satin matte) crazed least; tiles 1 and 4 ran at cone 6."),
    ]
    assert result.ignored == {"other-branch": 1}
    links = [r[1:] for r in result.items[1].relations]
    assert ("title", "Kiln firing schedule") in links and ("model", "Llama 3.1 8B") in links
    assert result.items[1].pointer.endswith("open_webui_export.json#/0/chat/history/messages/m2b")
    assert result.items[4].pointer.endswith("open_webui_export.json#/1/chat/messages/1")


def test_one_chat_alone_and_a_branch_cut_off_at_a_missing_parent():
    chat = json.loads(EXPORT.read_text())[0]
    chat["chat"]["history"]["messages"]["m3"]["parentId"] = "gone"
    result = parse_text(json.dumps(chat), name="chat-export.json")
    assert result.format == "open-webui"
    assert [i.text for i in result.items] == ["How slow should the cool be?"]
    assert result.ignored == {"other-branch": 3}
