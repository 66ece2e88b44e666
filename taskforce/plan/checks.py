"""Structural checks of a plan: step ids, dependencies, parents, approval flags.

The rules every plan obeys, whether it arrives as a stored state, a Plan.md import or a
contract payload (:func:`taskforce.planning.validate_plan_payload` reuses them): ids are
unique non-empty strings; a step depends only on ids of *earlier* steps (no self,
forward, unknown or repeated references, hence no cycles); a sub-step's ``parent`` is an
earlier step, its sub-steps follow it as one block (the plan lists a tree in order), and
no step depends on its own parent or a parent's parent (a parent finishes with its
sub-steps); ``requires_approval`` is a boolean. Each violation names its step and its
:class:`Rule`. Pure; no I/O.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from taskforce.errors import PlanError

MAX_VIOLATIONS = 50


class Rule(enum.StrEnum):
    """The contract rule a violation breaks."""

    MALFORMED_JSON = "malformed_json"
    NOT_AN_OBJECT = "not_an_object"
    TOO_LARGE = "too_large"
    DUPLICATE_KEY = "duplicate_key"
    MISSING_FIELD = "missing_field"
    EXTRA_FIELD = "extra_field"
    WRONG_TYPE = "wrong_type"
    EMPTY_FIELD = "empty_field"
    INVALID_TEXT = "invalid_text"
    NO_STEPS = "no_steps"
    TOO_MANY_STEPS = "too_many_steps"
    BAD_STEP_ID = "bad_step_id"
    MISSING_STEP_1 = "missing_step_1"
    SKIPPED_INDEX = "skipped_index"
    OUT_OF_ORDER = "out_of_order"
    DUPLICATE_STEP = "duplicate_step"
    WRONG_COUNT = "wrong_count"
    UNKNOWN_DEPENDENCY = "unknown_dependency"
    FORWARD_DEPENDENCY = "forward_dependency"
    SELF_DEPENDENCY = "self_dependency"
    DUPLICATE_DEPENDENCY = "duplicate_dependency"
    BAD_PARENT = "bad_parent"
    UNKNOWN_TOOL = "unknown_tool"


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: which step (None for the whole payload), which rule, and why."""

    rule: Rule
    step: str | None
    message: str

    def __str__(self) -> str:
        where = self.step if self.step is not None else "plan"
        return f"{where}: {self.message} [{self.rule.value}]"


class PlanContractError(PlanError):
    """A plan payload or plan state breaks the contract; `violations` lists every break."""

    def __init__(self, violations: Sequence[Violation]) -> None:
        shown = "; ".join(str(v) for v in violations[:5])
        more = f" (and {len(violations) - 5} more)" if len(violations) > 5 else ""
        super().__init__(f"plan contract violated: {shown}{more}", violations[0].rule.value)
        self.violations = tuple(violations)


def check_dependencies(steps: Iterable[tuple[str, Any]]) -> list[Violation]:
    """Dependency violations of ``(step_id, depends_on)`` pairs given in plan order.

    Each `depends_on` must be a list of ids of earlier steps (no self, forward, unknown or
    repeated references). Shared by payloads and plan states.
    """
    pairs = list(steps)
    position: dict[str, int] = {}
    for index, (step_id, _) in enumerate(pairs):
        position.setdefault(step_id, index)
    found: list[Violation] = []
    for index, (step_id, deps) in enumerate(pairs):
        if deps is None:
            continue
        if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
            found.append(
                Violation(Rule.WRONG_TYPE, step_id, "depends_on must be a list of step ids")
            )
            continue
        seen: set[str] = set()
        for dep in deps:
            short = _short(dep)
            if dep in seen:
                found.append(Violation(Rule.DUPLICATE_DEPENDENCY, step_id, f"lists {short} twice"))
            elif dep == step_id:
                found.append(Violation(Rule.SELF_DEPENDENCY, step_id, "depends on itself"))
            elif dep not in position:
                found.append(
                    Violation(Rule.UNKNOWN_DEPENDENCY, step_id, f"depends on undeclared {short}")
                )
            elif position[dep] > index:
                found.append(
                    Violation(
                        Rule.FORWARD_DEPENDENCY, step_id, f"depends on {short}, which comes later"
                    )
                )
            seen.add(dep)
    return found


def check_parents(
    steps: Iterable[tuple[str, Any, Any]], label: Callable[[str], str] | None = None
) -> list[Violation]:
    """Parent violations of ``(step_id, parent, depends_on)`` triples given in plan order.

    A parent is an earlier step; the steps under one parent form one block right after
    it (so each step's parent is the step before it or one of that step's parents); a
    step does not depend on any of its parents. `label` names a step id in messages.
    """
    name = label or _short
    found: list[Violation] = []
    chain: list[str] = []  # the previous step and its parents, innermost last
    seen: set[str] = set()
    for step_id, parent, deps in steps:
        problem = None
        if parent is not None and not isinstance(parent, str):
            problem = Violation(Rule.WRONG_TYPE, name(step_id), "parent must be a step id or null")
        elif parent is not None and parent not in seen:
            what = "is its own parent" if parent == step_id else "has a parent that is not earlier"
            problem = Violation(Rule.BAD_PARENT, name(step_id), what)
        elif parent is not None and parent not in chain:
            problem = Violation(
                Rule.BAD_PARENT,
                name(step_id),
                f"is a sub-step of {name(parent)} but does not follow its other sub-steps "
                "(sub-steps come right after their parent)",
            )
        if problem is not None:
            found.append(problem)
        while chain and chain[-1] != parent:
            chain.pop()
        if isinstance(deps, list):
            for dep in deps:
                if dep in chain:
                    found.append(
                        Violation(
                            Rule.BAD_PARENT,
                            name(step_id),
                            f"depends on {name(dep)}, which it is part of "
                            "(a parent finishes with its sub-steps)",
                        )
                    )
        seen.add(step_id)
        chain.append(step_id)
    return found


def check_plan_state(state: Mapping[str, Any] | None) -> None:
    """Check a plan state's structure: unique string ids, dependencies, approval flags.

    Used by the Plan.md import and (for dependencies) the planner tool.

    Raises:
        PlanContractError: a violation, naming the step and the rule.
    """
    tasks = (state or {}).get("tasks") or []
    found: list[Violation] = []
    if not isinstance(tasks, list):
        raise PlanContractError([Violation(Rule.WRONG_TYPE, None, "tasks must be a list")])
    seen: set[str] = set()
    pairs: list[tuple[str, Any]] = []
    triples: list[tuple[str, Any, Any]] = []
    for number, task in enumerate(tasks, start=1):
        step_id = task.get("id") if isinstance(task, Mapping) else None
        if not isinstance(step_id, str) or not step_id:
            found.append(Violation(Rule.BAD_STEP_ID, f"step {number}", "has no string id"))
            continue
        if step_id in seen:
            found.append(Violation(Rule.DUPLICATE_STEP, step_id, "id used twice"))
        seen.add(step_id)
        approval = task.get("requires_approval")
        if approval is not None and not isinstance(approval, bool):
            found.append(
                Violation(Rule.WRONG_TYPE, step_id, "requires_approval must be true or false")
            )
        pairs.append((step_id, task.get("depends_on")))
        triples.append((step_id, task.get("parent"), task.get("depends_on")))
    found.extend(check_dependencies(pairs))
    if any(parent is not None for _, parent, _ in triples):
        found.extend(check_parents(triples))
    if found:
        raise PlanContractError(found[:MAX_VIOLATIONS])


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
