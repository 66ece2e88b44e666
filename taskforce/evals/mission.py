"""What an evaluation runs: a :class:`Mission` (text, world, checker) and a :class:`Suite`.

A mission's *world* is a fresh, stateful set of tools built for every run (notes saved,
emails sent, files written); its *checker* reads that world, and the final answer where
the answer itself is the product ("tell me the total"), and returns a :class:`Verdict`.
Checking the world rather than the wording is what makes a result honest: an agent that
says "email sent" without sending one is not solved.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from taskforce.errors import ConfigurationError
from taskforce.models.base import ModelResponse
from taskforce.tools.base import ToolProtocol

__all__ = [
    "Checker",
    "Mission",
    "MultiTurnWorld",
    "Suite",
    "Verdict",
    "World",
    "has_number",
    "numbers_in",
]

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,80}$")


@runtime_checkable
class World(Protocol):
    """The tools of one run and their state (a fresh world per run)."""

    def tools(self) -> Sequence[ToolProtocol | Callable[..., Any]]:
        """The tools the agent gets (plain functions are wrapped); they act on this world."""
        ...


@runtime_checkable
class MultiTurnWorld(World, Protocol):
    """A world that wants to know when the next user turn starts (e.g. BFCL's records)."""

    def begin_turn(self, index: int) -> None:
        """Called before user turn `index` (0-based) is sent to the agent."""
        ...


@dataclass(frozen=True, slots=True)
class Verdict:
    """A checker's answer: solved or not, and why (shown in reports and transcripts)."""

    solved: bool
    reason: str = ""


Checker = Callable[[Any, str], Any]
"""``check(world, final_answer)`` (or ``async def``): a :class:`Verdict`, a bool, or
``(solved, reason)``."""


@dataclass(frozen=True)
class Mission:
    """One task: the user's text, a world factory, a checker and a reference solution.

    Args:
        id: A short stable name (letters, digits, ``_.-``); results are keyed by it.
        text: What the user asks; several user turns as a tuple (one agent session).
        world: Builds a fresh :class:`World` for each run (a function, a class, or a
            coroutine function).
        check: ``check(world, final_answer) -> Verdict | bool | (solved, reason)`` (or
            ``async def``).
        reference: A reference solution as model turns (``taskforce.testing.call``,
            ``calls``, ``reply``) without planner calls: the tests replay it to show the
            mission is solvable and the checker fair. Optional for users' suites.
        tags: Free labels, e.g. ``single`` (one step), ``conditional``, ``fan-out``.
    """

    id: str
    text: str | tuple[str, ...]
    world: Callable[[], World | Awaitable[World]]
    check: Checker
    reference: tuple[ModelResponse, ...] = ()
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ConfigurationError(f"mission id {self.id!r} must match {_ID.pattern}")
        turns = self.turns
        if not turns or not all(isinstance(t, str) and t.strip() for t in turns):
            raise ConfigurationError(f"mission {self.id!r}: text must be non-empty text")
        if not callable(self.world) or not callable(self.check):
            raise ConfigurationError(f"mission {self.id!r}: world and check must be callables")
        _check_call(self.id, "world", self.world, (), "world() (no arguments)")
        _check_call(self.id, "check", self.check, (None, ""), "check(world, final_answer)")

    @property
    def turns(self) -> tuple[str, ...]:
        """The user turns, in order (one for most missions)."""
        return (self.text,) if isinstance(self.text, str) else tuple(self.text)

    @property
    def fingerprint(self) -> str:
        """A short hash of the mission's text: stored results of a changed text go stale."""
        return hashlib.sha256(json.dumps(self.turns).encode()).hexdigest()[:12]

    async def new_world(self) -> tuple[World, list[ToolProtocol | Callable[..., Any]]]:
        """A fresh world of this mission and its tools.

        The factory and ``tools()`` may be coroutine functions.

        Raises:
            ConfigurationError: the world could not be made; the suite's fault, named.
        """
        try:
            world = self.world()
            if inspect.isawaitable(world):
                world = await world
            tools = world.tools()
            return world, list(await tools if inspect.isawaitable(tools) else tools)
        except Exception as exc:
            raise ConfigurationError(
                f"mission {self.id!r}: its world could not be made ({type(exc).__name__}: {exc})"
            ) from exc

    async def judge(self, world: World, answer: str) -> Verdict:
        """Run the checker; a checker that raises counts as not solved, with its error.

        The checker (a function or a coroutine function) may return a :class:`Verdict`, a
        bool (or 0/1), or a pair ``(solved, reason)``.

        Raises:
            ConfigurationError: the checker returned anything else (``None``: a missing
                ``return``?); no outcome can be read from it, so no run is judged by it.
        """
        try:
            outcome = self.check(world, answer)
            if inspect.isawaitable(outcome):
                outcome = await outcome
        except Exception as exc:
            return Verdict(False, f"checker raised {type(exc).__name__}: {exc}")
        if isinstance(outcome, Verdict):
            return outcome
        if _is_flag(outcome):
            return Verdict(bool(outcome), "checker returned " + str(bool(outcome)).lower())
        if isinstance(outcome, tuple) and len(outcome) == 2 and _is_flag(outcome[0]):
            return Verdict(bool(outcome[0]), str(outcome[1]))
        shown = repr(outcome)
        raise ConfigurationError(
            f"mission {self.id!r}: its checker returned {shown[:80]}"
            + ("..." if len(shown) > 80 else "")
            + ": return a Verdict(solved, reason), a bool, or (solved, reason)"
            + (" (a missing return?)" if outcome is None else "")
        )


def _is_flag(value: object) -> bool:
    return isinstance(value, bool) or (isinstance(value, int) and value in (0, 1))


def _check_call(mission: str, what: str, fn: Callable[..., Any], args: tuple[Any, ...],
                usage: str) -> None:  # fmt: skip
    """Refuse up front a world factory or checker that cannot be called as it will be."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # no signature to read (some builtins): let it run
        return
    try:
        signature.bind(*args)
    except TypeError:
        raise ConfigurationError(
            f"mission {mission!r}: {what} is called as {usage}, but its signature is {signature}"
        ) from None


@dataclass(frozen=True)
class Suite:
    """A named list of missions (ids unique)."""

    name: str
    missions: tuple[Mission, ...]
    description: str = ""
    arms: dict[str, str] = field(default_factory=dict)
    """Named arms this suite defines (``name -> "planner+option=value"``), see ``arms.py``."""

    def __post_init__(self) -> None:
        ids = [m.id for m in self.missions]
        if not ids:
            raise ConfigurationError(f"suite {self.name!r} has no missions")
        if dupes := sorted({i for i in ids if ids.count(i) > 1}):
            raise ConfigurationError(f"suite {self.name!r}: duplicate mission ids {dupes}")

    def mission_of(self, mission_id: str, fingerprint: str) -> Mission | None:
        """The mission a stored run was of, if the suite still has it with the same text."""
        mission = next((m for m in self.missions if m.id == mission_id), None)
        return mission if mission is not None and mission.fingerprint == fingerprint else None

    def select(self, ids: Sequence[str] = (), limit: int | None = None) -> list[Mission]:
        """The missions named by `ids` (all when empty), then the first `limit` of them."""
        chosen = list(self.missions)
        if ids:
            known = {m.id: m for m in self.missions}
            if unknown := [i for i in ids if i not in known]:
                raise ConfigurationError(
                    f"no mission {', '.join(map(repr, unknown))} in suite {self.name!r}"
                )
            chosen = [known[i] for i in ids]
        return chosen[:limit] if limit is not None else chosen


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def numbers_in(text: str) -> list[float]:
    """Every number written in `text` (``1,234.5`` and ``1 234`` count as one number)."""
    cleaned = re.sub(r"(?<=\d)[,\s](?=\d{3}\b)", "", str(text))
    return [float(n) for n in _NUMBER.findall(cleaned)]


def has_number(text: str, value: float, tolerance: float = 0.011) -> bool:
    """Whether `text` mentions `value` (to within `tolerance`, relative for big numbers)."""
    margin = max(tolerance, abs(value) * 1e-4)
    return any(abs(n - value) <= margin for n in numbers_in(text))
