"""Completion needs evidence: which tool runs back which plan steps.

:class:`Backing` keeps the ledger :class:`~taskforce.agent.guards.CallGuard` consults when
the model marks a step done (with ``require_work``): the tool runs since the plan was made
or the last step was finished, the steps they back, and the tools that still fail.

* A step that needs a tool (:func:`~taskforce.agent.planning.needs_tool`) is done only when a
  tool other than the planner ran since the step started; a step of a plan made in the same
  turn too. The first unbacked "done" is refused, naming the step's tools; the second, for
  the same steps, skips them (noted as such).
* A failed call backs no step, no repeat stands in for it, nor, while the step's own tool
  (named by its words) still fails, does any other run: a lookup after the failures does
  not do the step.
* A repeat of an earlier successful call counts as that work when the earlier run backs no
  step yet (the model did a later step's call early), so every DONE step that needs a tool
  is still backed by a distinct run.
* An answer after the loop skipped a step no tool ran for, whose own tools never succeeded in
  the session, is held back once (:meth:`Backing.undone`): that work was done nowhere.
* A step listing names of which a call used only some (:mod:`~taskforce.agent.coverage`:
  "Madrid and Tokyo" after a lookup of Madrid alone) is held back once; so is an answer
  to a request that does (:meth:`Backing.unnamed`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain
from typing import Any

from taskforce.agent import prompts
from taskforce.agent.coverage import Mentions
from taskforce.agent.dispatch import Prepared
from taskforce.agent.grounding import succeeded
from taskforce.agent.planning import fitting_tools, step_needs_tool, tool_steps, unworked
from taskforce.models.base import Message
from taskforce.plan import Plan, Step, StepStatus
from taskforce.plan.requests import NewPlan, SetStatus
from taskforce.tools.base import error_result


class Backing:
    """The tool runs of a run's plan and the steps they back.

    Args:
        actions: every tool but the planner (the ones a step's words may name).
    """

    def __init__(self, actions: Sequence[str] = ()) -> None:
        self.actions = tuple(actions)
        self.mentions = Mentions()  # the names the run's calls were given (short arguments)
        self._work = 0  # non-planner calls run since the plan was made or a step was done
        self._runs = 0  # non-planner calls run since the plan was made
        self.runs = 0  # non-planner calls run with success in the whole run (never reset)
        self._backed = 0  # steps needing a tool marked done since the plan was made
        self._failed: dict[str, bool] = {}  # tools whose calls failed since the plan was made
        # or a step was done: whether they still fail (no success of theirs since)
        self._refused: set[str] = set()  # ids of steps refused since the last work
        self._held: set[str] = set()  # ids of steps held back once for a name left out
        self._told: set[str] = set()  # the names left out that a hold-back named already

    @property
    def unbacked(self) -> int:
        """Successful tool runs since the plan was made that back no DONE step yet."""
        return max(0, self._runs - self._backed)

    @property
    def worked(self) -> bool:
        """Whether a tool ran (or an early run was reused) since the last step was done."""
        return self._work > 0

    def unearned(self, item: Prepared, plan: Plan) -> list[int]:
        """The steps a "done" (`item`) would mark with no tool run as evidence (empty: fine).

        A step held back once for a name left out gets `item`'s preset instead.
        """
        assert isinstance(item.request, SetStatus)
        if item.request.note:
            return []  # the model's own account of how it was done, kept on the step
        steps = plan.steps
        wanted = [
            (n, steps[n - 1])
            for n in item.request.indices
            if 0 < n <= len(steps) and steps[n - 1].status.is_open
        ]
        needy = [  # a gated step is checked by the human who approves it
            (n, s) for n, s in wanted if step_needs_tool(plan, s) and not s.requires_approval
        ]
        if len(needy) > self._work:
            return [n for n, _ in needy[self._work :]]
        if failing := [n for n, s in needy if self._still_failing(s.description)]:
            return failing
        if held := self._left_out(needy):  # asked once; a preset, not a refusal
            item.preset = error_result(held, "names_left_out")
            return []
        self._backed += len(needy)  # accepted (counted before the call runs, like work)
        return []

    def unnamed(self, request: str, open_steps: Sequence[str] = ()) -> str | None:
        """The reminder for an answer while `request` lists names no call used yet, or None.

        Only a list of which another name was used ("Madrid or Cairo" after a lookup of
        Madrid alone): the half-done fan-out no open step may show (the step read "find out
        which city is warmer", and the lookup of Madrid covered it). Names a step's
        hold-back already named are not named again: the model chose to go on without them.
        The reminder lists `open_steps` too: one done on the first name alone (a note saying
        Madrid is warmer) is to be done again with the new result.
        """
        used, missing, tools = self.mentions.left_out(request)
        missing = [name for name in missing if name not in self._told]
        if not missing:
            return None
        return prompts.request_left_out(used, missing, tools, open_steps)

    def _still_failing(self, step: str) -> list[str]:
        """The tools fitting `step`'s words that failed since it started, with no success after.

        A lookup after them does not do the step ("Water every dry bed": ``water_bed``
        failed on guessed ids, ``list_beds`` then gave the ids, and the watering is still
        to do).
        """
        return [name for name in fitting_tools(step, self.actions) if self._failed.get(name)]

    def _left_out(self, needy: list[tuple[int, Step]]) -> str | None:
        """Why to hold a "done" back (once per step): it lists names no call used yet."""
        for n, step in needy:
            used, missing, tools = self.mentions.left_out(step.description)
            if missing and step.id not in self._held:
                self._held.add(step.id)
                self._told.update(missing)
                return prompts.left_out(n, step.description, used, missing, tools)
        return None

    def refuse(self, item: Prepared, plan: Plan, missing: list[int]) -> None:
        """Refuse an unearned "done"; the second time for the same steps, skip them."""
        ids = {plan.steps[n - 1].id for n in missing}
        if not ids <= self._refused:
            self._refused |= ids
            steps = [plan.steps[n - 1].description for n in missing]
            texts = [f"step {n} ({step})" for n, step in zip(missing, steps, strict=True)]
            fits = dict.fromkeys(chain(*(fitting_tools(s, self.actions) for s in steps)))
            failing = dict.fromkeys(chain(*map(self._still_failing, steps)))
            why = prompts.nothing_done(texts, bool(self._failed), fits, failing)
            item.preset = error_result(why, "no_work_done")
            return
        assert isinstance(item.request, SetStatus)
        note = prompts.FAILED_NOTE if self._failed else prompts.SKIPPED_NOTE
        item.request = SetStatus(tuple(missing), StepStatus.SKIPPED, note)
        self._failed.clear()  # those failures were this step's: the next one starts clean

    def reuse(self, item: Prepared, previous: Mapping[str, Any], plan: Plan) -> None:
        """Count a repeat of a successful run (`item`) as work when that run backs no step yet.

        Only while a step that needs a tool is open: with none left, a repeat is a repeat.
        """
        if previous.get("success") is False or not tool_steps(plan):
            return
        item.reused = self._runs - self._backed - self._work > 0
        self._work += item.reused
        if item.reused:  # the earlier result, as a success: the work is done
            item.preset = {**previous, "note": prompts.REUSED}

    def count(self, item: Prepared, planner: bool) -> None:
        """Count a call that will run; a new plan or a step marked done spends the work."""
        if item.reused:
            self._refused.clear()
        if item.preset is not None or item.duplicate_of is not None:
            return
        if not planner:
            self.mentions.add(item.call.name, item.args)
            self._work += 1
            self._runs += 1
            self.runs += 1
            self._refused.clear()
        elif marks_done(item):
            self._work = 0
            self._failed.clear()
        elif isinstance(item.request, NewPlan):
            self._work = self._runs = self._backed = 0
            self._failed.clear()

    def ran(self, name: str, failed: bool) -> None:
        """A call of tool `name` ran (counted when screened): a failure takes its count back.

        Unless a tick or a new plan later in the same turn spent it already.
        """
        if failed:
            self.runs -= 1
            self._runs = max(0, self._runs - 1)
            self._work = max(0, self._work - 1)
            self._failed[name] = True
        elif name in self._failed:
            self._failed[name] = False

    def undone(self, plan: Plan, history: Sequence[Message]) -> list[str]:
        """Steps the loop skipped as unworked whose own tools never succeeded in `history`.

        As ``"step 1: Save three notes ... (save_note)"``: a step skipped because no tool
        ran for it (not one whose calls failed: that was tried), that needs a tool, whose
        words name tools (:func:`~taskforce.agent.planning.fitting_tools`) none of which
        has a successful result in the session's conversation. Its work was done nowhere,
        so an answer now would claim it.
        """
        found = []
        done: set[str] | None = None
        for number, note in unworked(plan).items():
            step = plan.steps[number - 1]
            tools = fitting_tools(step.description, self.actions)
            if note != prompts.SKIPPED_NOTE or not tools or not step_needs_tool(plan, step):
                continue
            done = succeeded(history) if done is None else done
            if not done & set(tools):
                found.append(f"step {number}: {step.description} ({', '.join(tools)})")
        return found

    def rerun(self, item: Prepared) -> None:
        """A repeat run again got a new result: it is a new run, not a repeat."""
        self._runs += 1
        self.runs += 1
        if not item.reused:
            self._work += 1
        self._refused.clear()


def marks_done(item: Prepared) -> bool:
    """Whether `item` is a planner call that marks a step DONE."""
    request = item.request
    return isinstance(request, SetStatus) and request.status is StepStatus.DONE
