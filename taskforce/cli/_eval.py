"""`taskforce eval`: run a suite in several arms, show progress and tables, write reports."""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from taskforce.cli._safe import cell, json_text, one_line
from taskforce.cli._settings import _key_var, missing_key
from taskforce.errors import ConfigurationError, FileAccessError, ProviderError
from taskforce.plan.text import plural, scrub

if TYPE_CHECKING:
    from taskforce.evals import EvalResult, Progress, ResultStore, RunRecord, Summary
    from taskforce.evals.runner import ModelFactory

DEFAULT_RESULTS = "taskforce-eval.jsonl"


@dataclass(frozen=True)
class EvalOptions:
    """What `taskforce eval` was asked to do."""

    suite: str = "builtin"
    model: str | None = None
    api_base: str | None = None
    arms: str = "none,planner"
    repeat: int = 1
    limit: int | None = None
    missions: tuple[str, ...] = ()
    json_path: Path | None = None
    results: Path = Path(DEFAULT_RESULTS)
    report: Path | None = None
    baseline: Path | None = None
    max_steps: int = 20
    timeout: float = 900.0
    context_window: int | None = None
    temperature: float = 0.0
    seed: int = 0
    setup: str | None = None
    plain: bool = False
    report_only: bool = False
    notes: Path | None = None
    rerun: bool = False
    """Not part of :func:`command_line`: the command that resumes the runs leaves it out."""
    exact_tokens: bool | None = None
    """True: count exactly on the server; False: estimate; None: exact if the server can."""
    remeasure: bool = False
    """Not part of :func:`command_line` either: it runs nothing."""
    rejudge: bool = False
    """Nor this: it runs no model."""


def command_line(options: EvalOptions) -> str:
    """The `taskforce eval` command line that asks for `options` (defaults left out)."""
    default = EvalOptions()
    flags = {"suite": "--suite", "model": "--model", "api_base": "--api-base", "arms": "--arms",
             "repeat": "--repeat", "limit": "--limit", "json_path": "--json",
             "results": "--results", "report": "--report", "baseline": "--baseline",
             "max_steps": "--max-steps", "timeout": "--timeout",
             "context_window": "--context-window", "temperature": "--temperature",
             "seed": "--seed", "setup": "--setup",
             "notes": "--notes"}  # fmt: skip
    always = () if options.report_only else ("suite", "arms", "max_steps")  # defaults change
    words = ["taskforce", "eval"]
    for field, flag in flags.items():
        value = getattr(options, field)
        if value is not None and (field in always or value != getattr(default, field)):
            words += [flag, str(value)]
    words += [w for m in options.missions for w in ("--mission", m)]
    if options.exact_tokens is not None and not options.report_only:
        words += ["--exact-tokens" if options.exact_tokens else "--estimated-tokens"]
    words += ["--report-only"] if options.report_only else []
    return shlex.join(words)


def model_factory(options: EvalOptions) -> tuple[ModelFactory, dict[str, Any]]:
    """The model of every run: offline (default), reference replay, or a litellm model.

    Also the settings of that model the results record (a litellm model's reply cap).
    """
    from taskforce.evals import REFERENCE, litellm_factory, reference_model
    from taskforce.evals.engine import DEFAULT_MAX_TOKENS

    name = (options.model or "offline").strip()
    if name == REFERENCE:
        return reference_model, {}
    if name.lower() == "offline":
        from taskforce.models.offline import OfflineModel

        return (lambda _mission, _arm: OfflineModel()), {}
    if var := missing_key(name, options.api_base, os.environ):
        raise ConfigurationError(f"model {name!r} needs an API key: set {var} (or --api-base)")
    var = _key_var(name) if options.api_base else None
    key = "sk-no-key-required" if var and not os.environ.get(var, "").strip() else None
    factory = litellm_factory(  # one request may take as long as the run may (slow models)
        name, api_base=options.api_base, api_key=key, context_window=options.context_window,
        timeout=options.timeout, max_tokens=DEFAULT_MAX_TOKENS,
    )  # fmt: skip
    return factory, {"max_tokens": DEFAULT_MAX_TOKENS}


