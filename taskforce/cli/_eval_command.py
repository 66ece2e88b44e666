"""The `taskforce eval` command's options (typer only: `--help` stays fast)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from taskforce.cli._errors import reporting
from taskforce.cli._options import ApiBaseOpt, ModelOpt, PlainOpt


def eval_command(
    ctx: typer.Context,
    suite: Annotated[
        str,
        typer.Option(
            "--suite", help="builtin, holdout, bfcl-multi-turn, or a .py file (see --list)."
        ),
    ] = "builtin",
    model: ModelOpt = None,
    api_base: ApiBaseOpt = None,
    arms: Annotated[
        str,
        typer.Option(
            "--arms",
            help="Comma-separated: none, planner, NAME=planner+OPTION=VALUE (LeanAgent options).",
        ),
    ] = "none,planner",
    repeat: Annotated[int, typer.Option("--repeat", min=1, help="Runs per mission and arm.")] = 1,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Only the first N missions.")
    ] = None,
    mission: Annotated[
        list[str] | None, typer.Option("--mission", help="Only this mission id (repeatable).")
    ] = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write the summary and every run as JSON.")
    ] = None,
    list_: Annotated[
        bool, typer.Option("--list", help="List suites and arms (or --suite's missions); exit.")
    ] = False,
    results: Annotated[
        Path,
        typer.Option("--results", help="Results file (JSONL): stored runs are not rerun."),
    ] = Path("taskforce-eval.jsonl"),
    report: Annotated[
        Path | None, typer.Option("--report", help="Write the Markdown report here.")
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option("--baseline", help="A results file shown as the report's baseline."),
    ] = None,
    max_steps: Annotated[
        int, typer.Option("--max-steps", min=1, max=1000, help="Model calls per user turn.")
    ] = 20,
    timeout: Annotated[
        float, typer.Option("--timeout", min=1, help="Seconds allowed per run.")
    ] = 900.0,
    context_window: Annotated[
        int | None, typer.Option("--context-window", min=256, help="Context size in tokens.")
    ] = None,
    temperature: Annotated[
        float,
        typer.Option(
            "--temperature",
            min=0,
            max=2,
            help="0: greedy (a repeat is the same run). Above 0 each --repeat samples its own "
            "path, seeded --seed + repeat: the spread of an arm.",
        ),
    ] = 0.0,
    seed: Annotated[
        int, typer.Option("--seed", min=0, help="The first repeat's seed when sampling.")
    ] = 0,
    setup: Annotated[
        str | None,
        typer.Option(
            "--setup", help="How the model is served (quantisation, flags): for the report."
        ),
    ] = None,
    notes: Annotated[
        Path | None,
        typer.Option("--notes", help="A Markdown file put in the report after its header."),
    ] = None,
    report_only: Annotated[
        bool,
        typer.Option("--report-only", help="Run nothing: write --report from stored results."),
    ] = False,
    rerun: Annotated[
        bool,
        typer.Option(
            "--rerun",
            help="Run the selected runs again even when stored (after changing a checker or "
            "a tool); the new runs replace them in the summary and the report.",
        ),
    ] = False,
    exact_tokens: Annotated[
        bool | None,
        typer.Option(
            "--exact-tokens/--estimated-tokens",
            help="Count every request exactly with the model's own chat template and "
            "tokenizer (a llama.cpp server at --api-base: POST /apply-template, /tokenize), "
            "or estimate with tiktoken. Default: exact when --api-base answers those, "
            "estimated otherwise.",
        ),
    ] = None,
    remeasure: Annotated[
        bool,
        typer.Option(
            "--remeasure",
            help="Run no model: replay the stored runs of --suite (--arms, --mission) from "
            "their recorded replies and count their tokens again exactly, as --exact-tokens; "
            "a run whose replay differs keeps its numbers.",
        ),
    ] = False,
    rejudge: Annotated[
        bool,
        typer.Option(
            "--rejudge",
            help="Run no model: judge the stored runs of --suite (--arms, --mission) again "
            "with its checkers as they are now (after fixing a checker), by making their "
            "calls again on a fresh world; the runs whose verdict changes are stored.",
        ),
    ] = False,
    plain: PlainOpt = False,
) -> None:
    """Does planning help your model? Run a suite with and without the planner, compare.

    Greedy decoding (temperature 0) unless --temperature says otherwise. Results are stored
    as they come (--results), so an interrupted evaluation resumes; --model reference
    replays the missions' reference solutions (checks a suite); the default model is the
    offline one.
    """
    debug = bool(ctx.obj)
    with reporting(debug):
        from rich.console import Console

        from taskforce.cli._eval import EvalOptions, run_eval
        from taskforce.cli._eval_list import list_command

        console = Console()
        if not console.is_terminal:  # a log file or a pipe: no table cut to 80 columns
            console.width = max(console.width, 160)
        if list_:  # with --suite given: that suite's missions
            source = ctx.get_parameter_source("suite")  # typer may vendor click: by name
            given = source is not None and source.name != "DEFAULT"
            list_command(console, suite if given else None)
            return
        options = EvalOptions(
            suite=suite, model=model, api_base=api_base, arms=arms, repeat=repeat,
            limit=limit, missions=tuple(mission or ()), json_path=json_path, results=results,
            report=report, baseline=baseline, max_steps=max_steps, timeout=timeout,
            context_window=context_window, temperature=temperature, seed=seed, setup=setup,
            plain=plain, report_only=report_only, notes=notes, rerun=rerun,
            exact_tokens=exact_tokens, remeasure=remeasure, rejudge=rejudge,
        )  # fmt: skip
        code = run_eval(options, console)
    raise typer.Exit(code)
