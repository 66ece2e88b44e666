"""One planner call, start to end: decoded once, applied once, described by a typed change.

* :func:`encode` is its inverse: the arguments of a call asking for a request (the
  agent writes its own planner call this way when it plans for the model).
* :func:`decode` checks a call's arguments alone (types, what each action needs, every new
  step's text and dependencies, lengths before cleaning) and returns a
  :data:`~taskforce.plan.requests.PlanRequest`; it is all ``validate_params`` does.
* :func:`apply` applies a request to a plan, once, and returns a :class:`PlanChange`: the
  new plan, its lifecycle events (the history every door records) and the message.
* :func:`gate` says which plan steps flagged ``requires_approval`` a change would start,
  finish, reword, unflag or drop (approval flags are sticky), so a caller (the agent) can
  hold the call for a human without running it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from taskforce.errors import PlanError
from taskforce.plan import Event, Plan, PlanLimits, Step, StepSpec, StepStatus, lifecycle_events
from taskforce.plan.claims import expire, renew
from taskforce.plan.requests import EditPlan, NewPlan, PlanRequest, ReadPlan, SetStatus
from taskforce.plan.specs import clean_note, clean_specs, repeats
from taskforce.plan.step import AGENT, Actor
from taskforce.plan.text import check_length, clean_text
from taskforce.tools.planner_args import parse_args

_STATUS_VERBS = {
    StepStatus.IN_PROGRESS: "start",
    StepStatus.DONE: "mark done",
    StepStatus.SKIPPED: "skip",
    StepStatus.FAILED: "mark failed",
}


@dataclass(frozen=True, slots=True)
class PlanChange:
    """What one applied call did: the plan before and after, its events, its message."""

    before: Plan
    plan: Plan
    events: tuple[Event, ...]
    message: str

    @property
    def moved(self) -> bool:
        """Whether the call made a new version of the plan (a read or a refusal does not)."""
        return self.plan.version != self.before.version

    def result(self) -> dict[str, Any]:
        """The tool result: ``{"success": True, "output": <checklist>, "message": ...}``."""
        return {"success": True, "output": self.plan.render(), "message": self.message}


@dataclass(frozen=True, slots=True)
class Gate:
    """Steps a call would start or finish that a human must approve first."""

    preview: str
    step_ids: tuple[str, ...]


def decode(params: dict[str, Any], limits: PlanLimits) -> PlanRequest:
    """The request a call's arguments ask for; checks the arguments alone.

    Raises:
        ToolInputError: a malformed call (unknown action, wrong types, stray parameters).
        PlanError: arguments no plan could take (no tasks, no step_index, an empty or too
            long text, a bad step object), naming the parameter or the step.
    """
    args = parse_args(params)
    if args.action == "read_plan":
        return ReadPlan()
    if args.action == "create_plan":
        if not args.tasks:
            raise PlanError("tasks must be a non-empty list of step descriptions")
        if len(args.tasks) > limits.max_steps:
            raise PlanError(f"{len(args.tasks)} tasks is too many; the limit is {limits.max_steps}")
        return NewPlan(tuple(clean_specs(args.tasks, "task", limits.max_text)))
    if args.action == "mark_done":
        if not args.step_index:
            raise PlanError("step_index is required for mark_done: the step number, from 1")
        status = StepStatus.DONE if args.status is None else StepStatus(args.status)
        note = clean_note(args.note, limits.max_note)
        return SetStatus(tuple(dict.fromkeys(args.step_index)), status, note)
    reword = None
    if args.text is not None or args.step_index:
        if args.text is None or not args.step_index or len(args.step_index) != 1:
            raise PlanError("to reword a step give one step_index and its new text")
        check_length(args.text, limits.max_text, "text")
        text = clean_text(args.text)
        if not text:
            raise PlanError("text is empty")
        if len(text) > limits.max_text:
            raise PlanError(f"text is {len(text)} characters; the limit is {limits.max_text}")
        reword = (args.step_index[0], text)
    add = tuple(clean_specs(args.add_steps or [], "add_steps item", limits.max_text))
    remove = tuple(dict.fromkeys(args.remove_indices or []))
    if not (add or remove or reword):
        raise PlanError("update_plan needs add_steps, remove_indices or step_index with text")
    return EditPlan(add, args.insert_at, remove, reword)


def encode(request: PlanRequest) -> dict[str, Any]:
    """The arguments of the planner call that asks for `request` (:func:`decode` inverts it)."""
    if isinstance(request, ReadPlan):
        return {"action": "read_plan"}
    if isinstance(request, NewPlan):
        return {"action": "create_plan", "tasks": [_spec_args(s) for s in request.tasks]}
    if isinstance(request, SetStatus):
        args: dict[str, Any] = {
            "action": "mark_done",
            "step_index": list(request.indices),
            "status": request.status.value,
        }
        return args | ({"note": request.note} if request.note is not None else {})
    args = {"action": "update_plan"}
    if request.add:
        args["add_steps"] = [_spec_args(s) for s in request.add]
    if request.insert_at is not None:
        args["insert_at"] = request.insert_at
    if request.remove:
        args["remove_indices"] = list(request.remove)
    if request.reword is not None:
        args["step_index"], args["text"] = [request.reword[0]], request.reword[1]
    return args


def _spec_args(spec: StepSpec) -> str | dict[str, Any]:
    if not spec.depends_on and not spec.requires_approval and spec.parent is None:
        return spec.description
    args: dict[str, Any] = {
        "description": spec.description,
        "depends_on": list(spec.depends_on),
        "requires_approval": spec.requires_approval,
    }
    return args | ({"parent": spec.parent} if spec.parent is not None else {})


def apply(
    request: PlanRequest,
    plan: Plan,
    limits: PlanLimits,
    now: datetime | None,
    actor: Actor = AGENT,
) -> PlanChange:
    """Apply `request` to `plan` once, as `actor` (raises :class:`PlanError` when refused).

    A named actor (a worker sharing the plan) cannot replace a plan that has steps, and
    its changes first end the claims whose leases ran out (``step_interrupted``).
    """
    if isinstance(request, ReadPlan):
        return PlanChange(plan, plan, (), "Plan read.")
    if isinstance(request, EditPlan):
        _refuse_repeated_steps(request, plan)
    events: list[Event] = []
    start = plan
    if actor.name is not None:
        if isinstance(request, NewPlan) and plan.steps:
            raise PlanError(
                f"this plan is shared by a team (you are {actor.name}): revise it with "
                "update_plan instead of replacing it",
                "shared_plan",
            )
        if now is not None:
            start, events = expire(plan, now)
    new = request.apply(start, limits, now, actor)
    events += lifecycle_events(start, new)
    held = new.in_progress(actor.name) if actor.name is not None and now is not None else None
    if held is not None and now is not None:  # the owner is alive: its lease goes on
        new = renew(new, held.id, actor, now)
    return PlanChange(plan, new, tuple(events), _message(request, new, new is start))


def _refuse_repeated_steps(request: EditPlan, plan: Plan) -> None:
    """A step added with the text of an open step is plan churn: refuse it, naming the step."""
    open_steps = {
        s.description.casefold(): number
        for s in plan.open_steps()
        if (number := plan.number_of(s)) not in request.remove  # replaced in the same call
    }
    for spec in request.add:
        same = open_steps.get(spec.description.casefold())
        if same is not None:
            raise PlanError(
                f"step {same} already reads {spec.description!r} and is still open: "
                f"work on step {same} instead of adding it again"
            )


def _message(request: PlanRequest, plan: Plan, same: bool) -> str:
    count = len(plan.steps)
    if isinstance(request, NewPlan):
        kept = sum(1 for s in plan.steps if s.status.is_finished)
        new = count - kept
        message = f"Plan created with {new} task{'' if new == 1 else 's'}"
        message += _repeated(request.tasks)
        if kept:
            message += f"; {kept} finished step{'' if kept == 1 else 's'} kept"
        return message + "."
    if isinstance(request, SetStatus):
        numbers = ", ".join(map(str, request.indices))
        if same:
            verb = "was" if len(request.indices) == 1 else "were"
            return f"Step {numbers} {verb} already {request.status.value}."
        return f"Step {numbers} marked {request.status.value}."
    return f"Plan updated: {count} step{'' if count == 1 else 's'}."


def _repeated(tasks: Sequence[StepSpec]) -> str:
    """What a new plan's message says of tasks that repeated an earlier one (kept once)."""
    groups: dict[int, list[str]] = {}
    for position, first in repeats(tasks).items():
        groups.setdefault(first, []).append(str(position + 1))
    said = [
        f"task{'s' if len(copies) > 1 else ''} {', '.join(copies)} repeated task {first + 1}"
        for first, copies in groups.items()
    ]
    return f" ({'; '.join(said)}: kept once)" if said else ""


