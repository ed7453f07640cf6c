"""README's command table names every option each command takes, and no option it lacks.

The table under "Command line" is what a user reads instead of ``--help``: an option missing
there (``atc curate --format``, ``atc hook user-prompt --plane``) is one they never learn of,
and one named there that the command lacks fails when they type it. Commands the table names
by name only (the attention controller's, which README sends to its own section and
docs/attention.md) are listed in ELSEWHERE.
"""
from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from attention_cloud.cli import main
from readme_tables import first_cells

README = Path(__file__).resolve().parent.parent / "README.md"

#: Commands the table names without their options, with where a user reads about them.
_ATTENTION = "README's Attention section and docs/attention.md (each command's --help lists all)"
ELSEWHERE = {(name,): _ATTENTION
             for name in ("belief", "source", "goal", "attend", "inspect", "claim", "trace")}
#: Every command that uses a home takes --home (said once above the table), and -h/--help.
EVERYWHERE = {"--home", "--help"}


def _rows() -> list[str]:
    return first_cells("| command | what it does |")


def _commands() -> dict[tuple[str, ...], click.Command]:
    ctx = click.Context(main)
    found: dict[tuple[str, ...], click.Command] = {}

    def walk(group: click.Group, path: tuple[str, ...]) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            if isinstance(command, click.Group):
                walk(command, (*path, name))
            else:
                found[(*path, name)] = command
    walk(main, ())
    return found


