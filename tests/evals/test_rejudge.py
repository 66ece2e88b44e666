"""Stored runs judged again by a fixed checker, their calls made again on a fresh world."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from taskforce.errors import ToolInputError
from taskforce.evals import Mission, ResultStore, Suite, Verdict, evaluate
from taskforce.evals.rejudge import rejudge, rejudge_results
from taskforce.testing import ScriptedModel, call, reply
from taskforce.tools import FunctionTool

TEXT = "Book a table for Ana (cancel any booked by mistake) and tell me its number."


class Bistro:
    """Tables booked and cancelled; `seats` tells a world of another day (other results)."""

    def __init__(self, first: int = 1) -> None:
        self.bookings: dict[str, dict[str, Any]] = {}
        self.next = first
        self.turns: list[int] = []

    def book(self, name: str) -> str:
        """Book a table under a name."""
        key = f"T-{self.next}"
        self.next += 1
        self.bookings[key] = {"name": name, "status": "booked"}
        return f"table {key} booked for {name}"

    def cancel(self, table: str) -> str:
        """Cancel a booking."""
        if self.bookings.get(table, {}).get("status") != "booked":
            raise ToolInputError(f"no booking {table!r}")
        self.bookings[table]["status"] = "cancelled"
        return f"{table} cancelled"

    def begin_turn(self, index: int) -> None:
        self.turns.append(index)

    def tools(self) -> list[Any]:
        return [FunctionTool(self.book), FunctionTool(self.cancel)]


def lax(w: Bistro, answer: str) -> Verdict:
    """The checker with the flaw: any booking ever made counts."""
    return Verdict(len(w.bookings) == 1, f"bookings {w.bookings}")


def strict(w: Bistro, answer: str) -> Verdict:
    """Fixed: only a booking still in effect counts."""
    live = [k for k, b in w.bookings.items() if b["status"] == "booked"]
    return Verdict(len(live) == 1, f"live {live}")


def suite(check: Any = lax, world: Any = Bistro, text: str | tuple[str, ...] = TEXT) -> Suite:
    return Suite("bistro", (Mission("ana", text, world, check),))


BOOKED_THEN_CANCELLED = [
    call("book", name="Ana"),
    call("book", name="Ana"),  # a repeat: the loop answers it, the tool never runs again
    call("cancel", table="T-9"),  # fails in the tool (no such booking): it ran
    call("cancel", table="T-1"),
    reply("Ana has table T-1."),
]


async def _stored(tmp_path: Path, script: list[Any] = BOOKED_THEN_CANCELLED) -> ResultStore:
    store = ResultStore(tmp_path / "results.jsonl")
    await evaluate(suite(), lambda m, a: ScriptedModel(list(script)), arms="none", results=store)
    return store


async def test_a_fixed_checker_judges_the_world_the_run_left(tmp_path: Path) -> None:
    store = await _stored(tmp_path)
    (run,) = store.latest()
    assert run.solved and not run.false_completion  # the flawed checker took it
    outcome = await rejudge_results(store, suite(strict))
    assert outcome.changed == ["ana/none#0"] and outcome.reworded == outcome.left == []
    (again,) = ResultStore(store.path).latest()
    assert not again.solved and again.reason == "live []"
    assert again.false_completion  # it answered as finished
    assert again.meta["rejudged"]["was"] == {"solved": True, "reason": run.reason}
    assert again.transcript == run.transcript and again.input_tokens == run.input_tokens


async def test_a_repeat_the_loop_answered_is_not_made_again(tmp_path: Path) -> None:
    script = [call("book", name="Ana"), call("book", name="Ana"), reply("Ana has table T-1.")]
    store = await _stored(tmp_path, script)
    (run,) = store.latest()
    assert '"repeated_call"' in str(run.transcript["messages"])
    again = await rejudge(run, suite(strict))
    assert again is not None and again.solved and again.reason == "live ['T-1']"


async def test_an_unchanged_verdict_stores_nothing(tmp_path: Path) -> None:
    store = await _stored(tmp_path)
    lines = len(list(store.records()))
    outcome = await rejudge_results(store, suite(lax))
    assert outcome.changed == outcome.reworded == [] and len(outcome.records) == 1
    assert len(list(store.records())) == lines
    worded = Mission("ana", TEXT, Bistro, lambda w, a: Verdict(len(w.bookings) == 1, "one"))
    outcome = await rejudge_results(store, Suite("bistro", (worded,)))
    assert outcome.changed == [] and outcome.reworded == ["ana/none#0"]
    assert [r.reason for r in ResultStore(store.path).latest()] == ["one"]  # stored


async def test_a_world_that_answers_otherwise_now_leaves_the_run(tmp_path: Path) -> None:
    store = await _stored(tmp_path)
    other = suite(strict, world=lambda: Bistro(first=5))  # "table T-5 booked": not the result
    outcome = await rejudge_results(store, other)
    assert outcome.left == ["ana/none#0"] and outcome.records == []
    assert [r.solved for r in ResultStore(store.path).latest()] == [True]


async def test_a_changed_mission_text_or_a_missing_mission_leaves_the_run(tmp_path: Path) -> None:
    (run,) = (await _stored(tmp_path)).latest()
    assert await rejudge(run, suite(strict, text="Book a table for Ben.")) is None
    moved = dataclasses.replace(run, key=dataclasses.replace(run.key, mission="gone"))
    assert await rejudge(moved, suite(strict)) is None


async def test_a_multi_turn_world_is_told_each_user_turn(tmp_path: Path) -> None:
    worlds: list[Bistro] = []

    def world() -> Bistro:
        worlds.append(Bistro())
        return worlds[-1]

    turns = ("Book a table for Ana.", "Now cancel it.")
    script = [call("book", name="Ana"), reply("T-1."), call("cancel", table="T-1"), reply("Done.")]
    store = ResultStore(tmp_path / "results.jsonl")
    first = suite(lax, world=world, text=turns)
    await evaluate(first, lambda m, a: ScriptedModel(list(script)), arms="none", results=store)
    (run,) = store.latest()
    again = await rejudge(run, suite(strict, world=world, text=turns))
    assert again is not None and not again.solved
    assert worlds[-1].turns == [0, 1] and worlds[-1].bookings["T-1"]["status"] == "cancelled"
