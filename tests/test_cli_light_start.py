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
             "'attention_cloud.ingest.claude_code', 'attention_cloud.bridge.pyswip', "
             "'attention_cloud.ingest.timefmt', 'dateutil', 'asyncio')))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=60, check=True)
    assert json.loads(out.stdout) == []


# Runs `atc ARGS...` in this process, then prints which heavy packages it imported.
COMMAND_PROBE = (
    "import json, sys\n"
    "from attention_cloud.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit as stop:\n"
    "    assert not stop.code, stop.code\n"
    "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
    "('numpy', 'faiss', 'onnxruntime', 'tokenizers', 'dateutil', 'asyncio', 'jsonschema'))))")


def test_stats_opens_a_home_without_numpy_faiss_or_the_date_parser(tmp_path):
    """`atc stats` reads counts from Prolog: it imported numpy and faiss (through the cells
    package and the embed package's eager __init__) and dateutil (through the home's config
    check and the frame's date note), ~0.3 s of CPU at each start."""
    home = tmp_path / "home"
    home.mkdir()
    out = subprocess.run([sys.executable, "-c", COMMAND_PROBE, "stats", "--home", str(home)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "items: 0" in out.stdout
    assert json.loads(out.stdout.splitlines()[-1]) == []


def test_the_help_imports_no_reader_nor_the_date_parser():
    """`atc --help` names every command, the watcher's too: its file table imported the HTML
    page readers at the top, and with them the transcript readers and dateutil (~0.15 s of
    CPU at every `atc` start that mounts `atc watch`; the suite's user CPU grew by a third)."""
    out = subprocess.run([sys.executable, "-c", COMMAND_PROBE, "--help"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "watch" in out.stdout
    assert json.loads(out.stdout.splitlines()[-1]) == []


def test_the_help_imports_no_mounted_commands_work():
    """`atc --help` names the lazily mounted commands (sharing, attention, watch) by their
    one-line help: it imported, with their modules, the grant policy (and hashlib's OpenSSL),
    the attention controller and the watcher (~0.07 s of a 0.27 s `atc --help`, through the
    commands' modules and their packages' eager __init__); `atc grant --help` the policy too.
    The pages are unchanged, and the commands still work (their own tests)."""
    work = ("attention_cloud.sharing.policy,attention_cloud.attention.controller,"
            "attention_cloud.attention.results,attention_cloud.watch.watcher,"
            "attention_cloud.ingest.source,hashlib")
    assert _imported(work, "--help") == []
    assert "grant" in _imported.output and "watch" in _imported.output
    for words in (("grant", "add"), ("attend",), ("watch",), ("principal",)):
        assert _imported(work, *words, "--help") == [], words
        assert "Usage: " in _imported.output


def test_a_query_that_never_searches_imports_no_numpy(tmp_path):
    """`atc query GOAL` registers the home's search (nearest/3 may be in the goal): the
    search's module imported numpy at the top, ~0.1 s of CPU for a goal that never uses it."""
    home = tmp_path / "home"
    home.mkdir()
    out = subprocess.run([sys.executable, "-c", COMMAND_PROBE, "query", "item_kind(H, error)",
                          "--home", str(home)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1]) == []


def test_every_package_command_is_mounted_lazily_under_its_own_name():
    """The CLI names other packages' commands without importing them (cli.SUBCOMMANDS); the
    names must stay those each package's COMMANDS defines, or a command would vanish."""
    from attention_cloud import cli
    from attention_cloud.agents import cli as agents_cli
    from attention_cloud.attention import cli as attention_cli
    from attention_cloud.sharing import cli as sharing_cli

    for package in (agents_cli, attention_cli, sharing_cli):
        mounted = {name for name, where in cli.SUBCOMMANDS.items()
                   if where.partition(":")[0] == package.__name__}
        assert mounted == set(package.COMMANDS)
        for name, command in package.COMMANDS.items():
            assert cli.main.get_command(None, name) is command


def test_the_package_still_gives_its_names_on_first_use():
    import attention_cloud.ingest as ingest

    assert callable(ingest.parse_path) and callable(ingest.detect_format)
    assert "claude-code" in ingest.FORMATS and "parse_text" in dir(ingest)
    import attention_cloud.cells as cells
    import attention_cloud.embed as embed

    assert callable(cells.cells_stats) and callable(cells.rebuild) and "hot_cells" in dir(cells)
    assert callable(embed.load_embedder) and embed.DEFAULT_EMBEDDER and "VectorStore" in dir(embed)
    for package in (ingest, cells, embed):
        try:
            package.no_such_name
        except AttributeError as exc:
            assert "no_such_name" in str(exc)
        else:
            raise AssertionError("an unknown name must be an AttributeError")


# Runs `atc ARGS...` in this process, then prints which of the package's heavy modules it
# imported.
PACKAGE_PROBE = COMMAND_PROBE.replace(
    "m.split('.')[0] in ('numpy', 'faiss', 'onnxruntime', 'tokenizers', 'dateutil', 'asyncio', "
    "'jsonschema')",
    "m in ('attention_cloud.curation', 'attention_cloud.curate.cues', "
    "'attention_cloud.erasure', 'attention_cloud.ingest.timefmt', 'dateutil')")
assert PACKAGE_PROBE != COMMAND_PROBE


def test_hydrate_imports_neither_curation_nor_erasure(tmp_path):
    """A hydrate that stores its receipt checked for an erasure in flight by importing the
    erasure module, which imports the readers and the date parser, and `remember` (through
    it) imported curation for a file's name: ~0.3-0.5 s of CPU at every `atc hydrate` start
    (median 1.77 → 1.30 s of CPU a start, alternated)."""
    home = tmp_path / "home"
    done = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "remember",
                           "The ledger migration runs on Friday.", "--home", str(home)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = subprocess.run([sys.executable, "-c", PACKAGE_PROBE, "hydrate", "ledger migration",
                          "--home", str(home)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "ledger migration" in out.stdout
    assert json.loads(out.stdout.splitlines()[-1]) == []
    assert list((home / "receipts").glob("r_*.json"))      # the receipt was stored


# Runs `atc ARGS...` in this process, then prints which modules of those named in argv[1]
# (comma-separated: a module and everything under it) it imported.
NAMED_PROBE = COMMAND_PROBE.replace(
    "main(sys.argv[1:])", "main(sys.argv[2:])").replace(
    "m.split('.')[0] in ('numpy', 'faiss', 'onnxruntime', 'tokenizers', 'dateutil', 'asyncio', "
    "'jsonschema')",
    "any(m == n or m.startswith(n + '.') for n in sys.argv[1].split(','))")
assert NAMED_PROBE != COMMAND_PROBE


def _imported(names: str, *argv: str, stdin: str = "", env: dict | None = None) -> list[str]:
    """Which of ``names`` the command ``atc ARGV...`` imported (it must succeed); its output
    before the probe's last line is checked by the caller through ``_imported.output``."""
    out = subprocess.run([sys.executable, "-c", NAMED_PROBE, names, *argv], input=stdin,
                         capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, **(env or {})})
    assert out.returncode == 0, out.stderr
    _imported.output = out.stdout
    return json.loads(out.stdout.splitlines()[-1])


def test_ingest_imports_neither_curation_nor_erasure(tmp_path):
    """`atc ingest` indexes new items for BM25 as curation will (the speaker's name before
    the text) and finishes a killed erasure first: it imported the whole curation for that
    one-line helper (its cue regexes ~0.4 s of CPU to compile) and the erasure module to read
    the name of the erasure's plan file (it imports numpy and the cells): 1.45 s of CPU for a
    10-line file, most of it these imports. The items are still found by their words at once."""
    home = tmp_path / "home"
    chat = tmp_path / "chat.txt"
    chat.write_text("User: why does the ledger migration wait?\n"
                    "Assistant: the ledger migration waits on the quarterly lock.\n")
    assert _imported("attention_cloud.curation,attention_cloud.curate.cues,"
                     "attention_cloud.curate.analysis,attention_cloud.erasure,"
                     "attention_cloud.cells.api",
                     "ingest", str(chat), "--format", "text", "--home", str(home)) == []
    assert "new: 2" in _imported.output
    found = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "query",
                            'lexical("quarterly lock", 5, [], Hits)', "--format", "json",
                            "--home", str(home)], capture_output=True, text=True, timeout=120)
    assert found.returncode == 0, found.stderr
    (answer,) = json.loads(found.stdout)
    assert len(answer["Hits"]) == 1, answer        # the assistant's turn, by its words


def test_hydrate_and_the_prompt_hook_import_no_http_client(tmp_path):
    """A frame without mounts sends no HTTP request, and only an `openai:` embedder does:
    the mounts' module built its URL opener at import and the embedder loader imported the
    remote embedders, so every `atc hydrate` and cold prompt hook imported urllib's HTTP
    client, ssl and email (~0.1 s of CPU a start)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}')
    done = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "remember",
                           "The ledger migration runs on Friday.", "--home", str(home)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    http = "urllib.request,http.client,ssl,email"
    assert _imported(http, "hydrate", "ledger migration", "--home", str(home)) == []
    assert "ledger migration" in _imported.output
    payload = json.dumps({"session_id": "s1", "transcript_path": "", "cwd": str(tmp_path),
                          "hook_event_name": "UserPromptSubmit",
                          "prompt": "when does the ledger migration run?"})
    assert _imported(http, "hook", "user-prompt", "--home", str(home), "--min-score", "0",
                     stdin=payload, env={"ATC_HOOK_SERVER": "off"}) == []
    assert "Friday" in _imported.output


def test_a_command_opens_prolog_without_importing_pyswip(tmp_path):
    """Where an earlier process found libswipl (libswipl_place.py), a command loads it itself:
    importing pyswip initialised Prolog with pyswip's own arguments and declared ctypes
    signatures for hundreds of C functions, 0.01-0.04 s of CPU in every command that opens a
    home (`atc stats` 0.49 → 0.47 s, 20 runs alternated at load 6)."""
    home = tmp_path / "home"
    home.mkdir()
    first = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "stats", "--home",
                            str(home)], capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr           # keeps where libswipl is, if not yet
    env = {"ATC_PROLOG": "pyswip"}
    assert _imported("pyswip", "stats", "--home", str(home), env=env) == []
    assert "items: 0" in _imported.output
    assert _imported("pyswip", "query", "atom_length(abc, N)", "--home", str(home),
                     env=env) == []
    assert _imported.output.splitlines()[:2] == ["N", "3"]


# Runs `atc --version` through the program's entry point (cli.run), then converts float16 rows
# as a frame's gather does, and prints whether onnxruntime is imported and the rows are exact.
CONVERT_PROBE = (
    "import json, sys\n"
    "blocks = int(sys.argv[1]) if len(sys.argv) > 1 else 1\n"
    "sys.argv = ['atc', '--version']\n"
    "from attention_cloud.cli import run\n"
    "try:\n"
    "    run()\n"
    "except SystemExit as stop:\n"
    "    assert not stop.code, stop.code\n"
    "import numpy as np\n"
    "from attention_cloud.embed import half_floats\n"
    "rows = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)\n"
    "rows = rows.reshape(128, 512)\n"
    "exact = all(np.array_equal(half_floats.to_float32(rows), rows.astype(np.float32),\n"
    "                           equal_nan=True) for _ in range(blocks))\n"
    "print(json.dumps({'exact': exact, 'onnxruntime': 'onnxruntime' in sys.modules}))")


def test_a_command_converts_a_frames_rows_without_loading_onnxruntime():
    """A frame's float16 rows (186 rows of 512 on a 336-item `hash` home) loaded onnxruntime
    for its faster cast: ~0.15 s of CPU to save ~2 ms in a process that ends after the frame
    (every `atc hydrate`, every cold prompt hook). A command converts with numpy, exactly."""
    out = subprocess.run([sys.executable, "-c", CONVERT_PROBE], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1]) == {"exact": True, "onnxruntime": False}


def test_a_command_that_converts_much_loads_onnxruntime_once_it_pays():
    """A long-lived `atc` process (`atc mcp`, the warm recall server, a large curation) still
    gets onnxruntime's cast, once numpy has converted about what the load costs."""
    from attention_cloud.embed import half_floats

    blocks = half_floats.DEFERRED_LOAD_VALUES // (1 << 16) + 2
    out = subprocess.run([sys.executable, "-c", CONVERT_PROBE, str(blocks)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1]) == {"exact": True, "onnxruntime": True}


def test_reading_cells_imports_no_numpy(curated_samples_home):
    """`atc cells list|show|hot` read Prolog facts: the commands' module imported the cells'
    builder (numpy, the partitioning, the row copies), ~0.2 s of CPU a command."""
    home = str(curated_samples_home)
    heavy = "numpy,faiss,attention_cloud.cells.api,attention_cloud.cells.partition"
    assert _imported(heavy, "cells", "list", "--format", "json", "--home", home) == []
    (first, *_) = json.loads(_imported.output.rsplit("\n", 2)[0])
    assert first["size"] >= 1
    assert _imported(heavy, "cells", "show", first["id"], "--home", home) == []
    assert first["id"] in _imported.output
    assert _imported(heavy, "cells", "hot", "--home", home) == []


def test_forget_imports_no_reader_and_its_listing_no_numpy(curated_samples_home):
    """`atc forget H --dry-run` lists what would go: it imported the cells' builder (numpy)
    for the name of a file erasure deletes; and a forget whose items' texts are in memory
    imported every transcript reader and dateutil (~0.15 s of CPU) to read none of them."""
    home = str(curated_samples_home)
    out = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "query", "item(H)",
                          "--limit", "1", "--format", "json", "--home", home],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    handle = json.loads(out.stdout)[0]["H"]
    assert _imported("numpy,faiss,dateutil,attention_cloud.cells.api",
                     "forget", handle, "--dry-run", "--home", home) == []
    assert handle in _imported.output
    readers = "dateutil,attention_cloud.ingest.api,attention_cloud.ingest.collector"
    assert _imported(readers, "forget", handle, "--yes", "--home", home) == []
    assert handle in _imported.output
    gone = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "show", handle,
                           "--home", home], capture_output=True, text=True, timeout=120)
    assert gone.returncode != 0                             # forgotten all the same
