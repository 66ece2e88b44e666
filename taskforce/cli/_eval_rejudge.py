"""`taskforce eval --rejudge`: stored runs judged again by the suite's checkers as they are now.

For a checker fixed after the runs (evals/rejudge.py): no model is called, no run is made
again; the stored calls that reached a tool are made again on a fresh world.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.console import Console

from taskforce.cli._safe import one_line
from taskforce.plan.text import plural

if TYPE_CHECKING:
    from taskforce.cli._eval import EvalOptions
    from taskforce.evals import Suite


def rejudge_command(options: EvalOptions, suite: Suite, console: Console) -> None:
    """Judge the stored runs of the suite (its --arms, --mission) again; store the changed.

    Raises:
        ConfigurationError: nothing is stored at --results.
    """
    from taskforce.cli._eval_stored import named, stored_runs
    from taskforce.evals.rejudge import rejudge_results

    store, arms, progress = stored_runs(options, suite, "rejudge")
    outcome = asyncio.run(
        rejudge_results(store, suite, arms=arms, missions=options.missions, on_progress=progress)
    )
    said = (
        f"{plural(len(outcome.records), 'run')} of {one_line(suite.name)} judged again: "
        f"{plural(len(outcome.changed), 'verdict')} changed"
    )
    said += f" ({named(outcome.changed)})" if outcome.changed else ""
    said += f", {plural(len(outcome.reworded), 'reason')} reworded"
    said += f" ({named(outcome.reworded)})" if outcome.reworded else ""
    if outcome.changed or outcome.reworded:
        said += f"; stored in {one_line(options.results)}"
    console.print(said, markup=False, highlight=False)
    if outcome.left:
        console.print(
            f"{plural(len(outcome.left), 'run')} kept as stored: the mission is gone or its "
            f"text changed, or a call gave a different result now: {named(outcome.left)}",
            markup=False,
            highlight=False,
        )
