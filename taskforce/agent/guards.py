"""Guards against the ways small models go wrong: loops, floods, early finishes.

* :class:`CallGuard` answers a call the model already made (same tool, same arguments) with
  the earlier result instead of running it again, answers calls beyond the per-turn cap
  with an error, and holds back other tools until a plan exists when one is required.
  With ``require_work`` it also refuses (once per plan version) to mark a step done when
  no other tool has succeeded since the plan was made or the last step was finished.
* :class:`FinishGuard` reminds the model (a bounded number of times) when it tries to
  finish while plan steps are still open, or sends an empty reply.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from taskforce.agent import prompts
from taskforce.agent.dispatch import PLANNER, Prepared, parse_call
from taskforce.models.base import ToolCall
from taskforce.tools.base import ToolProtocol, error_result

_PREVIOUS_CHARS = 2_000


class CallGuard:
    """Decides, per call, whether it runs or gets an answer without running."""

    def __init__(self, max_calls_per_turn: int = 8, *, require_work: bool = False) -> None:
        self.max_calls_per_turn = max_calls_per_turn
        self.require_work = require_work
        self.stalled = 0  # consecutive turns made only of repeated calls
        self.worked = True  # a non-planner tool succeeded since the last step was marked done
        self._refused_at: set[int] = set()  # plan versions where an idle mark_done was refused
        self._seen: dict[str, dict[str, Any]] = {}

    def prepare(
        self,
        calls: Sequence[ToolCall],
        tools: Mapping[str, ToolProtocol],
        plan_version: int,
        plan_required: bool = False,
    ) -> list[Prepared]:
        """Parse and screen one turn's calls, in order."""
        items: list[Prepared] = []
        first_of: dict[str, Prepared] = {}
        working = not self.require_work or self.worked or any(c.name != PLANNER for c in calls)
        for index, call in enumerate(calls):
            item = parse_call(call, tools)
            if item.preset is None and call.name == PLANNER:
                item.signature += f"@plan-v{plan_version}"  # the same read on a new plan is new
            if index >= self.max_calls_per_turn:
                msg = prompts.TOO_MANY_CALLS.format(limit=self.max_calls_per_turn)
                item.preset = error_result(msg, "too_many_calls")
            elif item.preset is None and plan_required and call.name != PLANNER:
                item.preset = error_result(prompts.CREATE_PLAN_FIRST, "plan_required")
            elif _marks_done(item) and not working and plan_version not in self._refused_at:
                self._refused_at.add(plan_version)  # refused once: a repeat is taken as meant
                item.preset = error_result(prompts.NOTHING_DONE, "no_work_done")
            elif item.preset is None and item.signature in self._seen:
                item.preset = error_result(
                    prompts.REPEATED_CALL.format(name=call.name), "repeated_call"
                ) | {"previous_result": self._seen[item.signature]}
            elif item.preset is None and item.signature in first_of:
                item.duplicate_of = first_of[item.signature]
            elif item.preset is None:
                first_of[item.signature] = item
            items.append(item)
        repeats = [i.preset and i.preset.get("error_type") == "repeated_call" for i in items]
        self.stalled = self.stalled + 1 if items and all(repeats) else 0
        return items

    def record(self, item: Prepared, result: Mapping[str, Any]) -> None:
        """Remember the result of a call that actually ran."""
        if item.preset is None and item.duplicate_of is None and item.signature:
            self._seen[item.signature] = _shorten(result)
            if item.call.name != PLANNER and result.get("success"):
                self.worked = True
            elif (_marks_done(item) or item.args.get("action") == "create_plan") and result.get(
                "success"
            ):
                self.worked = False

    def forget(self) -> None:
        """Drop remembered calls (a new session)."""
        self._seen.clear()


def _marks_done(item: Prepared) -> bool:
    """Whether `item` marks a step DONE (mark_done's default status)."""
    args = item.args
    status = str(args.get("status") or "DONE").upper()
    return item.call.name == PLANNER and args.get("action") == "mark_done" and status == "DONE"


def _shorten(result: Mapping[str, Any]) -> dict[str, Any]:
    short = {k: v for k, v in result.items() if k != "previous_result"}
    text = repr(short)
    if len(text) <= _PREVIOUS_CHARS:
        return short
    return {"success": short.get("success"), "summary": text[:_PREVIOUS_CHARS] + "…"}


class FinishGuard:
    """Holds back a final answer while plan steps are open, a bounded number of times."""

    def __init__(self, max_reminders: int = 2) -> None:
        self.max_reminders = max_reminders
        self.used = 0

    def check(self, content: str | None, open_steps: Sequence[str]) -> str | None:
        """A reminder to send instead of finishing, or None to accept the answer."""
        if self.used >= self.max_reminders:
            return None
        if open_steps:
            self.used += 1
            return prompts.finish_reminder(open_steps)
        if not (content or "").strip():
            self.used += 1
            return prompts.EMPTY_REPLY
        return None
