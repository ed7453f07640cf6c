"""Telegram Desktop's chat export as HTML, its default format (``messages.html``): it was
``cannot detect format``, and ``--format telegram`` refused it as no JSON, so the usual export
of a Telegram chat was left out whole. Each message is now an item with its sender, its moment
(the date block's title with its zone) and its text; joined messages keep the sender above,
forwarded ones say whose they were, replies link, files are named, service lines counted."""
from __future__ import annotations

from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.ingest import detect_format, parse_path

PAGE = """<!DOCTYPE html>
<html>
 <head>
  <meta charset="utf-8"/>
<title>Exported Data</title>
 </head>
 <body onload="CheckLocation();">
  <div class="page_wrap">
   <div class="page_header">
    <div class="content">
     <div class="text bold">
Running Club
     </div>
    </div>
   </div>
   <div class="page_body chat_page">
    <div class="history">
     <div class="message service" id="message-1">
      <div class="body details">
8 May 2023
      </div>
     </div>
     <div class="message default clearfix" id="message12">
      <div class="pull_left userpic_wrap">
       <div class="userpic userpic2" style="width: 42px; height: 42px">
        <div class="initials" style="line-height: 42px">
P
        </div>
       </div>
      </div>
      <div class="body">
       <div class="pull_right date details" title="08.05.2023 13:56:03 UTC+02:00">
13:56
       </div>
       <div class="from_name">
Priya Patel
       </div>
       <div class="text">
Are we on for the run on Saturday?<br>Bring water &amp; snacks 🏃
       </div>
      </div>
     </div>
     <div class="message default clearfix joined" id="message13">
      <div class="body">
       <div class="pull_right date details" title="08.05.2023 13:56:40 UTC+02:00">
13:56
       </div>
       <div class="text">
The route is <a href="https://example.org/route">here</a>.
       </div>
      </div>
     </div>
     <div class="message default clearfix" id="message14">
      <div class="body">
       <div class="pull_right date details" title="08.05.2023 13:57:10 UTC+02:00">
13:57
       </div>
       <div class="from_name">
Tomás
       </div>
       <div class="reply_to details">
In reply to <a href="#go_to_message12" onclick="return GoToMessage(12)">this message</a>
       </div>
       <div class="text">
Yes, at seven.
       </div>
      </div>
     </div>
     <div class="message service" id="message-2">
      <div class="body details">
Tomás pinned this message
      </div>
     </div>
     <div class="message default clearfix" id="message15">
      <div class="body">
       <div class="pull_right date details" title="08.05.2023 13:58:00 UTC+02:00">
13:58
       </div>
       <div class="from_name">
Priya Patel
       </div>
       <div class="media_wrap clearfix">
        <a class="photo_wrap clearfix pull_left" href="photos/photo_1@08-05-2023_13-58-00.jpg">
         <img class="photo" src="photos/photo_1@08-05-2023_13-58-00_thumb.jpg"/>
        </a>
       </div>
      </div>
     </div>
     <div class="message default clearfix" id="message16">
      <div class="body">
       <div class="pull_right date details" title="09.05.2023 00:10:00 UTC+02:00">
00:10
       </div>
       <div class="from_name">
Tomás
       </div>
       <div class="forwarded body">
        <div class="from_name">
Lee Chen<span class="date details" title="01.05.2023 10:00:00 UTC+02:00"> 01.05.2023 10:00:00</span>
        </div>
        <div class="text">
Hills on Saturday are steep.
        </div>
       </div>
      </div>
     </div>
    </div>
   </div>
  </div>
 </body>
</html>
"""


def test_a_telegram_html_export_is_each_message_with_its_sender_and_moment(tmp_path):
    path = tmp_path / "messages.html"
    path.write_text(PAGE, encoding="utf-8")
    assert detect_format(path) == "telegram"
    result = parse_path(path)
    got = [(i.session, i.speaker, i.role, i.time, i.text) for i in result.items]
    assert got == [
        ("Running Club", "Priya Patel", "user", "2023-05-08T11:56:03Z",
         "Are we on for the run on Saturday?\nBring water & snacks 🏃"),
        ("Running Club", "Priya Patel", "user", "2023-05-08T11:56:40Z", "The route is here."),
        ("Running Club", "Tomás", "assistant", "2023-05-08T11:57:10Z", "Yes, at seven."),
        ("Running Club", "Priya Patel", "user", "2023-05-08T11:58:00Z",
         "[attached: photo_1@08-05-2023_13-58-00.jpg]"),
        ("Running Club", "Tomás", "assistant", "2023-05-08T22:10:00Z",
         "[forwarded from Lee Chen] Hills on Saturday are steep.")]
    assert ("reply_to", "Running Club#12") in [r[1:] for r in result.items[2].relations]
    assert result.ignored.get("service") == 2
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(tmp_path / "home")])
    assert out.exit_code == 0 and "new: 5" in out.output, out.output


def test_a_page_with_no_messages_is_refused_in_one_line(tmp_path):
    path = tmp_path / "messages.html"
    path.write_text(PAGE.split('<div class="history">')[0] + "</div></body></html>\n")
    out = CliRunner().invoke(main, ["ingest", "--format", "telegram", str(path),
                                    "--home", str(tmp_path / "home")])
    assert out.exit_code == 1 and out.output.count("\n") == 1, out.output
