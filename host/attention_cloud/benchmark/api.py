"""The library entry point behind ``atc bench attention``."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import AtcError, UsageError
from ..progress import ProgressCallback
from .families import resolve_families
from .freeze import freeze_record, seeds_hash
from .policies import resolve_policy_names
from .report import build_report, render_markdown
from .runner import BenchResult, BenchSettings, run_benchmark, summarise_settings
from .seeds import DEV_SEEDS_FILE, dev_seeds, inside_repository, load_seeds


@dataclass(frozen=True)
class BenchOptions:
    """Everything ``atc bench attention`` accepts, as library arguments."""

    families: str = "all"
    trials: int = 200
    policies: str = "all"
    policy_cmd: str | None = None
    policy_timeout_s: float = 30.0
    conditions: str = "default"
    mode: str = "family"
    seeds_file: Path | None = None
    sealed: bool = False
    json_path: Path | None = None
    markdown_path: Path | None = None
    plots_dir: Path | None = None
    jobs: int = 1


@dataclass
class BenchOutcome:
    """The report (plain data and markdown), the raw result, and the files written."""

    report: dict[str, Any]
    markdown: str
    result: BenchResult
    written: list[Path] = field(default_factory=list)


def _seeds(options: BenchOptions) -> tuple[list[int], str]:
    if options.seeds_file is None:
        if options.sealed:
            raise UsageError("--sealed needs --seeds-file: hold-out seeds must come from a file "
                             "kept outside the repository")
        return dev_seeds(), str(DEV_SEEDS_FILE.name)
    if options.sealed and inside_repository(options.seeds_file):
        raise UsageError(f"{options.seeds_file} is inside the repository; a readable hold-out "
                         "is not held out")
    seeds = load_seeds(options.seeds_file)
    return seeds, "external seeds file" if options.sealed else str(options.seeds_file)


def _check_policy_cmd(options: BenchOptions) -> None:
    # A negative or NaN timeout reached queue.get() as a traceback (or never timed out), and
    # an empty command was silently dropped: refuse both before anything runs.
    if options.policy_cmd is not None and not options.policy_cmd.strip():
        raise UsageError("--policy-cmd is empty")
    timeout = options.policy_timeout_s
    if not (isinstance(timeout, (int, float)) and 0 < timeout < math.inf):
        raise UsageError(f"--policy-timeout must be a positive number of seconds, not {timeout}")


def _check_outputs(options: BenchOptions) -> None:
    # Make the output folders before the run, not after it: a path under a file was a
    # FileExistsError traceback once every trial had been spent.
    for flag, path, folder in (("--json", options.json_path, False),
                               ("--markdown", options.markdown_path, False),
                               ("--plots", options.plots_dir, True)):
        if path is None:
            continue
        try:
            (path if folder else path.parent).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"{flag} {path}: cannot write there ({exc.strerror or exc})") from None


def run_attention_benchmark(options: BenchOptions, *,
                            progress: ProgressCallback | None = None) -> BenchOutcome:
    """Run the benchmark described by ``options`` and write the requested outputs;
    ``progress`` hears of the trials done (see :func:`~.runner.run_benchmark`)."""
    _check_policy_cmd(options)
    _check_outputs(options)
    try:
        families = resolve_families(options.families)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    names, notes = resolve_policy_names(options.policies)
    seeds, source = _seeds(options)
    if options.trials > len(seeds):
        raise UsageError(f"--trials {options.trials} exceeds the {len(seeds)} seeds available")
    seeds = seeds[:options.trials]
    settings = BenchSettings(families=tuple(f.code for f in families), seeds=tuple(seeds),
                             policies=tuple(names), conditions=options.conditions,
                             mode=options.mode, policy_cmd=options.policy_cmd,
                             policy_timeout_s=options.policy_timeout_s, jobs=options.jobs)
    freeze = freeze_record(summarise_settings(settings, source, seeds_hash(seeds), options.sealed))
    result = run_benchmark(settings, progress=progress)
    result.notes = notes + result.notes
    report = build_report(result, freeze, sealed=options.sealed)
    markdown = render_markdown(report)
    written: list[Path] = []
    if options.json_path is not None:
        _write(options.json_path, json.dumps(report, indent=1) + "\n")
        written.append(options.json_path)
    if options.markdown_path is not None:
        _write(options.markdown_path, markdown + "\n")
        written.append(options.markdown_path)
    if options.plots_dir is not None:
        from .plots import write_plots

        written += write_plots(report, result.records, options.plots_dir,
                               ["oracle"] + list(settings.policy_names()))
    return BenchOutcome(report, markdown, result, written)


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise AtcError(f"cannot write {path}: {exc.strerror or exc}") from None