def gate(change: PlanChange, approved: Collection[str]) -> Gate | None:
    """The human approval `change` needs, or None.

    Approval flags are sticky. An open step flagged ``requires_approval`` whose id is not
    in `approved` may not be started, finished (done, skipped or failed), reworded,
    removed or stripped of its flag without a human: that covers ``mark_done`` on it,
    ``update_plan`` removing it (and adding it back unflagged), and ``create_plan``
    replacing the plan. Starting or finishing a step under such a parent needs the
    parent's approval (a sub-step's work is the parent's). A new plan that carries the
    step over (same text, still flagged, still open) keeps the gate on the new step and
    needs no approval now.
    """
    if change.plan is change.before:
        return None
    after = {s.id: s for s in change.plan.steps}
    old = {s.id for s in change.before.steps}
    carried = Counter(  # new steps that take a dropped gated step's place
        s.description.casefold()
        for s in change.plan.steps
        if s.id not in old and s.requires_approval and s.status is StepStatus.PENDING
    )
    before = change.before
    found: dict[str, dict[str, Step]] = {}  # verb -> the gated steps it concerns, by id
    for step in before.steps:
        now = after.get(step.id)
        if _held(step, approved):
            verb = _gated_verb(step, now, carried)
            if verb is not None:
                found.setdefault(verb, {}).setdefault(step.id, step)
        elif now is not None and step.status.is_open and now.status is not step.status:
            verb = _STATUS_VERBS.get(now.status)
            parent = before.parent_of(step)
            while verb is not None and parent is not None:  # a sub-step's work is its parent's
                if _held(parent, approved):
                    found.setdefault(verb, {}).setdefault(parent.id, parent)
                parent = before.parent_of(parent)
    if not found:
        return None
    preview = "; ".join(
        f"{verb} plan step "
        + "; ".join(f"{before.number_of(s)}. {s.description}" for s in _ordered(before, held))
        for verb, held in found.items()
    )
    ids = dict.fromkeys(s.id for held in found.values() for s in _ordered(before, held))
    return Gate(preview, tuple(ids))