def _named(span: str, previous: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The commands one backticked span of a cell names: ``atc principal list\\|remove NAME``
    names two; a bare ``query`` after ``atc hydrate`` names a sibling of it."""
    words = span.replace("\\|", "|").split()
    if words and words[0] == "atc":
        path: list[list[str]] = []
        for word in words[1:]:
            if not re.fullmatch(r"[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)*", word):
                break
            path.append(word.split("|"))
        found = [()]
        for choices in path:
            found = [(*p, choice) for p in found for choice in choices]
        return [p for p in found if p in COMMANDS]
    if len(words) == 1 and previous:
        sibling = (*previous[-1][:-1], words[0])
        return [sibling] if sibling in COMMANDS else []
    return []


def _documented() -> dict[tuple[str, ...], set[str]]:
    """Per command the table names: the options its spans show, and the options of spans
    that name no command (``(each `[--format text|json]`)``, ``--as PRINCIPAL``), which apply
    to every command of their cell."""
    named: dict[tuple[str, ...], set[str]] = {}
    for cell in _rows():
        in_cell: list[tuple[str, ...]] = []
        shared: set[str] = set()
        for span in re.findall(r"`([^`]*)`", cell):
            options = set(re.findall(r"--[a-z][a-z0-9-]*", span))
            paths = _named(span, in_cell)
            for path in paths:
                named.setdefault(path, set()).update(options)
            in_cell += paths
            if not paths:
                shared |= options
        for path in in_cell:
            named[path] |= shared
    return named


def _options(command: click.Command) -> list[list[str]]:
    """Each option's long names (a flag pair's both names: either may be the one shown)."""
    return [[name for name in (*param.opts, *param.secondary_opts) if name.startswith("--")]
            for param in command.params if isinstance(param, click.Option)]


COMMANDS = _commands()


def test_the_table_names_every_command():
    assert set(COMMANDS) - set(_documented()) == set()


@pytest.mark.parametrize("path", sorted(p for p in COMMANDS if p[:1] not in ELSEWHERE),
                         ids=" ".join)
def test_the_table_names_the_options_each_command_takes(path):
    shown = _documented()[path]
    missing = [names[0] for names in _options(COMMANDS[path])
               if not set(names) & (shown | EVERYWHERE)]
    assert missing == [], f"atc {' '.join(path)}: README's table lacks {missing}"


def test_every_option_the_table_names_exists():
    """An option the table shows for a command is one it takes (a renamed option fails)."""
    wrong = {" ".join(path): sorted(shown - EVERYWHERE - {name for names in _options(COMMANDS[path])
                                                          for name in names})
             for path, shown in _documented().items()}
    assert {path: names for path, names in wrong.items() if names} == {}


def test_docs_attention_names_every_option_of_the_attention_commands():
    """The commands README sends to docs/attention.md: each option there, as --help has it
    (``--observed-at``, ``--switch-cost`` and ``--untrusted`` were in --help alone)."""
    doc = (README.parent / "docs" / "attention.md").read_text(encoding="utf-8")
    commands = _commands()
    missing = sorted(f"atc {' '.join(path)} {opt}"
                     for path, command in commands.items() if path[:1] in ELSEWHERE
                     for param in command.params if isinstance(param, click.Option)
                     for opt in param.opts if opt.startswith("--")
                     and opt not in EVERYWHERE and f"`{opt}" not in doc)
    assert not missing, missing


def _shown_choices() -> dict[tuple[tuple[str, ...], str], set[str]]:
    """Per command and option, the values the table lists after it (``--format text\\|json``)."""
    shown: dict[tuple[tuple[str, ...], str], set[str]] = {}
    for cell in _rows():
        in_cell: list[tuple[str, ...]] = []
        for span in re.findall(r"`([^`]*)`", cell):
            paths = _named(span, in_cell)
            in_cell += paths
            for option, values in re.findall(r"(--[a-z][a-z0-9-]*) \[?([A-Za-z0-9.-]+(?:\\\|"
                                             r"[A-Za-z0-9.-]+)+)", span):
                for path in paths:
                    shown.setdefault((path, option), set()).update(values.split("\\|"))
    return shown


def test_the_values_the_table_lists_for_an_option_are_the_ones_it_takes():
    """A choice the table leaves out (``--format claude-ai`` of atc ingest) is one a user
    never learns of; one it lists that the option refuses fails when typed."""
    wrong = {}
    for (path, option), values in _shown_choices().items():
        params = [p for p in COMMANDS[path].params
                  if isinstance(p, click.Option) and option in p.opts]
        if not params or not isinstance(params[0].type, click.Choice):
            continue
        takes = {str(c) for c in params[0].type.choices}
        if values != takes:
            wrong[f"atc {' '.join(path)} {option}"] = (sorted(takes - values),
                                                       sorted(values - takes))
    assert wrong == {}, "(missing from README, not taken): " + repr(wrong)


def _shown_arity() -> list[tuple[tuple[str, ...], str, bool, str]]:
    """(command, option, whether the table shows it taking a value, the span) for each option
    a span shows: ``--limit N`` and ``--format text\\|json`` take one, ``--dry-run`` and
    ``[--yes]`` none (an option followed by another, a bracket or nothing)."""
    shown = []
    for cell in _rows():
        in_cell: list[tuple[str, ...]] = []
        for span in re.findall(r"`([^`]*)`", cell):
            paths = _named(span, in_cell)
            in_cell += paths
            for option, sep, after in re.findall(r"(--[a-z][a-z0-9-]*)(=| )?(\S*)", span):
                takes = bool(sep) and bool(after) and not after.lstrip("[").startswith("-") \
                    and not after.startswith(("]", "|", "\\|"))
                shown += [(path, option, takes, span) for path in paths]
    return shown


def test_an_option_shown_with_a_value_takes_one_and_one_shown_bare_is_a_flag():
    """``--watch`` shown with a value is refused as an extra argument when typed so, and
    ``--limit`` shown bare takes the next word as its value."""
    wrong = []
    for path, option, takes, span in _shown_arity():
        params = [p for p in COMMANDS[path].params
                  if isinstance(p, click.Option) and option in (*p.opts, *p.secondary_opts)]
        if params and (params[0].is_flag or params[0].count) == takes:
            wrong.append(f"atc {' '.join(path)} {option}: shown {'with' if takes else 'without'}"
                         f" a value in `{span}`")
    assert wrong == []


def _command_line_section() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("\n## Command line\n", 1)[1].split("\n## ", 1)[0]


def test_the_commands_said_to_take_no_home_are_the_ones_without_home():
    """"Every command that uses a memory home (all but `atc bench` and `atc uninstall`) takes
    `--home DIR`": the groups it names are exactly those whose commands lack it."""
    said = re.search(r"\(all but ([^)]*)\) takes `--home", _command_line_section())
    assert said, "README no longer says which commands take no --home"
    named = {tuple(span.split()[1:]) for span in re.findall(r"`(atc [a-z -]+)`", said.group(1))}
    lacking = {path for path, command in COMMANDS.items()
               if not any("--home" in p.opts for p in command.params
                          if isinstance(p, click.Option))}
    assert {path[:1] for path in lacking} == named


def test_atc_s_own_options_are_named_in_the_command_line_section():
    """``atc --version`` was in ``atc --help`` alone."""
    section = _command_line_section()
    missing = [opt for param in main.params if isinstance(param, click.Option)
               for opt in param.opts if opt.startswith("--") and f"atc {opt}" not in section]
    assert missing == []
