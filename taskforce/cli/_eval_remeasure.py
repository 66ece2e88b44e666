"""`taskforce eval --remeasure`: stored runs measured again exactly, with no model call."""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

from rich.console import Console

from taskforce.cli._safe import one_line
from taskforce.errors import ConfigurationError
from taskforce.plan.text import plural

if TYPE_CHECKING:
    from taskforce.cli._eval import EvalOptions
    from taskforce.evals import RunRecord, Suite
    from taskforce.evals.prompt_tokens import ServerTokenCounter


def remeasure_command(
    options: EvalOptions, suite: Suite, counter: ServerTokenCounter, console: Console
) -> None:
    """Replay the stored runs of the suite (its --arms, --mission) and count them exactly.

    Raises:
        ConfigurationError: the server cannot count (not llama.cpp's), or nothing is stored.
        ProviderError: the server failed; the runs measured before are stored.
    """
    from taskforce.evals import ResultStore, parse_arms
    from taskforce.evals.replay import remeasure_results

    if not options.results.is_file():
        raise ConfigurationError(f"--results {str(options.results)!r}: no such file to remeasure")
    arms = [a.name for a in parse_arms(options.arms, suite.arms)]
    store = ResultStore(options.results)

    def progress(done: int, total: int, record: RunRecord) -> None:
        what = one_line(f"{record.key.mission} [{record.key.arm}#{record.key.repeat}]")
        print(f"{done}/{total} {what}", file=sys.stderr, flush=True)

    async def run() -> list[str]:
        await counter.count([{"role": "user", "content": "ping"}], [])  # fails before any
        outcome = await remeasure_results(
            store, suite, counter, arms=arms, missions=options.missions, on_progress=progress
        )
        console.print(
            f"{plural(len(outcome.records), 'run')} of {one_line(suite.name)} measured again "
            f"exactly on {one_line(counter.root)} and stored in {one_line(options.results)}",
            markup=False,
            highlight=False,
        )
        return outcome.differing

    differing = asyncio.run(run())
    if differing:
        more = ", ..." if len(differing) > 10 else ""
        shown = ", ".join(one_line(d) for d in differing[:10]) + more
        console.print(
            f"{plural(len(differing), 'run')} kept as stored: replaying the stored replies did "
            f"not give their conversation back (the code changed since, or a reply was "
            f"rewritten before it was stored): {shown}",
            markup=False,
            highlight=False,
        )
