"""The payload checks behind :func:`taskforce.planning.contract.validate_plan_payload`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from taskforce.plan.checks import (
    MAX_VIOLATIONS,
    PlanContractError,
    Rule,
    Violation,
    check_dependencies,
)
from taskforce.plan.text import plural
from taskforce.planning._contract_model import (
    _STEP_ID,
    OPTIONAL_STEP_FIELDS,
    PLAN_FIELDS,
    STEP_FIELDS,
    ContractStep,
    PlanContract,
    ValidatedPlan,
    _short,
)


class _Found(list[Violation]):
    def add(self, rule: Rule, step: str | None, message: str) -> None:
        if len(self) < MAX_VIOLATIONS:
            self.append(Violation(rule, step, message))


def _fail(rule: Rule, message: str) -> PlanContractError:
    return PlanContractError([Violation(rule, None, message)])


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        dup = next(k for i, k in enumerate(keys) if k in keys[:i])
        raise ValueError(f"duplicate key {_short(dup)}")
    return dict(pairs)


def _bad_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def decode(payload: str | bytes | Mapping[str, Any], contract: PlanContract) -> Any:
    """The payload as Python data, or a single-violation error."""
    if isinstance(payload, Mapping):
        return payload
    if isinstance(payload, bytes | bytearray):
        if len(payload) > contract.max_bytes:
            raise _fail(Rule.TOO_LARGE, f"payload exceeds {contract.max_bytes} bytes")
        try:
            payload = bytes(payload).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _fail(Rule.MALFORMED_JSON, f"not UTF-8 text ({exc.reason})") from exc
    if not isinstance(payload, str):
        raise _fail(Rule.NOT_AN_OBJECT, f"payload must be JSON text, not {type(payload).__name__}")
    if len(payload) > contract.max_bytes or len(payload.encode("utf-8", "surrogatepass")) > (
        contract.max_bytes
    ):
        raise _fail(Rule.TOO_LARGE, f"payload exceeds {contract.max_bytes} bytes")
    try:
        return json.loads(payload, object_pairs_hook=_no_duplicates, parse_constant=_bad_constant)
    except RecursionError as exc:
        raise _fail(Rule.MALFORMED_JSON, "JSON nested too deeply") from exc
    except ValueError as exc:
        rule = Rule.DUPLICATE_KEY if "duplicate key" in str(exc) else Rule.MALFORMED_JSON
        message = str(exc) if rule is Rule.DUPLICATE_KEY else f"malformed JSON: {exc}"
        raise _fail(rule, message[:200]) from exc


def _text(found: _Found, step: str | None, name: str, value: Any, limit: int) -> str | None:
    if not isinstance(value, str):
        found.add(Rule.WRONG_TYPE, step, f"{name} must be a string, not {type(value).__name__}")
        return None
    if not value.strip():
        found.add(Rule.EMPTY_FIELD, step, f"{name} is empty")
        return None
    if len(value) > limit:
        found.add(Rule.INVALID_TEXT, step, f"{name} is {len(value)} characters; limit {limit}")
        return None
    if "\x00" in value or any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        found.add(Rule.INVALID_TEXT, step, f"{name} contains NUL or unpaired surrogates")
        return None
    return value


def _fields(
    found: _Found,
    where: str | None,
    obj: Mapping[Any, Any],
    required: tuple[str, ...],
    optional: tuple[str, ...] = (),
) -> None:
    for name in required:
        if name not in obj:
            found.add(Rule.MISSING_FIELD, where, f"missing field {name!r}")
    for name in obj:
        if name not in required and name not in optional:
            found.add(Rule.EXTRA_FIELD, where, f"extra field {_short(name)}")


def _step_ids(found: _Found, steps: list[Any]) -> list[str]:
    """Each step's id (or a positional label) after the numbering rules."""
    labels: list[str] = []
    numbers: list[int | None] = []
    for position, step in enumerate(steps, start=1):
        raw = step.get("step_id") if isinstance(step, Mapping) else None
        match = _STEP_ID.fullmatch(raw) if isinstance(raw, str) else None
        labels.append(match.group(0) if match else f"steps[{position - 1}]")
        numbers.append(int(match.group(1)) if match else None)
        if isinstance(step, Mapping) and "step_id" in step and match is None:
            found.add(Rule.BAD_STEP_ID, labels[-1], f"step_id {_short(raw)} is not step_<k>")
    if 1 not in numbers and any(n is not None for n in numbers):
        first = next(label for label, n in zip(labels, numbers, strict=True) if n is not None)
        found.add(Rule.MISSING_STEP_1, first, "numbering must start at step_1")
    highest = 0
    seen: set[int] = set()
    for label, number in zip(labels, numbers, strict=True):
        if number is None:
            continue
        if number in seen:
            found.add(Rule.DUPLICATE_STEP, label, f"{label} is declared twice")
        elif number < highest:
            found.add(Rule.OUT_OF_ORDER, label, f"{label} comes after step_{highest}")
        elif number > highest + 1 and (highest > 0 or 1 in numbers):
            found.add(Rule.SKIPPED_INDEX, label, f"step_{highest + 1} is missing before {label}")
        seen.add(number)
        highest = max(highest, number)
    return labels