def run_eval(options: EvalOptions, console: Console) -> int:
    """Run (or resume) the evaluation; print tables; write JSON and the report. Exit code.

    The files it will write or read besides the results are checked first, so a mistake
    in one of them is found before an evaluation of hours, not after it.
    """
    from taskforce.evals import ResultStore, RunSettings, evaluate, load_suite

    command = command_line(options)
    if options.report_only and options.report is None:
        raise ConfigurationError("--report-only needs --report FILE")
    notes = check_files(options)
    if options.report_only:
        write_report(options, command, notes, console)
        console.print(f"Report: {options.report} (from stored results; nothing run)")
        return 0
    suite = load_suite(options.suite)
    if options.rejudge:
        from taskforce.cli._eval_rejudge import rejudge_command

        rejudge_command(options, suite, console)
        if options.report is not None:
            write_report(options, command, notes, console)
            console.print(f"Report: {options.report}")
        return 0
    from taskforce.cli._eval_tokens import remeasure_command, token_counter, with_server_window

    counter = token_counter(options, console)
    if options.remeasure and counter is not None:  # (--remeasure always has a counter)
        remeasure_command(options, suite, counter, console)
        if options.report is not None:
            write_report(options, command, notes, console)
            console.print(f"Report: {options.report}")
        return 0
    options = with_server_window(options, console)
    settings = RunSettings(
        options.max_steps, options.timeout, options.context_window, options.temperature,
        options.seed,
    )  # fmt: skip
    store = ResultStore(options.results)
    factory, settings_of_model = model_factory(options)
    meta = {"argv": command, "temperature": options.temperature, "setup": options.setup or "",
            **settings_of_model}  # fmt: skip
    with _progress(console, options.plain) as on_progress:
        try:
            result = asyncio.run(
                evaluate(
                    suite,
                    factory,
                    arms=options.arms,
                    repeat=options.repeat,
                    missions=options.missions,
                    limit=options.limit,
                    settings=settings,
                    results=store,
                    on_progress=on_progress,
                    meta=meta,
                    rerun=options.rerun,
                    counter=counter,
                )
            )
        except ProviderError as exc:  # the run it stopped is not stored: a rerun makes it
            same = "the same command without --rerun" if options.rerun else "the same command"
            raise type(exc)(
                f"{exc}; the evaluation stopped there: the runs finished before are stored in "
                f"{str(options.results)!r}, and {same} resumes",
                retryable=exc.retryable,
            ) from exc
    warn_damaged(store, console, "a run one held ran again")
    found = f"{plural(result.ran, 'run')} made, {result.reused} found in {options.results}"
    if result.reused:
        found += " (stored runs are not run again: --rerun runs them again)"
    console.print(found)
    summary_table(result.summary, console)
    if options.json_path is not None:
        write_json(result, options.json_path)
        console.print(f"JSON results: {options.json_path}")
    if options.report is not None:
        write_report(options, command, notes, console)
        console.print(f"Report: {options.report}")
    return 0


def check_files(options: EvalOptions) -> str:
    """Refuse unusable file options before anything runs; the text of --notes ("" if none).

    Raises:
        FileAccessError: --notes cannot be read as text, --json or --report is a folder or
            a file another option names (the results: writing would lose them), or
            --report-only has no results to report (no --results file, no --baseline).
    """
    named: dict[Path, str] = {}  # inputs first, so an output over one of them is found
    for flag, path, output in [
        ("--results", options.results, False), ("--baseline", options.baseline, False),
        ("--notes", options.notes, False), ("--json", options.json_path, True),
        ("--report", options.report, True),
    ]:  # fmt: skip
        if path is None:
            continue
        if output and path.is_dir():
            raise FileAccessError(f"{flag} {str(path)!r} is a folder; give a file path")
        same = named.setdefault(path.resolve(), flag)
        if output and same != flag:  # writing it would lose what it holds
            raise FileAccessError(f"{flag} {str(path)!r} is the {same} file too; give another file")
    if options.report_only:  # without a baseline, the results are all there is to report
        flag, path = (
            ("--baseline", options.baseline) if options.baseline else ("--results", options.results)
        )
        if not path.is_file():
            raise FileAccessError(f"{flag} {str(path)!r}: no such file, so nothing to report")
    if options.notes is None:
        return ""
    try:
        return options.notes.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise FileAccessError(f"--notes {str(options.notes)!r} is not UTF-8 text") from exc
    except OSError as exc:
        raise FileAccessError.of(exc, f"cannot read --notes {str(options.notes)!r}") from exc


def warn_damaged(store: ResultStore, console: Console, effect: str) -> None:
    """Say which lines of a results file were skipped as damaged (they stay in the file)."""
    if store.damaged:
        shown = ", ".join(map(str, store.damaged[:10])) + (
            ", ..." if len(store.damaged) > 10 else ""
        )
        console.print(
            f"warning: {plural(len(store.damaged), 'damaged line')} in {one_line(store.path)} "
            f"skipped (line {shown}): not UTF-8, not JSON or not a run; {effect}, and the "
            "lines stay in the file",
            markup=False,
            highlight=False,
        )