def _held(step: Step, approved: Collection[str]) -> bool:
    return step.requires_approval and step.status.is_open and step.id not in approved


def _ordered(plan: Plan, steps: dict[str, Step]) -> list[Step]:
    return sorted(steps.values(), key=plan.number_of)


def has_gate(plan: Plan, approved: Collection[str]) -> bool:
    """Whether `plan` has an open step flagged ``requires_approval`` not yet approved."""
    return any(_held(s, approved) for s in plan.steps)


def _gated_verb(step: Step, now: Step | None, carried: Counter[str]) -> str | None:
    """What a change does to gated `step` (`now` is it afterwards), if a human must allow it."""
    if now is None:
        key = step.description.casefold()
        if carried[key] > 0:
            carried[key] -= 1  # one new flagged step stands in for one dropped step
            return None
        return "drop"
    if now.description != step.description:
        return "reword"
    if not now.requires_approval:
        return "unflag"
    if now.status is step.status or now.status is StepStatus.PENDING:
        return None
    return _STATUS_VERBS.get(now.status, f"mark {now.status.value.lower()}")


def same_numbers(request: PlanRequest, before: Plan, after: Plan) -> bool:
    """Whether every step number `request` uses names the same step in both plans."""
    if isinstance(request, NewPlan):
        return True  # a new plan replaces whatever is there
    if isinstance(request, SetStatus):
        numbers: tuple[int, ...] = request.indices
    elif isinstance(request, EditPlan) and request.insert_at is None:
        numbers = (*request.remove, *(request.reword[:1] if request.reword else ()))
        numbers += tuple(d for spec in request.add for d in spec.depends_on)
    else:  # an insertion point depends on every step around it
        return [s.id for s in before.steps] == [s.id for s in after.steps]
    old, new = before.steps, after.steps
    return all(0 < n <= min(len(old), len(new)) and old[n - 1].id == new[n - 1].id for n in numbers)