def check_payload(
    payload: str | bytes | Mapping[str, Any], expected: int | None, contract: PlanContract
) -> ValidatedPlan:
    """See :func:`taskforce.planning.contract.validate_plan_payload`."""
    data = decode(payload, contract)
    if not isinstance(data, Mapping):
        raise _fail(
            Rule.NOT_AN_OBJECT, f"the plan must be one JSON object, not {type(data).__name__}"
        )
    found = _Found()
    _fields(found, None, data, PLAN_FIELDS)
    goal = _text(found, None, "goal", data["goal"], contract.max_text) if "goal" in data else None
    steps = data.get("steps")
    if "steps" in data and not isinstance(steps, list):
        found.add(Rule.WRONG_TYPE, None, "steps must be a list")
    steps = steps if isinstance(steps, list) else []
    if "steps" in data and not steps and isinstance(data.get("steps"), list):
        found.add(Rule.NO_STEPS, None, "the plan has no steps")
    if len(steps) > contract.max_steps:
        raise _fail(Rule.TOO_MANY_STEPS, f"{len(steps)} steps; the limit is {contract.max_steps}")
    if expected is not None and steps and len(steps) != expected:
        asked = plural(expected, "step was", "steps were")
        found.add(Rule.WRONG_COUNT, None, f"{asked} requested; got {len(steps)}")
    labels = _step_ids(found, steps)
    built: list[ContractStep] = []
    downgrades: list[str] = []
    deps_pairs: list[tuple[str, Any]] = []
    for label, step in zip(labels, steps, strict=True):
        if not isinstance(step, Mapping):
            found.add(
                Rule.NOT_AN_OBJECT, label, f"a step must be an object, not {type(step).__name__}"
            )
            continue
        _fields(found, label, step, STEP_FIELDS, OPTIONAL_STEP_FIELDS)
        desc = _text(found, label, "description", step.get("description", ""), contract.max_text)
        deliverable = _text(
            found, label, "deliverable", step.get("deliverable", ""), contract.max_text
        )
        tool = _text(found, label, "tool", step.get("tool", ""), 200)
        approval = step.get("requires_approval", False)
        if not isinstance(approval, bool):
            found.add(Rule.WRONG_TYPE, label, "requires_approval must be true or false")
        deps = step.get("depends_on", [])
        deps_pairs.append((label, deps))
        if tool is not None and tool not in contract.tools:
            if contract.on_unknown_tool == "refuse":
                found.add(
                    Rule.UNKNOWN_TOOL,
                    label,
                    f"tool {_short(tool)} is not in the whitelist ({', '.join(contract.tools)})",
                )
            else:
                note = f" [tool {tool!r} unavailable; downgraded to {contract.fallback_tool}]"
                downgrades.append(f"{label}: {tool} -> {contract.fallback_tool}")
                desc = desc + note if desc is not None else None
                deliverable = deliverable + note if deliverable is not None else None
                tool = contract.fallback_tool
        if desc is not None and deliverable is not None and tool is not None:
            ok_deps = deps if isinstance(deps, list) else []
            built.append(
                ContractStep(
                    label,
                    desc,
                    tool,
                    tuple(d for d in ok_deps if isinstance(d, str)),
                    deliverable,
                    approval is True,
                )
            )
    for violation in check_dependencies(deps_pairs):
        found.add(violation.rule, violation.step, violation.message)
    if found:
        raise PlanContractError(found)
    assert goal is not None
    return ValidatedPlan(goal, tuple(built), tuple(downgrades))