def _write(flag: str, path: Path, text: str) -> None:
    """Write `text` to `path` (its folder made first); FileAccessError naming `flag`."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise FileAccessError.of(exc, f"cannot write {flag} {str(path)!r}") from exc


def write_json(result: EvalResult, path: Path) -> None:
    """Summary and every run (without transcripts) as one JSON document."""
    data = {
        "summary": result.summary.as_dict(),
        "runs": [r.as_dict(transcript=False) for r in result.records],
    }
    _write("--json", path, json_text(data) + "\n")  # a lone surrogate is written escaped


def write_report(options: EvalOptions, command: str, notes: str, console: Console) -> None:
    """The Markdown report of the results file (and the baseline file, when named)."""
    from taskforce.evals import ResultStore, render_report

    same = options.baseline is not None and options.baseline.resolve() == options.results.resolve()
    current_store = None if same else ResultStore(options.results)
    baseline_store = ResultStore(options.baseline) if options.baseline else None
    current = current_store.latest() if current_store else []
    baseline = baseline_store.latest() if baseline_store else []
    for store in (current_store, baseline_store):
        if store is not None:
            warn_damaged(store, console, "the report leaves them out")
    text = render_report(
        current, baseline, command=command, baseline_path=options.baseline,
        current_path=None if same else options.results, notes=notes,
    )  # fmt: skip
    _write("--report", options.report, scrub(text))  # type: ignore[arg-type]


def summary_table(summary: Summary, console: Console) -> None:
    """The per-arm table, the per-tag table (when missions have tags), the comparisons."""
    table = Table(title="taskforce eval")
    for column in ("suite", "arm", "solved", "95% CI", "false compl.", "no-work ticks",
                   "crashes", "turns/run", "in tok/run", "planning"):  # fmt: skip
        table.add_column(column, justify="left" if column in ("suite", "arm") else "right")
    for a in summary.arms:
        per = max(a.runs, 1)
        table.add_row(
            cell(a.suite), cell(a.arm), f"{a.solved}/{a.runs}", f"{a.low:.0%}-{a.high:.0%}",
            str(a.false_completions), str(a.no_work_ticks), str(a.crashes),
            f"{a.turns / per:.1f}", f"{a.input_tokens // per:,}", f"{a.planning_share:.0%}",
        )  # fmt: skip
    console.print(table)
    for a in summary.arms:
        if (fresh := a.fresh) is not None:  # counted exactly: what a prompt cache processes
            console.print(
                f"{a.suite}:{a.arm}: fresh input {fresh.fresh_a_run:,} "
                f"a run ({fresh.fresh_share:.0%} of the input; planning {fresh.planning_share:.0%}"
                f" of it; {fresh.runs} of {a.runs} runs counted)",
                markup=False,
            )
    arms, rows = summary.tag_rows()
    if rows:
        tags = Table(title="by mission tag (solved/runs, F false completions, planning)")
        for column in ("suite", "tag", *arms):
            tags.add_column(cell(column))
        for suite, tag, cells in rows:
            tags.add_row(cell(suite), cell(tag), *cells)
        console.print(tags)
    for a in summary.arms:
        if len(a.paths) > 1:
            each = ", ".join(f"{p.solved}/{p.runs}" for p in a.paths)
            console.print(f"{cell(a.arm)}: solved per repeat {each}", markup=False)
    for c in summary.comparisons:
        console.print(
            f"{c.a} vs {c.b}: both {c.both}, only A {c.only_a}, only B {c.only_b}, neither "
            f"{c.neither}; A - B = {c.difference:+.0%} ({c.low:+.0%} to {c.high:+.0%}), "
            f"McNemar p = {c.p_value:.3g}"
        )


def _verdict(record: RunRecord) -> str:
    """``solved``, ``solved (max_steps)``, or ``not solved (status): why`` in one line.

    Why: the checker's reason (what it found in the world, or the error it raised), or
    the run's first error when it crashed.
    """
    status = one_line(record.status)
    if record.solved:
        return "solved" if record.status == "completed" else f"solved ({status})"
    why = record.errors[0] if record.crashed and record.errors else record.reason
    return f"not solved ({status})" + (f": {one_line(why)[:160]}" if why else "")


class _progress:
    """A rich progress bar on a terminal, plain lines otherwise."""

    def __init__(self, console: Console, plain: bool) -> None:
        self.console = console
        self.plain = plain or not console.is_terminal
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> Any:
        if not self.plain:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self.bar = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(), console=self.console,
            )  # fmt: skip
            self.bar.start()
        return self.update

    def update(self, p: Progress) -> None:
        if self.task is None and self.bar is not None:
            self.task = self.bar.add_task("eval", total=p.total)
        r = p.record
        if r is None:
            return
        what = one_line(f"{r.key.mission} [{r.key.arm}#{r.key.repeat}]")  # names are data
        verdict = _verdict(r)
        line = f"{p.done}/{p.total} {what}: {verdict}" + (" (stored)" if p.reused else "")
        if self.plain:
            print(line, file=sys.stderr, flush=True)
            return
        self.bar.update(self.task, completed=p.done, description=escape(what))
        if not p.reused:
            text = f"{line} — {r.seconds:.0f} s, {r.turns} turns"
            self.bar.console.print(text, markup=False, highlight=False)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
