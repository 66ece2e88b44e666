"""A worker process for the team tests: ``team_worker.py URL SESSION OWNER LEASE MODEL``.

It joins the session's plan through :class:`taskforce.agent.worker.Worker` (the real
claim/renew/finish path, the real database). MODEL ``instant`` answers each step at once
(``result of <step>``); ``hang`` never answers (the test kills the process mid-step).
Prints one JSON line when it leaves: the steps it finished, and why it left.
"""

from __future__ import annotations

import asyncio
import json
import sys

from taskforce.agent.worker import Worker, step_agent
from taskforce.models.base import Message, ModelResponse, ToolSpec
from taskforce.store import StateManager
from taskforce.testing import FunctionModel, reply


async def instant(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
    return reply(f"result of {messages[1]['content']}")


async def hang(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
    await asyncio.Event().wait()  # works on its step for ever (until killed)
    raise AssertionError("unreachable")


async def main(url: str, session: str, owner: str, lease: float, model: str) -> None:
    fn = instant if model == "instant" else hang
    async with StateManager(url) as store:
        worker = Worker(store, session, owner, step_agent(FunctionModel(fn)), lease=lease)
        report = await worker.run()
    print(json.dumps({"owner": owner, "done": report.done, "lost": report.lost,
                      "failed": report.failed, "reason": report.reason}), flush=True)  # fmt: skip


if __name__ == "__main__":
    _, url, session, owner, lease, model = sys.argv
    asyncio.run(main(url, session, owner, float(lease), model))
