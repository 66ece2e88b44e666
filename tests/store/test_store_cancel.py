"""A save cancelled at any moment lands whole or not at all, and the caller knows which."""

from __future__ import annotations

import asyncio
import random

from taskforce.store import StateManager
from tests.store.conftest import Backend, make_state


def _state(tag: int) -> dict[str, object]:
    state = make_state(20, done=tag % 20, tag=tag)
    for task in state["plan"]["tasks"]:  # type: ignore[index]
        task["note"] = f"tag {tag}"
    return state


async def test_cancelled_saves_land_whole_or_not_at_all(backend: Backend) -> None:
    sm: StateManager = backend.make()
    rng = random.Random(7)
    version = await sm.save_state("c", _state(0))
    outcomes = {"returned": 0, "landed-then-cancelled": 0, "not-landed": 0}
    for tag in range(1, 41):
        task = asyncio.create_task(
            sm.save_state("c", _state(tag), version, messages=[{"tag": tag}])
        )
        if rng.random() < 0.3:  # cancel after a few loop turns, or after a random delay
            for _ in range(rng.randrange(0, 12)):
                await asyncio.sleep(0)
        else:
            await asyncio.sleep(rng.uniform(0, 0.08))
        task.cancel()
        try:
            version = await task
            landed, kind = True, "returned"
        except asyncio.CancelledError as exc:
            landed = "committed" in str(exc)
            kind = "landed-then-cancelled" if landed else "not-landed"
            if landed:
                version += 1
        outcomes[kind] += 1
        stored = await sm.load_state("c")
        assert stored is not None
        assert stored["version"] == version
        expected_tag = tag if landed else stored["tag"]
        assert stored == {**_state(expected_tag), "version": version}  # never a mix
        messages = await sm.load_messages("c")
        assert [m["tag"] for m in messages] == sorted({m["tag"] for m in messages})
        assert len(messages) == version - 1
    if backend.name == "postgres":  # on SQLite a begun transaction is shielded to its end
        assert outcomes["not-landed"] > 0, outcomes
    assert outcomes["returned"] + outcomes["landed-then-cancelled"] > 0, outcomes
