"""Where a run's fresh input comes from: appended messages, history rewritten, tools changed.

Fresh input (``taskforce.evals.meter``): a request's tokens past the longest prefix it shares
with the run's previous request, what a prompt cache still processes. This replays stored
runs as ``taskforce eval --remeasure`` does (no model call; the llama.cpp server of
scripts/realllm.sh sizes the requests) and sorts each request's fresh input, and planning's
part of it, by what changed since the run's previous request:

* ``appended``: the previous request's messages are the start of this one's, same tools;
* ``history``: same tools, but an earlier message changed or went (the latest recitation
  moved to the end, a note shown for one request only, the context cut);
* ``tools``: the tools offered changed (the planner offered alone, in its working form,
  hidden once the plan is finished; no tools at all when the loop asks for the answer);
* ``first``: a run's first request.

    PYTHONPATH=<checkout> .venv/bin/python docs/qa/agent-eval/tools/fresh_causes.py \
        docs/qa/agent-eval/current.jsonl builtin holdout SUITE.py ...

Prints per suite and arm the runs replayed, then per cause the requests, the fresh input and
planning's part of it (tokens a run). Runs whose replay differs (the code changed since they
ran) are left out and counted. A developer's tool, not part of the package.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from taskforce.evals import meter
from taskforce.evals.prompt_tokens import ServerTokenCounter
from taskforce.evals.replay import remeasure
from taskforce.evals.store import ResultStore
from taskforce.evals.suites import load_suite

SERVER = "http://127.0.0.1:8014/v1"
CAUSES = ("first", "appended", "history", "tools")


def _cause(
    before: tuple[list[Any], list[Any]] | None, messages: list[Any], tools: list[Any]
) -> str:
    if before is None:
        return "first"
    old_messages, old_tools = before
    if json.dumps(old_tools, sort_keys=True) != json.dumps(tools, sort_keys=True):
        return "tools"
    return "appended" if messages[: len(old_messages)] == old_messages else "history"


class _Tally:
    def __init__(self) -> None:
        self.requests: Counter[str] = Counter()
        self.fresh: Counter[str] = Counter()
        self.planning: Counter[str] = Counter()

    def add(self, other: _Tally) -> None:
        self.requests += other.requests
        self.fresh += other.fresh
        self.planning += other.planning


def _patch(run: list[_Tally]) -> None:
    """Tally each request of the meter into ``run[0]`` (the run being replayed)."""
    complete = meter.MeteredModel.complete
    last: dict[int, tuple[list[Any], list[Any]]] = {}

    async def watched(
        self: meter.MeteredModel, messages: Sequence[Any], tools: Sequence[Any]
    ) -> Any:
        fresh, planning = self.split.fresh_input or 0, self.split.fresh_planning
        cause = _cause(last.get(id(self)), list(messages), list(tools))
        try:
            return await complete(self, messages, tools)
        finally:
            last[id(self)] = (list(messages), list(tools))
            t = run[0]
            t.requests[cause] += 1
            t.fresh[cause] += (self.split.fresh_input or 0) - fresh
            t.planning[cause] += self.split.fresh_planning - planning

    meter.MeteredModel.complete = watched  # type: ignore[method-assign]


async def main(results: str, suites: list[str]) -> None:
    """Replay the stored runs of `suites` in `results` and print the tallies."""
    tally: dict[str, _Tally] = defaultdict(_Tally)
    run = [_Tally()]
    _patch(run)
    counter = ServerTokenCounter(SERVER)
    store = ResultStore(results)
    for name in suites:
        suite = load_suite(name)
        runs: Counter[str] = Counter()
        differ: Counter[str] = Counter()
        for record in store.latest_of(suite.name, (), ()):
            if record.key.arm not in ("none", "planner"):
                continue
            run[0] = _Tally()
            if await remeasure(record, suite, counter) is None:
                differ[record.key.arm] += 1  # its requests are not the stored run's
                continue
            runs[record.key.arm] += 1
            tally[f"{suite.name}:{record.key.arm}"].add(run[0])
        for arm in ("none", "planner"):
            t = tally[f"{suite.name}:{arm}"]
            n = max(runs[arm], 1)
            print(f"{suite.name} {arm}: {runs[arm]} runs replayed, {differ[arm]} differ")
            total_fresh = sum(t.fresh.values())
            for cause in CAUSES:
                print(
                    f"  {cause:9} requests {t.requests[cause]:5d}"
                    f"  fresh/run {t.fresh[cause] / n:8.0f}"
                    f"  planning/run {t.planning[cause] / n:8.0f}"
                    f"  ({100 * t.fresh[cause] / max(total_fresh, 1):.0f}% of fresh)"
                )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
