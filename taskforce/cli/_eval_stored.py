"""The stored runs `taskforce eval` goes over again without a model (--remeasure, --rejudge).

Both take the results file, the suite's --arms and --mission, and print one progress line
per run on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from taskforce.cli._safe import one_line
from taskforce.errors import ConfigurationError

if TYPE_CHECKING:
    from taskforce.cli._eval import EvalOptions
    from taskforce.evals import ResultStore, RunRecord, Suite


def stored_runs(
    options: EvalOptions, suite: Suite, flag: str
) -> tuple[ResultStore, list[str], Callable[[int, int, RunRecord], None]]:
    """The results file, the names of --arms, and the progress printer for `flag`.

    Raises:
        ConfigurationError: nothing is stored at --results.
    """
    from taskforce.evals import ResultStore, parse_arms

    if not options.results.is_file():
        raise ConfigurationError(f"--results {str(options.results)!r}: no such file to {flag}")
    arms = [a.name for a in parse_arms(options.arms, suite.arms)]

    def progress(done: int, total: int, record: RunRecord) -> None:
        what = one_line(f"{record.key.mission} [{record.key.arm}#{record.key.repeat}]")
        print(f"{done}/{total} {what}", file=sys.stderr, flush=True)

    return ResultStore(options.results), arms, progress


def named(runs: list[str]) -> str:
    """Runs' labels for a line of output: the first ten, then "..."."""
    return ", ".join(one_line(r) for r in runs[:10]) + (", ..." if len(runs) > 10 else "")
