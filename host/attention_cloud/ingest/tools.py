"""What a tool call did, in words: file operations, shell commands, other tools.

Claude Code names its tools (``Read``, ``Write``, ``Edit``, ``MultiEdit``, ``NotebookEdit``,
``Bash``, ``Grep``, ``Glob``, ``Task`` ...); OpenAI-style chats use free function names
(``read_file``, ``write_file``, ``str_replace_based_edit_tool`` ...). Both are mapped here to a
:class:`ToolCall`: the file operation it performs (``read``, ``write``, ``edit`` or none), the path
it touches, a one-line label used to introduce its output, and for file operations a short
description of the change. Shell commands count as file operations only when they obviously
are (``rm``, ``mv``, ``cp``, ``touch``, ``sed -i``, output redirection to a file).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from typing import Any

from .entities import relative_path
from .textutil import collapse_whitespace

LABEL_MAX_CHARS = 200
_OLD_MAX_CHARS = 120
_NEW_MAX_CHARS = 240

_CLAUDE_FILE_TOOLS = {
    "Read": "read",
    "Write": "write",
    "Edit": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
    "NotebookRead": "read",
}
_PATH_KEYS = ("file_path", "path", "absolute_path", "filename", "file", "target_file",
              "notebook_path", "filepath")
_COMMAND_KEYS = ("command", "cmd", "script")
_EDITOR_COMMANDS = {
    "view": "read",
    "create": "write",
    "str_replace": "edit",
    "insert": "edit",
    "undo_edit": "edit",
}
# A function is a shell when its name says so and it takes a command ("Bash", "run_shell",
# "execute_command", "terminal" ...).
_SHELL_WORDS = ("bash", "shell", "command", "terminal", "exec", "cmd")
_WRITE_COMMANDS = frozenset({"rm", "mv", "cp", "touch", "tee", "truncate", "chmod", "ln"})
# Commands whose output is (part of) the file read, which its file_op item records; `wc` is
# not one: its output is a count, an answer kept as the call's result.
_READ_COMMANDS = frozenset({"cat", "head", "tail", "less", "more"})
_REDIRECT = re.compile(r"(?<![0-9&<>])>>?\s*([^\s;&|<>]+)")


#: A file read of a command's output rather than of a file the project keeps: one in a
#: temporary folder (Claude Code writes a background command's output to
#: ``/tmp/claude-<uid>/…/tasks/<id>.output``) or a log. What such a read returns is the only
#: record of that output, so it is kept (a project file's content is not: the file keeps it).
_OUTPUT_FILE = re.compile(r"(?:\A|/)te?mp/|\.(?:log|out|output)\Z", re.IGNORECASE)


@dataclass(frozen=True)
class ToolCall:
    """A tool invocation, understood.

    Attributes:
        name: the tool's name as the transcript spells it.
        op: ``read``, ``write`` or ``edit`` for file operations, else ``""``.
        path: the file a file operation touches (relative to the session's cwd when under it).
        label: one line naming the call, e.g. ``$ pytest -q`` or ``Grep card_number``.
        detail: for file operations, what changed, e.g. ``"old" -> "new"``; may be empty.
        shell: the call runs a shell command.
    """

    name: str
    op: str
    path: str
    label: str
    detail: str = ""
    shell: bool = False

    @property
    def is_file_op(self) -> bool:
        """True when the call reads or changes a file."""
        return bool(self.op and self.path)

    @property
    def reads_output(self) -> bool:
        """True for a read of a command's output or a log (a file in a temporary folder,
        ``*.log``, ``*.output``), whose content no project file keeps."""
        return self.op == "read" and bool(_OUTPUT_FILE.search(self.path))

    @property
    def file_op_links(self) -> tuple[tuple[str, str], ...]:
        """The relations of the item recording a file operation: the file, the operation, the
        tool."""
        return (("touches_file", self.path), ("file_op", self.op), ("tool", self.name))

    def file_op_text(self) -> str:
        """The item text of a file operation: ``edit src/app.py: <what changed>``."""
        head = f"{self.op} {self.path}"
        return f"{head}: {self.detail}" if self.detail else head


def _short(value: Any, limit: int) -> str:
    text = collapse_whitespace(value if isinstance(value, str) else str(value))
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _quoted(value: Any, limit: int) -> str:
    return '"' + _short(value, limit) + '"'


def _first_string(args: dict[str, Any], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _normal_name(name: str) -> str:
    lowered = name.lower()
    return lowered if lowered.isalnum() else re.sub(r"[^a-z0-9]", "", lowered)


def describe_call(name: str, args: Any, cwd: str = "") -> ToolCall:
    """Understand one tool call.

    Args:
        name: tool or function name.
        args: its input (a dict; anything else is treated as no arguments).
        cwd: the session's working directory, to relativise paths.
    """
    if not isinstance(args, dict):
        args = {}
    op = _CLAUDE_FILE_TOOLS.get(name, "")
    if not op:
        norm = _normal_name(name)
        if norm == "sh" or any(word in norm for word in _SHELL_WORDS):
            command = _first_string(args, _COMMAND_KEYS)
            if command:
                return describe_shell(name, command, cwd)
    if not op and _first_string(args, _PATH_KEYS):
        op = _guess_file_op(norm, args)
    if op:
        return describe_file_call(name, op, args, cwd)
    return ToolCall(name, "", "", _label(name, args))


def describe_file_call(name: str, op: str, args: dict[str, Any], cwd: str = "") -> ToolCall:
    """A call known to be the file operation ``op`` (``read``, ``write`` or ``edit``): its path
    from the usual argument names (``path``, ``file_path`` ...) and what it changed; a call
    without a path is not a file operation."""
    raw_path = _first_string(args, _PATH_KEYS)
    if not raw_path:
        return ToolCall(name, "", "", _label(name, args))
    path = relative_path(raw_path, cwd)
    return ToolCall(name, op, path, f"{name} {path}", _change_detail(name, op, args))


def describe_function(function: dict[str, Any], cwd: str = "") -> ToolCall | None:
    """Understand an OpenAI-style function call, ``{"name": ..., "arguments": "<JSON>"}`` (the
    arguments may be a dict already); None when it has no name."""
    name = function.get("name")
    if not isinstance(name, str) or not name:
        return None
    return describe_call(name, function_arguments(function), cwd)


def function_arguments(function: dict[str, Any]) -> dict[str, Any]:
    """The arguments of an OpenAI-style function call, decoded from their JSON text when they
    are text; ``{}`` when they are not an object."""
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            return {}
    return arguments if isinstance(arguments, dict) else {}


def _guess_file_op(norm: str, args: dict[str, Any]) -> str:
    editor_command = args.get("command")
    if isinstance(editor_command, str) and editor_command in _EDITOR_COMMANDS:
        return _EDITOR_COMMANDS[editor_command]
    if any(word in norm for word in ("edit", "replace", "patch", "update", "insert", "append")):
        return "edit"
    if any(word in norm for word in ("write", "create", "save")):
        return "write"
    if any(word in norm for word in ("read", "view", "open", "cat")):
        return "read"
    return ""


def _change_detail(name: str, op: str, args: dict[str, Any]) -> str:
    if op == "read":
        offset, limit = args.get("offset"), args.get("limit")
        if isinstance(offset, int) and isinstance(limit, int):
            return f"lines {offset}-{offset + limit}"
        window = args.get("view_range")  # str_replace_editor's view: [first, last], -1 the end
        if isinstance(window, list) and len(window) == 2 and all(
                isinstance(n, int) and not isinstance(n, bool) for n in window):
            return f"lines {window[0]}-{'end' if window[1] == -1 else window[1]}"
        return ""
    edits = args.get("edits")
    if isinstance(edits, list) and edits and isinstance(edits[0], dict):
        first = _replacement(edits[0])
        count = f"{len(edits)} edits" if len(edits) > 1 else "1 edit"
        return f"{count}; first {first}" if first else count
    replacement = _replacement(args)
    if replacement:
        return replacement
    content = _first_string(
        args, ("content", "file_text", "new_source", "text", "new_str", "contents")
    )
    if content:
        lines = content.count("\n") + (0 if content.endswith("\n") else 1)
        mode = args.get("edit_mode")
        plural = "line" if lines == 1 else "lines"
        prefix = f"{mode} cell" if isinstance(mode, str) else f"{lines} {plural}"
        return f"{prefix}, starting {_quoted(content, _NEW_MAX_CHARS)}"
    return ""


def _replacement(args: dict[str, Any]) -> str:
    old = _first_string(args, ("old_string", "old_str", "old_text", "search"))
    new = args.get("new_string", args.get("new_str", args.get("new_text", args.get("replace"))))
    if not old and not isinstance(new, str):
        return ""
    new_text = _quoted(new, _NEW_MAX_CHARS) if isinstance(new, str) and new.strip() else "nothing"
    return f"{_quoted(old, _OLD_MAX_CHARS)} -> {new_text}" if old else f"insert {new_text}"


def _label(name: str, args: dict[str, Any]) -> str:
    """One line naming a non-file call by its most telling argument."""
    for key in ("pattern", "query", "url", "description", "prompt", "path", "subject", "name"):
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return _short(f"{name} {value}", LABEL_MAX_CHARS)
    for value in args.values():
        if (
            isinstance(value, (str, int, float))
            and not isinstance(value, bool)
            and str(value).strip()
        ):
            return _short(f"{name} {value}", LABEL_MAX_CHARS)
    return name


def describe_shell(name: str, command: str, cwd: str = "") -> ToolCall:
    """A call that runs the shell command ``command``: labelled ``$ command``, and a file
    operation when the command obviously is one (see :func:`_shell_file_op`)."""
    label = _short("$ " + command, LABEL_MAX_CHARS)
    op, path = _shell_file_op(command)
    if op and path:
        return ToolCall(
            name, op, relative_path(path, cwd), label, _short(command, _NEW_MAX_CHARS), True
        )
    return ToolCall(name, "", "", label, shell=True)


def _shell_file_op(command: str) -> tuple[str, str]:
    """``(op, path)`` for one simple shell command that obviously touches a file.

    Compound commands (pipes, ``&&``, ``;``, several lines) are left alone: which file they
    touch is a guess, and a wrong ``touches_file`` link is worse than none.
    """
    if len(command) > 500 or any(sep in command for sep in ("\n", "&&", "||", "|", ";", "`", "$(")):
        return "", ""
    redirect = _REDIRECT.search(command) if ">" in command else None
    if redirect:
        target = redirect.group(1)
        return ("", "") if target.startswith(("/dev/", "&")) else ("write", target)
    first_word = command.split(None, 1)[0] if command.strip() else ""
    if (
        first_word not in _WRITE_COMMANDS
        and first_word not in _READ_COMMANDS
        and first_word != "sed"
    ):
        return "", ""
    try:
        words = shlex.split(command)
    except ValueError:
        return "", ""
    if len(words) < 2:
        return "", ""
    program, operands = words[0], [w for w in words[1:] if not w.startswith(("-", "+"))]
    if not operands:
        return "", ""
    if program == "sed" and any(w.startswith("-i") for w in words[1:]):
        return "edit", operands[-1]
    if program in _WRITE_COMMANDS:
        return "write", operands[-1]
    if program in _READ_COMMANDS:
        return "read", operands[0]
    return "", ""
