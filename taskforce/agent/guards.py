"""Guards against the ways small models go wrong: loops, floods, early finishes.

* :class:`CallGuard` answers a call the model already made (same tool, same arguments) with the
  earlier result instead of running it again. A successful call of a tool that is not
  ``read_only`` is an action that may have changed the world: a read made before it (a
  ``read_only`` tool's call), or a call that failed before it, is run again when repeated, and
  its new result is shown if it differs (the same result is answered as any repeat). The same
  action is never run twice in one run (a tool not marked ``read_only`` counts as an action). It
  answers calls beyond the per-turn cap with an error, and holds back other tools until a plan
  exists when one is required. With ``require_work`` it refuses to mark a step done that no tool
  run backs, as its :class:`~taskforce.agent.backing.Backing` (completion needs evidence) says.
  A failed call's result (and the answer to its unchanged repeat) names the lookups
  (``read_only`` tools) not called yet in the run: small models invent an id and retry it;
  pointed at the lookups, they look it up. With an :class:`~taskforce.agent.grounding.Evidence`,
  a call (of any tool but the planner) whose figures or addresses appear in no message or tool
  result the model was given is answered once without running (a guess, e.g. a phone number made
  up for a note, or a time made up for a lookup whose answer would then pass for a fact): the
  answer names the values and the lookups; the same call made again runs (the model may have
  worked the value out itself). Arithmetic arguments are not checked. A failed call that passed
  a name where an earlier result gave an id beside it is told that id
  (:mod:`~taskforce.agent.aliases`). In a mission judged one step, a successful action notes
  that the answer is due if that was all. With an :class:`~taskforce.agent.undo.UndoWatch`, a
  call that would undo an action the run already did (a cancel of the booking it made) is
  not run while the request asks for nothing to be undone; made again, it is a repeat.

:class:`~taskforce.agent.finish.FinishGuard` holds back early answers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from taskforce.agent import prompts
from taskforce.agent.aliases import Aliases, known_ids, other_id
from taskforce.agent.backing import Backing, marks_done
from taskforce.agent.dispatch import Prepared, runs
from taskforce.agent.grounding import Evidence, shown
from taskforce.agent.undo import UndoWatch, held
from taskforce.plan import Plan
from taskforce.plan.requests import PlanRequest
from taskforce.tools.base import error_result

_PREVIOUS_CHARS = 2_000
_NOT_THE_MODELS = frozenset({"conflict", "state_error", "configuration_error", "internal_error"})
"""The planner's failures that are not a refusal of the model's call (never churn)."""


class CallGuard:
    """Decides, per call, whether it runs or gets an answer without running.

    It also notices a model that keeps repeating itself: after two turns made only of repeated
    calls (or of planner calls refused again for the same reason) :meth:`nudge` says so (once),
    and after two nudges :meth:`answer_now` asks for a final answer in words; once the plan
    is finished, one such turn (or one of read-only calls) is enough (the work is done, and
    repeats and looking around are all a small model does there). A model that answers that with
    repeated calls again (written as text) is :attr:`stuck`: the loop stops there. So is one
    that answers it with any call once the plan is finished: those calls are not run (the work
    is done and checked off; a new action written then undid finished work in the evaluation,
    e.g. overwrote a file it had just written right).
    """

    def __init__(
        self,
        max_calls_per_turn: int = 8,
        *,
        require_work: bool = False,
        lookups: Sequence[str] = (),
        actions: Sequence[str] = (),
        evidence: Evidence | None = None,
        one_step: bool = False,
        draft: Callable[[PlanRequest, Plan], Plan] | None = None,
        undo: UndoWatch | None = None,
    ) -> None:
        self.max_calls_per_turn = max_calls_per_turn
        self.require_work = require_work
        self.lookups = tuple(lookups)
        """The names of the read-only tools (lookups), in the order they are offered."""
        self.actions = tuple(actions)  # every tool but the planner: the ones a step may fit
        self.evidence = evidence
        """What the model was given so far (None: arguments are not checked); the results
        of the calls that succeed are added to it."""
        self.one_step = one_step
        """The mission was judged one step (no plan): a successful action asks for the answer."""
        self.draft = draft  # the plan a planner call would leave: later calls of its turn meet it
        self.undo = undo
        """The run's actions, and the calls that would undo one (None: undos run)."""
        self.aliases = Aliases()
        """The ids in the run's successful results, by the names beside them."""
        self._asked: dict[str, tuple[int, int]] = {}  # unsupported value: (learned, times)
        self._learned = 0  # successful tool results so far: what the model has learned
        self._called: set[str] = set()  # the names of the tools the model called in this run
        self._stalled = 0  # consecutive turns made only of repeated calls
        self._turn: list[tuple[Prepared, bool]] = []  # the last turn's calls, and idle looks
        self._refused: set[str] = set()  # the planner's refusals since the plan last changed
        self._churned: set[int] = set()  # ids of the last turn's planner calls refused again
        self._nudges = 0  # stall reminders sent since the last forced answer
        self.backing = Backing(self.actions)
        """The tool runs of the run's plan and the steps they back (completion needs evidence)."""
        self._seen: dict[str, dict[str, Any]] = {}  # the latest result of each call made
        self._reads: set[str] = set()  # calls whose result an action may change (reads, failures)
        self._stale: set[str] = set()  # of those, the ones an action came after
        self._answering = False  # this turn was asked for an answer in words (no call)
        self.stuck = False
        """Told to answer in words, the model's turn only repeated earlier calls (or, its
        plan finished, made any call)."""

    def screen(
        self,
        items: Sequence[Prepared],
        plan: Plan,
        plan_required: bool = False,
        finished: bool = False,
    ) -> list[Prepared]:
        """Screen one turn's parsed calls, in order (answering some without running them).

        `finished`: the run's plan has no open step, and none was skipped for want of work
        (:meth:`~taskforce.agent.watch.PlanWatch.settled`). A turn of read-only calls then counts
        as stalled like a turn of repeats (the work is done; looking around is not), and on
        a turn told to answer in words no call runs at all.
        """
        first_of: dict[str, Prepared] = {}
        asked: set[str] = set()  # answered in this turn (its repeat in the same turn too)
        for index, item in enumerate(items):
            planner = _planner(item)
            if item.preset is None and planner:
                item.signature += f"@plan-v{plan.version}"  # the same read on a new plan is new
            if item.preset is None and self._answering and finished:  # nothing runs now
                earlier = self._seen.get(item.signature)
                refused = error_result(prompts.ANSWER_REQUIRED, "answer_required")
                item.preset = refused if earlier is None else self._repeated(item, earlier)
            elif index >= self.max_calls_per_turn:
                msg = prompts.TOO_MANY_CALLS.format(limit=self.max_calls_per_turn)
                item.preset = error_result(msg, "too_many_calls")
            elif item.preset is None and plan_required and not planner:
                item.preset = error_result(prompts.CREATE_PLAN_FIRST, "plan_required")
            elif (missing := self._unearned(item, plan)) and item.preset is None:
                self.backing.refuse(item, plan, missing)
            elif values := self._unsupported(item):
                again = item.signature in self._asked
                msg = prompts.unsupported(shown(values), self._untried(), again)
                item.preset = error_result(msg, "unsupported_value")
                asked.add(item.signature)
            elif item.preset is None and (undone := self._undoes(item)):
                kind = "repeated_call" if undone[1] else "undo_held"  # a repeat: a stall
                item.preset = error_result(held(*undone), kind)
            elif item.preset is None and item.signature in self._seen:
                item.preset = self._repeated(item, self._seen[item.signature])
                if self.require_work and not planner:
                    self.backing.reuse(item, self._seen[item.signature], plan)
                if item.signature in self._stale:  # run it again; the answer if unchanged
                    item.recheck = self._seen[item.signature]
            elif item.preset is None and item.signature in first_of:
                item.duplicate_of = first_of[item.signature]
            elif item.preset is None:
                first_of[item.signature] = item
            self.backing.count(item, planner)
            self._called.add(item.call.name)
            if planner and item.preset is None and item.request and index + 1 < len(items):
                plan = self.draft(item.request, plan) if self.draft else plan  # for later calls
        for signature in asked:
            self._asked[signature] = (self._learned, self._asked.get(signature, (0, 0))[1] + 1)
        looks = [finished and i.read_only and not _planner(i) for i in items]  # nothing left to do
        self._turn, self._churned = list(zip(items, looks, strict=True)), set()
        self.stuck = self._answering and bool(items) and (finished or all(map(_repeat, items)))
        return list(items)

    def _settle(self) -> None:
        """Count the last turn as stalled if each of its calls was idle, once its calls ran.

        Idle: a repeat (unless run again for a new result), a planner refusal given before
        (:meth:`_churn`), or, with the plan finished, a read-only call.
        """
        if not self._turn:
            return
        idle = [_repeat(i) or id(i) in self._churned or look for i, look in self._turn]
        self._stalled = self._stalled + 1 if all(idle) else 0
        self._turn = []

    def _repeated(self, item: Prepared, previous: dict[str, Any]) -> dict[str, Any]:
        """The answer to a call made before: its failure again, or its earlier result.

        A failure repeated unchanged usually has a guessed argument (an id, a name): the
        answer names the lookups not called yet in this run, where the right value may be.
        """
        if previous.get("success") is False and "error" in previous:
            msg = prompts.repeated_failure(str(previous["error"]), self._hint(item))
            return error_result(msg, "repeated_call")
        msg = prompts.REPEATED_CALL.format(name=item.call.name)
        return error_result(msg, "repeated_call") | {"previous_result": previous}

    def _unsupported(self, item: Prepared) -> list[str]:
        """The values of a new call that the model was never given (empty: it runs).

        Asked once per call: made again, it runs (the model may have worked the value out),
        unless a tool succeeded in between and its result does not have the value either:
        then it is asked once more (a phone number guessed, questioned, looked up, and
        saved as guessed). Lookups are asked too: one run on a guess returns a result that
        grounds the guess (``convert_time("14:30")`` for "the time in Tokyo now", whose
        answer then passes for a fact); a calculator's arithmetic is not checked (see
        :mod:`taskforce.agent.grounding`).
        """
        if self.evidence is None or item.preset is not None or _planner(item):
            return []
        asked = self._asked.get(item.signature)
        runs_now = asked is not None and (asked[0] == self._learned or asked[1] > 1)
        if item.signature in self._seen or runs_now:
            return []
        return self.evidence.unsupported(item.args)

    def _undoes(self, item: Prepared) -> tuple[str, bool] | None:
        """The earlier action a call would undo, and whether it was held before; None: it runs."""
        if self.undo is None or item.read_only or _planner(item) or item.signature in self._seen:
            return None
        return self.undo.undoes(item.signature, item.call.name, item.args)

    def not_called(self, names: Sequence[str]) -> list[str]:
        """The tools among `names` the model has not called in this run, in their order."""
        return [name for name in names if name not in self._called]

    def _hint(self, item: Prepared) -> str:
        """Where a failed call's right argument may be: an id a result gave, or the lookups."""
        if match := self.aliases.match(item.args):
            return other_id(*match)
        lookups = prompts.look_up(self._untried())
        if known := self.aliases.known(item.args):
            return f"{known_ids(*known)} {lookups}".rstrip()
        return lookups

    def _untried(self) -> list[str]:
        """The lookups (read-only tools) not called yet in this run, in their order."""
        return self.not_called(self.lookups)

    def _unearned(self, item: Prepared, plan: Plan) -> list[int]:
        """The steps `item` would mark done with no tool run as evidence (empty: fine)."""
        if not (self.require_work and marks_done(item)) or item.refusal is not None:
            return []
        if item.preset is not None:
            return []
        return self.backing.unearned(item, plan)

    @property
    def unbacked(self) -> int:
        """Successful tool runs since the plan was made that back no DONE step yet."""
        return self.backing.unbacked

    @property
    def worked(self) -> bool:
        """Whether a tool ran (or an early run was reused) since the last step was done."""
        return self.backing.worked

    def record(self, item: Prepared, result: Mapping[str, Any]) -> Mapping[str, Any]:
        """Remember the result of a call that actually ran; return what the model is shown.

        A success of a tool that is not read-only is an action: it may have changed the
        world, so the reads and failures made before it are run again when repeated. A
        repeat run again that gets the same result is answered as any repeat (its preset);
        a different result is shown, and counts as a new run. A call that failed is no
        run: it is not work for the current step and backs no step.
        """
        if not runs(item) or not item.signature:
            return result
        short = _shorten(result)
        if item.recheck is not None:
            self._stale.discard(item.signature)
            if short == item.recheck and item.preset is not None:
                return item.preset
            self._fresh(item)  # no preset from here on: the result is shown
        self._seen[item.signature] = short
        if _planner(item):
            return self._churn(item, result)
        failed = result.get("success") is False
        if self.evidence is not None:  # of a failure, what it adds (it may echo a guess)
            if failed:
                self.evidence.add_failure(result, item.args)
            else:
                self.evidence.add_value(result)
                self._learned += 1
        self.backing.ran(item.call.name, failed)  # counted when screened (or rechecked)
        if failed:
            if hint := self._hint(item):
                result = {**result, "hint": hint}
        else:
            self.aliases.add(item.call.name, result)
            if self.one_step and not item.read_only and "note" not in result:
                result = {**result, "note": prompts.ONE_STEP_DONE}
        if (item.read_only or failed) and not item.approval:  # never rerun unapproved
            self._reads.add(item.signature)
        else:
            self._reads.discard(item.signature)
        if not failed and not item.read_only:  # an action
            self._stale |= self._reads - {item.signature}
            if self.undo is not None:
                self.undo.did(item.call.name, item.args, result)
        return result

    def _churn(self, item: Prepared, result: Mapping[str, Any]) -> Mapping[str, Any]:
        """A planner result; a refusal given before since the plan last changed is churn.

        A small model sent the same refused revision 18 times, each with a new ``insert_at``:
        no call was a repeat, so no stall was seen. Refused again for the same reason, the
        call is idle like a repeat (:meth:`nudge` counts it), and its answer says so.
        """
        if item.change is not None and item.change.moved:
            self._refused.clear()
        if result.get("success") is not False or "error" not in result:
            return result
        if result.get("error_type") in _NOT_THE_MODELS:
            return result
        error = str(result["error"])
        if error not in self._refused:
            self._refused.add(error)
            return result
        self._churned.add(id(item))
        return error_result(prompts.refused_again(error), "repeated_call")

    def _fresh(self, item: Prepared) -> None:
        """A repeat run again got a new result: it is a new run, not a repeat."""
        item.preset = None
        self.stuck = False
        self.backing.rerun(item)

    def nudge(self) -> bool:
        """True (once) when the last two turns were idle (repeats, churn): send the stall prompt."""
        self._settle()
        if self._stalled < 2:
            return False
        self._stalled = 0
        self._nudges += 1
        return True

    def answer_now(self, finished: bool = False) -> bool:
        """True (once) after two nudges: the next turn may call no tool and must answer.

        With `finished` (every step of the run's plan is done), one turn of repeats is
        enough.
        """
        self._settle()
        self._answering = self._nudges >= 2 or (finished and self._stalled >= 1)
        if self._answering:
            self._nudges = self._stalled = 0
        return self._answering


def _repeat(item: Prepared) -> bool:
    """Whether `item` was answered as a repeat of an earlier call."""
    return item.preset is not None and item.preset.get("error_type") == "repeated_call"


def _planner(item: Prepared) -> bool:
    """Whether `item` is a call of the planner (decoded, or refused by it)."""
    return item.request is not None or item.refusal is not None


def _shorten(result: Mapping[str, Any]) -> dict[str, Any]:
    short = {k: v for k, v in result.items() if k != "previous_result"}
    text = repr(short)
    if len(text) <= _PREVIOUS_CHARS:
        return short
    return {"success": short.get("success"), "summary": text[:_PREVIOUS_CHARS] + "…"}
