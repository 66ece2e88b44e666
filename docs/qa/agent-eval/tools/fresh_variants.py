"""Size stored runs' requests as other forms of the agent would have made them (no model call).

Session 42's sizing of cache-friendly forms of planning: each stored run is replayed as
``taskforce eval --remeasure`` does (its model replies given back in order), with the agent
patched into a variant; the meter sizes the requests the variant makes, exactly (the
llama.cpp server of scripts/realllm.sh), whole and fresh (past the prefix shared with the
run's previous request). The replies stay the stored ones: this sizes what the same
conversation would cost, not what the model would have done (it may reply otherwise to
other requests). A replay is kept only when it gives the stored conversation back.

Variants:

* ``as-is``: the agent as it is;
* ``kept``: the planner stays offered (in its working form) once the plan is finished;
* ``append``: the view keeps every recitation and planner exchange (the history as it
  grew; the context budget still cuts when the window is short);
* ``kept+append``: both;
* ``answer``: a request that asks for the answer (the loop's "You keep repeating calls")
  offers the tools of the request before it instead of none (a provider is then asked for
  no call, ``tool_choice="none"``, which keeps the tools in the prompt);
* ``all``: ``kept+append`` and ``answer``.

    PYTHONPATH=<checkout> .venv/bin/python docs/qa/agent-eval/tools/fresh_variants.py \
        docs/qa/agent-eval/current.jsonl builtin holdout SUITE.py ... \
        [--variants=as-is,kept] [--arm=none]

Prints per suite and variant, for the planner arm (or ``--arm``): runs replayed, input a
run, the planning share of input, fresh input a run and planning's share of it, and a cost
at a cached token's price of a tenth of a fresh one (Anthropic's and OpenAI's newer models).
A developer's tool, not part of the package.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from taskforce.agent import context, prompts, watch
from taskforce.evals import meter
from taskforce.evals.prompt_tokens import ServerTokenCounter
from taskforce.evals.replay import remeasure
from taskforce.evals.store import ResultStore
from taskforce.evals.suites import load_suite
from taskforce.plan import Plan

SERVER = "http://127.0.0.1:8014/v1"
VARIANTS = ("as-is", "kept", "append", "kept+append", "answer", "all")
CACHED_PRICE = 0.1


@contextlib.contextmanager
def variant(name: str) -> Iterator[None]:
    """Patch the agent into variant `name` while the block runs."""
    hides, view = watch.PlanWatch.hides_planner, context._PlanView.__call__

    def kept(self: watch.PlanWatch, plan: Plan) -> bool:
        return not plan.open_steps() and not self.offered

    def working(self: watch.PlanWatch, plan: Plan) -> bool:
        return bool(plan.steps) and self.made_here(plan)  # the working form, finished too

    def append(self: Any, history: Sequence[Any], pinned: int) -> tuple[list[Any], int]:
        return list(history), pinned

    complete = meter.MeteredModel.complete
    offered: dict[int, Sequence[Any]] = {}

    async def answer(
        self: meter.MeteredModel, messages: Sequence[Any], tools: Sequence[Any]
    ) -> Any:
        if not tools and str(messages[-1].get("content")) == prompts.ANSWER_NOW:
            tools = offered.get(id(self), tools)
        offered[id(self)] = tools
        return await complete(self, messages, tools)

    old_working = watch.PlanWatch.working
    if name in ("answer", "all"):
        meter.MeteredModel.complete = answer  # type: ignore[method-assign]
    if name == "all":
        name = "kept+append"
    if "kept" in name:
        watch.PlanWatch.hides_planner = kept  # type: ignore[method-assign]
        watch.PlanWatch.working = working  # type: ignore[method-assign]
    if "append" in name:
        context._PlanView.__call__ = append  # type: ignore[method-assign]
    try:
        yield
    finally:
        watch.PlanWatch.hides_planner = hides  # type: ignore[method-assign]
        watch.PlanWatch.working = old_working  # type: ignore[method-assign]
        context._PlanView.__call__ = view  # type: ignore[method-assign]
        meter.MeteredModel.complete = complete  # type: ignore[method-assign]


async def main(
    results: str, suites: list[str], variants: Sequence[str] = VARIANTS, arm: str = "planner"
) -> None:
    """Replay the runs of `arm` of `suites` in `results` under each variant; print sizes."""
    counter = ServerTokenCounter(SERVER)
    store = ResultStore(results)
    for name in suites:
        suite = load_suite(name)
        records = store.latest_of(suite.name, (arm,), ())
        for label in variants:
            runs = inp = planning = fresh = fresh_planning = 0
            with variant(label):
                for record in records:
                    again = await remeasure(record, suite, counter)
                    if again is None:
                        continue
                    runs += 1
                    inp += again.input_tokens
                    planning += again.planning_tokens
                    fresh += int(again.tokens["fresh_input"])
                    fresh_planning += int(again.tokens["fresh_planning"])
            n = max(runs, 1)
            cost = fresh + CACHED_PRICE * (inp - fresh)
            print(
                f"{suite.name:9} {arm:8} {label:12} runs {runs:3d}/{len(records):3d}"
                f"  input/run {inp / n:7.0f}  planning {100 * planning / max(inp, 1):5.1f}%"
                f"  fresh/run {fresh / n:6.0f}"
                f"  planning {100 * fresh_planning / max(fresh, 1):5.1f}%"
                f"  cost/run {cost / n:6.0f}",
                flush=True,
            )


if __name__ == "__main__":
    args = sys.argv[1:]
    options = dict(a[2:].split("=", 1) for a in args if a.startswith("--"))
    args = [a for a in args if not a.startswith("--")]
    variants = options["variants"].split(",") if "variants" in options else VARIANTS
    asyncio.run(main(args[0], args[1:], variants, options.get("arm", "planner")))
