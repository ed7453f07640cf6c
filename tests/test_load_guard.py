"""A library autoloaded inside a call that a limit aborts is loaded whole for the next caller
(rules/load_guard.pl).

The watchdog stops a call with abort/0 sent as a signal; one that landed while SWI-Prolog 9.0
autoloaded a library left the library held as loaded but unusable, for every later caller of
the process: a grantee's `isub(abc, abd, D, [])` stopped by `time_limit=0.2` while library(isub)
loaded library(option) left `isub:option/3` unknown for the next grantee and the owner alike.
Each trial is a fresh swipl (a library loads once a process): a thread autoloads
library(heaps), whose first clause is read slowly so the load spans the trial's delays, and
is sent abort/0 after a few milliseconds, as the watchdog sends it; then the next caller
uses the library. Without the guard most trials broke it (`Unknown procedure:
list_to_heap/2`).
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

GUARD = Path(__file__).resolve().parent.parent / "rules" / "load_guard.pl"

TRIAL = r"""
:- dynamic slow_when_loading_/1.
:- multifile system:term_expansion/2.      % libraries' modules inherit from system, not user
system:term_expansion(_, _) :-
    prolog_load_context(module, M), retract(slow_when_loading_(M)), sleep(0.5), fail.

trial :-
    current_prolog_flag(argv, [Delay0|_]), atom_number(Delay0, Delay),
    assertz(slow_when_loading_(heaps)),
    thread_create(list_to_heap([1-a], _), T, []),
    sleep(Delay),
    catch(thread_signal(T, abort), _, true),         % it may have ended already
    thread_join(T, _),
    catch(( list_to_heap([2-b], H), heap_size(H, N) ), E, N = E),
    format("next caller: ~q~n", [N]).
:- initialization(trial, main).
"""


@pytest.mark.parametrize("delay", ["0.005", "0.01", "0.015", "0.02", "0.03"])
def test_a_library_whose_autoload_an_abort_cut_short_is_whole_for_the_next_caller(
        tmp_path, delay):
    swipl = shutil.which("swipl")
    assert swipl, "swipl must be on PATH (scripts/setup installs it)"
    script = tmp_path / "trial.pl"
    script.write_text(TRIAL, encoding="utf-8")
    proc = subprocess.run([swipl, "-q", "-g", f"use_module({str(GUARD)!r})", str(script), delay],
                          capture_output=True, text=True, timeout=120)
    assert "next caller: 1" in proc.stdout, proc.stdout + proc.stderr
