"""Helpers for the evaluation tests: one run of a mission with a script of decisions."""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from typing import Any

from taskforce.evals import Arm, Mission, RunRecord, RunSettings, parse_arms
from taskforce.evals.runner import run_key, run_mission
from taskforce.models.base import Message, Model, ModelResponse, ModelWrapper, ToolSpec
from taskforce.testing import Confirming, ScriptedModel

NONE, PLANNER, LAX = parse_arms("none,planner,lax=planner+require_work_before_done=false")
"""LAX: the planner without the evidence rule, so a script can tick steps with no work."""


async def run_script(
    mission: Mission,
    script: Sequence[ModelResponse | BaseException],
    arm: Arm = NONE,
    settings: RunSettings | None = None,
) -> RunRecord:
    """Run `mission` once in `arm`, the model replaying `script` (and confirming the values
    the agent questions, as the reference does)."""
    settings = settings or RunSettings(max_steps=30)
    model = Confirming(ScriptedModel(script))
    key = run_key("test", mission, arm, 0, model.name, settings)
    return await run_mission(mission, arm, model, key, settings)


class Sampler(ModelWrapper):
    """Replays a mission's reference solution; records the sampling it is asked for."""

    def __init__(self, inner: Model, asked: list[dict[str, Any]] | None = None) -> None:
        super().__init__(inner)
        self.asked = asked if asked is not None else []

    def with_options(self, **options: Any) -> Sampler:
        self.asked.append(options)
        return self


class WordCounter:
    """An exact counter of a request's size for the meter: the words of its JSON."""

    async def count(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        return size_of(messages, tools)


def size_of(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
    """What WordCounter counts."""
    return len(json.dumps([list(messages), list(tools)], sort_keys=True).split())


class PrefixWordCounter(WordCounter):
    """WordCounter that also gives token ids: the tools first (as Qwen's template puts
    them), then each message; a word is a token, its id a hash of the word."""

    async def tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> list[int]:
        return [zlib.crc32(w.encode()) for w in prompt_of(messages, tools).split()]

    async def count(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        return len(await self.tokens(messages, tools))


def prompt_of(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> str:
    """What PrefixWordCounter tokenizes: each tool's JSON, then each message's."""
    parts = [json.dumps(t, sort_keys=True) for t in tools]
    return "\n".join(parts + [json.dumps(m, sort_keys=True) for m in messages])
