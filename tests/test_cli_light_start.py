"""The command line starts light: `atc hook user-prompt` is a new process on every prompt a
user types, so importing the CLI must not import the readers, curation or numpy (they cost
~0.5 s of CPU a process: the CLI's import had grown from 0.1 s to 0.6 s)."""
from __future__ import annotations

import json
import subprocess
import sys


def test_importing_the_cli_imports_no_reader_curation_or_numpy():
    probe = ("import json, sys; import attention_cloud.cli; "
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith(("
             "'numpy', 'faiss', 'attention_cloud.curation', 'attention_cloud.curate', "
             "'attention_cloud.ingest.api', 'attention_cloud.ingest.aider', "
             "'attention_cloud.ingest.claude_code', 'attention_cloud.bridge.pyswip')))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=60, check=True)
    assert json.loads(out.stdout) == []


def test_the_package_still_gives_its_names_on_first_use():
    import attention_cloud.ingest as ingest

    assert callable(ingest.parse_path) and callable(ingest.detect_format)
    assert "claude-code" in ingest.FORMATS and "parse_text" in dir(ingest)
    try:
        ingest.no_such_name
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name must be an AttributeError")
