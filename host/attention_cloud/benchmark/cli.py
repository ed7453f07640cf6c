"""``atc bench attention``: run the attention benchmark and write its report.

A thin layer over :func:`~.api.run_attention_benchmark`; the lead mounts :data:`bench_attention`
under the ``atc bench`` group.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..cli_base import OneLineError, command
from ..errors import AtcError, UsageError, one_line
from ..progress import ProgressDisplay
from .api import BenchOptions, run_attention_benchmark
from .interface import INTERFACE_SCHEMA, OBSERVATION_SCHEMA
from .runner import CONDITION_CHOICES, MODE_CHOICES


@command("attention")
@click.option("--families", default="all", show_default=True,
              help="'all' or a comma list of family letters or slugs (A-J, e.g. 'B,budgeted').")
@click.option("--trials", type=click.IntRange(min=1), default=200, show_default=True,
              help="Trials per family (the first N seeds).")
@click.option("--policies", default="all", show_default=True,
              help="'all' or a comma list of policy names.")
@click.option("--policy-cmd", default=None, metavar="CMD",
              help="Also score an outside policy speaking JSON lines on stdin/stdout.")
@click.option("--policy-timeout", type=float, default=30.0, show_default=True,
              help="Seconds an outside policy may take per message.")
@click.option("--conditions", type=click.Choice(CONDITION_CHOICES), default="default",
              show_default=True,
              help="'default': announced everywhere, plus unprompted for families B, E, I.")
@click.option("--mode", type=click.Choice(MODE_CHOICES), default="family", show_default=True,
              help="Oracle and inspection protocol: each family's own, or forced.")
@click.option("--seeds-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Take seeds from this file (hold-out seeds live outside the repository).")
@click.option("--sealed", is_flag=True,
              help="Hold-out run: print only aggregates and failure categories.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Write the results as JSON (one row per family and policy).")
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Also write the markdown report to this file.")
@click.option("--plots", "plots_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Write PNG plots into this directory.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes.")
@click.option("--print-schema", is_flag=True,
              help="Print the policy-visible JSON schemas and exit.")
def bench_attention(families: str, trials: int, policies: str, policy_cmd: str | None,
                    policy_timeout: float, conditions: str, mode: str, seeds_file: Path | None,
                    sealed: bool, json_path: Path | None, markdown_path: Path | None,
                    plots_dir: Path | None, jobs: int, print_schema: bool) -> None:
    """Score attention policies on synthetic trials with ground truth by construction.

    Every family (A-J) is generated from paired seeds; the oracle is exact (exhaustive subsets
    for the static family G, dynamic programming otherwise). Prints a markdown report.

    Example: atc bench attention --families all --trials 200 --plots bench-out/attention
    """
    if print_schema:
        click.echo(json.dumps({"scenario": INTERFACE_SCHEMA, "observation": OBSERVATION_SCHEMA},
                              indent=2))
        return
    options = BenchOptions(families=families, trials=trials, policies=policies,
                           policy_cmd=policy_cmd, policy_timeout_s=policy_timeout,
                           conditions=conditions, mode=mode, seeds_file=seeds_file,
                           sealed=sealed, json_path=json_path, markdown_path=markdown_path,
                           plots_dir=plots_dir, jobs=jobs)
    try:
        with ProgressDisplay() as show:  # a bar per family on a terminal, else a line each
            outcome = run_attention_benchmark(options, progress=show)
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None
    except AtcError as exc:
        raise OneLineError(one_line(exc, "cli"), exc.exit_code) from None
    click.echo(outcome.markdown)
    for path in outcome.written:
        click.echo(f"wrote {path}", err=True)
    sys.stdout.flush()
