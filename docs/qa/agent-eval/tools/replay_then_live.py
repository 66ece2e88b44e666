"""Replay stored runs on the current code; any request past the stored replies goes live.

How session 26 measured changes that alter only the end of a run (or a few runs) without
rerunning every mission: each stored run's model replies are given back in order (as
``taskforce eval --remeasure`` does), so the current code makes the same requests as far as
they are unchanged; a request made after the stored replies ran out (a new last request)
goes to the live server. ``--dry`` answers it with "(dry)" instead, to list the runs a change
touches (a run whose replay differs before its end is marked DIFF: run it live instead).

    .venv/bin/python docs/qa/agent-eval/tools/replay_then_live.py \
        docs/qa/agent-eval/current.jsonl OUT.jsonl builtin holdout SUITE.py ... [--dry]

Run as a script, it imports ``taskforce`` from wherever the interpreter finds it (the
virtualenv's editable install: the main checkout), not from the directory it is started in:
to replay a worktree's code, start it there with ``PYTHONPATH=<the worktree>``.

Exact, in two steps (session 35): ``--record REQUESTS.json`` on the code before a change
replays every stored run and writes the requests it makes (messages and tools offered);
``--diverge REQUESTS.json`` on the changed code then replays each run while its requests are
the recorded ones and sends every request live from the first that differs (a message, a
note for one request, the tools offered). A change that alters runs from some turn on costs
live turns from that turn only; with the code unchanged, every run replays whole ("same").

    .venv/bin/python docs/qa/agent-eval/tools/replay_then_live.py \
        current.jsonl recorded.jsonl builtin --record before.json         # the code before
    PYTHONPATH=<worktree> .venv/bin/python docs/qa/agent-eval/tools/replay_then_live.py \
        current.jsonl OUT.jsonl builtin --diverge before.json             # the changed code

Blind spot (without --diverge): a run counts as untouched when its messages come back the
same, so a change that only alters what a request offers or shows for that request alone
(the tools offered, a note added to one request's view) is not seen unless the stored reply
then differs. Instrument such a change instead (session 27 counted where its failing-tool
hold fired), or use --diverge.

Prints one line per run (same / LIVE / DIFF); appends LIVE and DIFF runs to OUT.jsonl with
``meta.hybrid`` (live requests, whether the stored conversation is a prefix, the requests
asked live). Needs the llama.cpp server of scripts/realllm.sh on 127.0.0.1:8014. Uses the
evaluation's private helpers: a developer's tool, not part of the package.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

from taskforce.evals.arms import Arm
from taskforce.evals.engine import DEFAULT_MAX_TOKENS, litellm_factory, machine_facts
from taskforce.evals.prompt_tokens import ServerTokenCounter
from taskforce.evals.replay import _SETTINGS, _replies
from taskforce.evals.runner import RunSettings, run_mission
from taskforce.evals.store import ResultStore
from taskforce.evals.suites import load_suite
from taskforce.models.base import ModelResponse, ModelWrapper
from taskforce.testing import ScriptedModel

BASE = "http://127.0.0.1:8014/v1"
MODEL = "openai/qwen2.5-coder-1.5b"


class Hybrid(ModelWrapper):
    """The stored replies in order (its inner model), then the live model (or "(dry)")."""

    def __init__(
        self,
        replies: list[ModelResponse],
        window: int | None,
        live: Any,
        dry: bool,
        before: list[Any] | None = None,
    ):
        self.script = ScriptedModel(replies, name=MODEL, context_window=window)
        super().__init__(self.script)
        self.live, self.dry = live, dry
        self.before = before  # --diverge: the requests the code before made for these replies
        self.requests: list[Any] = []  # every request made (what --record writes)
        self.asked: list[list[dict[str, Any]]] = []

    def count_tokens(self, messages: Any, tools: Any) -> int:
        """The live model's count, as in the stored run (it decides where the view is cut)."""
        return int(self.live.count_tokens(messages, tools))

    async def complete(self, messages: Any, tools: Any) -> ModelResponse:
        """The next stored reply; past them, the live model's (or "(dry)")."""
        request = _plain({"messages": messages, "tools": tools})
        self.requests.append(request)
        if self.script.remaining and not self.asked and self._same(request):
            return await self.script.complete(messages, tools)
        self.asked.append([dict(m) for m in messages])
        return ModelResponse("(dry)", ()) if self.dry else await self.live.complete(messages, tools)

    def _same(self, request: Any) -> bool:
        """Whether the code before made this very request here (always, without --diverge)."""
        if self.before is None:
            return True
        index = len(self.requests) - 1
        return index < len(self.before) and self.before[index] == request


