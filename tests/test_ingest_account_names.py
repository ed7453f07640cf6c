"""Chat exports that name people by their account write things the people never called
themselves: Discord's legacy discriminator (``tomas#4821``, ``#0`` after the 2023 username
change) and Skype's account prefix (``live:priya``). A message's speaker is the name the
account shows, so ``item_speaker/2``, the ``Name:`` label and a question naming the person
("What did Tomas say?") agree with the name people use."""
from __future__ import annotations

import json

import pytest

from attention_cloud.ingest import parse_text

CSV = ('AuthorID,Author,Date,Content,Attachments,Reactions\n'
       '"111","tomas#4821","5/8/2023 3:56 PM","Are we still on for the river run tomorrow?","",""\n'
       '"222","Priya P#0","5/8/2023 3:58 PM","Yes, seven sharp at the bridge.","",""\n'
       '"333","Team #1","5/8/2023 4:01 PM","Reminder: bring water for the long loop.","",""\n')


def _skype(*senders):
    messages = [{"id": str(i), "originalarrivaltime": f"2023-05-08T13:5{i}:00.000Z",
                 "messagetype": "RichText", "from": sender, "displayName": None,
                 "content": f"message number {i} about the river run", "conversationid": "c"}
                for i, sender in enumerate(senders)]
    return json.dumps({"userId": "8:live:dana", "exportDate": "2023-06-01T10:00:00Z",
                       "conversations": [{"id": "19:group@thread.skype", "displayName": "Runs",
                                          "MessageList": messages[::-1]}]})


def test_a_discord_csv_author_is_named_without_the_discriminator():
    result = parse_text(CSV, name="Running Club - general [901].csv")
    assert result.format == "discord"
    assert [i.speaker for i in result.items] == ["tomas", "Priya P", "Team #1"]


def test_a_skype_sender_is_named_without_the_account_prefix():
    senders = ("8:live:priya", "8:live:dana", "8:live:.cid.3f2a9c1b7d", "8:tomas.ruiz")
    result = parse_text(_skype(*senders), name="messages.json", format="skype")
    assert [i.speaker for i in result.items] == ["priya", "dana", "live:.cid.3f2a9c1b7d",
                                                 "tomas.ruiz"]


def test_a_question_names_the_discord_account_by_its_name(home, tmp_path):
    from attention_cloud import Memory
    path = tmp_path / "Running Club - general [901].csv"
    path.write_text(CSV)
    with Memory.open(home) as mem:
        mem.ingest([str(path)])
        rows = mem.query('goal_speaker("What did Tomás say about the river run?", A), '
                         'item_speaker(H, A), item_text(H, T)').rows
    assert rows == [{"A": "tomas", "H": rows[0]["H"],
                     "T": "Are we still on for the river run tomorrow?"}]


def test_a_chat_message_names_its_writer_under_the_keys_chat_logs_use():
    """Chat logs written by bots and scripts name the writer as ``username``, ``display_name``
    or a ``user`` object, not only OpenAI's ``name``: each is the speaker (a ``user`` given as
    a bare string is an id, not a name, and stays unread)."""
    messages = [
        {"role": "user", "username": "dana", "content": "Can I join the run tomorrow morning?"},
        {"role": "user", "display_name": "Lee Park", "content": "Count me in at the bridge."},
        {"role": "user", "user": {"display_name": "Omar"}, "content": "I will bring the water."},
        {"role": "user", "user": {"username": "kim.j"}, "content": "Save me a spot at the front."},
        {"role": "user", "author": {"displayName": "Ana"}, "content": "See you all at seven then."},
        {"role": "user", "user": "U024BE7LH", "content": "Who is leading the warm-up then?"},
    ]
    result = parse_text(json.dumps(messages), name="chat.json", format="openai")
    assert [i.speaker for i in result.items] == ["dana", "Lee Park", "Omar", "kim.j", "Ana", ""]


ACCOUNTS = ('AuthorID,Author,Date,Content,Attachments,Reactions\n'
            '"111","priya.p","5/8/2023 3:56 PM","Are we still on for the river run tomorrow?","",""\n'
            '"222","zoe.m","5/8/2023 3:58 PM","Yes, seven sharp at the bridge.","",""\n'
            '"333","tomas_r","5/8/2023 4:01 PM","I will bring water for the long loop.","",""\n')


@pytest.mark.parametrize("question, account", [
    ("What did priya.p say about the river run?", "priya.p"),   # the account as written
    ("What did Priya say about the river run?", "priya.p"),     # her given name
    ("What did zoe.m answer?", "zoe.m"),
    ("When is Zoe at the bridge?", "zoe.m"),
    ("What will Tomas bring?", "tomas_r"),
])
def test_a_question_names_an_account_written_with_dots_or_underscores(home, tmp_path,
                                                                      question, account):
    """Discord's usernames since 2023 (and Instagram's, Telegram's) join a name's pieces with a
    dot or an underscore. Before, a question naming ``priya.p`` (whose dot splits the goal's
    words) or asking by her given name named no one, so nothing favoured her turns."""
    from attention_cloud import Memory
    path = tmp_path / "Running Club - general [901].csv"
    path.write_text(ACCOUNTS)
    with Memory.open(home) as mem:
        mem.ingest([str(path)])
        named = mem.query(f'goal_speaker("{question}", A)').rows
    assert named == [{"A": account}]