def _plain(value: Any) -> Any:
    """`value` as JSON data (so a request compares equal to its recorded copy)."""
    return json.loads(json.dumps(value, default=str))


def _read(path: str) -> Any:
    return json.loads(Path(path).read_text())


def _write(path: str, data: Any) -> None:
    Path(path).write_text(json.dumps(data))


def _key(r: Any) -> str:
    return f"{r.key.suite}/{r.key.mission}/{r.key.arm}/{r.key.repeat}"


async def main(args: argparse.Namespace) -> None:
    """Replay every stored run of the suites named; print and store the ones that changed."""
    live = litellm_factory(
        MODEL, api_base=BASE, api_key="sk-no-key-required", context_window=8192,
        timeout=1800, max_tokens=DEFAULT_MAX_TOKENS,
    )(None, None)  # fmt: skip
    counter = ServerTokenCounter(BASE, timeout=300)
    store, out = ResultStore(args.results), ResultStore(args.out)
    before = _read(args.diverge) if args.diverge else None
    recorded: dict[str, Any] = {}
    done = {(r.key.suite, r.key.mission, r.key.arm, r.key.repeat) for r in out.latest()}
    for name in args.suites:
        suite = load_suite(name)
        for r in store.latest():
            key = (r.key.suite, r.key.mission, r.key.arm, r.key.repeat)
            if r.key.suite != suite.name or key in done:
                continue
            mission = next(m for m in suite.missions if m.id == r.key.mission)
            messages = r.transcript["messages"]
            stored = r.meta.get("settings") or {}
            settings = RunSettings(**{x: v for x, v in stored.items() if x in _SETTINGS})
            arm = Arm(r.key.arm, dict(r.meta.get("arm_options") or {}))
            replies = _replies(messages, r.transcript.get("events") or [])
            known = before.get(_key(r)) if before is not None else None
            if before is not None and known is None:
                print(f"skip    {suite.name:8} {r.key.mission:30} {r.key.arm} (not recorded)")
                continue
            dry = bool(args.dry or args.record)
            model = Hybrid(replies, settings.context_window, live, dry, known)
            again = await run_mission(mission, arm, model, r.key, settings, counter)  # type: ignore[arg-type]
            new = again.transcript["messages"]
            if args.record:
                recorded[_key(r)] = model.requests
                _write(args.record, recorded)
            if not model.asked and new == messages and again.solved == r.solved:
                print(f"same    {suite.name:8} {r.key.mission:30} {r.key.arm}", flush=True)
                continue
            tag = "LIVE" if model.asked else "DIFF"
            prefix = new[: len(messages)] == messages
            print(
                f"{tag:7} {suite.name:8} {r.key.mission:30} {r.key.arm:8} prefix={prefix} "
                f"solved {r.solved}->{again.solved} fc {r.false_completion}->"
                f"{again.false_completion} status {r.status}->{again.status} "
                f"answer={again.final_answer[:160]!r}",
                flush=True,
            )
            hybrid = {"live_requests": len(model.asked), "prefix_same": prefix}
            hybrid["asked"] = model.asked
            # Input counted exactly (the server's counter) for every request, replayed or
            # live, as `taskforce eval --remeasure` counts it; output: the live replies only.
            total = int(again.tokens["estimated_input"])
            planning = round(float(again.tokens["planning_share"]) * total)
            again = dataclasses.replace(again, input_tokens=total, planning_tokens=planning)
            hybrid |= {"replayed_from": r.meta.get("commit"), "live_seconds": again.seconds}
            meta = {**r.meta, **machine_facts(), "hybrid": hybrid}  # made on this code
            # wall time: the stored run's (the replayed turns took none here)
            out.add(dataclasses.replace(again, seconds=r.seconds, meta=meta))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("out")
    parser.add_argument("suites", nargs="+")
    parser.add_argument("--dry", action="store_true")
    parser.add_argument("--record", help="write the requests this code makes (no live call)")
    parser.add_argument("--diverge", help="requests --record wrote: live from the first change")
    asyncio.run(main(parser.parse_args()))
