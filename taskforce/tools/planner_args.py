"""The planner's arguments: parsing what a model sends, and the schema it is shown.

Tolerant, never silent: a stringified JSON list is accepted where a list is expected,
`"2"` where `2` is, a single index where a list is; anything else is refused with a
message that names the parameter.

Strict models (OpenAI ``"strict": true``) send every parameter: ``null`` means "not
given", and a placeholder for a parameter the action does not use (``insert_at: 0``,
``status: "DONE"`` on create_plan, an empty list or text) is ignored. A real value for a
parameter of another action is still refused.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from annotated_types import Ge
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
)

from taskforce.errors import ToolInputError
from taskforce.tools.arguments import ArgumentsError, decode_arguments
from taskforce.tools.base import compact_schema
from taskforce.tools.strict import nullable, to_strict

ACTIONS = ("create_plan", "mark_done", "read_plan", "update_plan")
Action = Literal["create_plan", "mark_done", "read_plan", "update_plan"]
Status = Literal["DONE", "IN_PROGRESS", "FAILED", "SKIPPED", "PENDING"]


def _no_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("must be an integer, not a boolean")
    return value


def _json_list(value: Any) -> Any:
    """Accept `'["a", "b"]'` for a list, and a single item for a one-item list."""
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            return decode_arguments(value)  # bounded: "[[[[..." is refused, not a RecursionError
        except ArgumentsError as exc:
            raise ValueError(f"looks like a JSON list but {exc}") from exc
        except json.JSONDecodeError as exc:
            raise ValueError(f"looks like a JSON list but does not parse: {exc.msg}") from exc
    if value is not None and not isinstance(value, list | tuple | dict):
        return [value]
    return value


def _upper(value: Any) -> Any:
    return value.strip().upper().replace(" ", "_") if isinstance(value, str) else value


def _null_is(default: Any) -> BeforeValidator:
    return BeforeValidator(lambda value: default if value is None else value)


Index = Annotated[int, Ge(1), BeforeValidator(_no_bool)]
Indices = Annotated[list[Index], BeforeValidator(_json_list)]


# Only the schema the model sees (its docstring is part of it): items are checked by the
# plan's own rules (taskforce.plan.specs.to_spec), whose messages name the real problem.
class TaskArg(BaseModel):
    """A step with dependencies (numbers of earlier steps), an approval flag, a parent."""

    model_config = ConfigDict(extra="forbid")

    description: str
    depends_on: Annotated[list[Index], _null_is([])] = []
    requires_approval: Annotated[bool, _null_is(False)] = False
    parent: Index | None = None


def _inline_refs(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_inline_refs(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _inline_refs(defs[ref.removeprefix("#/$defs/")], defs)
    return {k: _inline_refs(v, defs) for k, v in node.items()}


_TASKS_SCHEMA = TypeAdapter(list[str | TaskArg]).json_schema()
_TASKS_SCHEMA = _inline_refs(_TASKS_SCHEMA, _TASKS_SCHEMA.pop("$defs", {}))

Texts = Annotated[list[Any], BeforeValidator(_json_list), WithJsonSchema(_TASKS_SCHEMA)]


class PlannerArgs(BaseModel):
    """Arguments of one `planner` call. All but `action` are optional."""

    model_config = ConfigDict(extra="forbid")

    action: Action
    tasks: Texts | None = None
    step_index: Annotated[Indices | None, Field(description="step number(s), from 1")] = None
    status: Annotated[Status, BeforeValidator(_upper)] | None = None
    note: str | None = None
    # Objects are accepted here too; the schema shows texts to keep the definition small.
    add_steps: Annotated[
        Texts | None, WithJsonSchema({"type": "array", "items": {"type": "string"}})
    ] = None
    insert_at: Annotated[Index | None, Field(description="add before this step")] = None
    remove_indices: Indices | None = None
    text: str | None = None


_USES: dict[str, frozenset[str]] = {
    "create_plan": frozenset({"tasks"}),
    "mark_done": frozenset({"step_index", "status", "note"}),
    "read_plan": frozenset(),
    "update_plan": frozenset({"add_steps", "insert_at", "remove_indices", "step_index", "text"}),
}
_PARAMETERS = frozenset(PlannerArgs.model_fields) - {"action"}
_OTHERS = {  # per action, the parameters it does not use, in the order of PlannerArgs
    action: tuple(name for name in PlannerArgs.model_fields if name in _PARAMETERS - uses)
    for action, uses in _USES.items()
}


def parse_args(params: dict[str, Any]) -> PlannerArgs:
    """Validate raw call arguments; raise :class:`ToolInputError` naming the problem."""
    action = params.get("action")
    if action is None:
        raise ToolInputError("Missing required parameter 'action' (one of " + _actions() + ")")
    if action not in ACTIONS:
        raise ToolInputError(
            f"Unknown action {_short(action)}: use one of {_actions()}", "unknown_action"
        )
    try:
        args = PlannerArgs.model_validate(_given(params, action))
    except ValidationError as exc:
        raise ToolInputError(_describe(exc)) from exc
    given = args.model_fields_set  # a parameter not given is None: never stray
    stray = [
        name for name in _OTHERS[action] if name in given and getattr(args, name) not in (None, [])
    ]
    if stray:
        raise ToolInputError(f"parameter {stray[0]!r} does not apply to {action}")
    return args


def _placeholder(name: str, value: Any) -> bool:
    """Whether `value` is what a strict model sends for a parameter it does not mean to set."""
    if value is None or value == [] or (isinstance(value, str) and not value.strip()):
        return True
    if name == "status":
        return isinstance(value, str) and value.strip().upper() == "DONE"
    if name in ("insert_at", "step_index", "remove_indices"):
        return value in (0, "0", [0]) and not isinstance(value, bool) and value != [False]
    return False


def _given(params: dict[str, Any], action: str) -> dict[str, Any]:
    """The parameters actually given: nulls, and placeholders the action has no use for, go."""
    uses = _USES[action]
    given = {k: v for k, v in params.items() if v is not None}
    for name in [k for k in given if k in _PARAMETERS]:
        value = given[name]
        unused = name not in uses or (
            name == "insert_at" and _placeholder("add_steps", given.get("add_steps"))
        )
        if unused and _placeholder(name, value):
            del given[name]
    if "insert_at" in given and _placeholder("insert_at", given["insert_at"]):
        raise ToolInputError(  # with steps to add, 0 may mean "at the start": do not guess
            "insert_at 0 is out of bounds: steps are numbered from 1, so it must be >= 1 "
            "(insert_at 1 adds at the start; null adds at the end)"
        )
    if action == "update_plan" and all(  # no rewording asked for
        _placeholder(k, given.get(k)) for k in ("step_index", "text")
    ):
        given.pop("step_index", None)
        given.pop("text", None)
    return given


def strict_schema() -> dict[str, Any]:
    """The OpenAI strict form of the arguments: every parameter required, optional ones nullable.

    `add_steps` takes the same items as `tasks` (texts or step objects) here: a strict
    model can send only what the schema shows.
    """
    raw = PlannerArgs.model_json_schema()
    schema: dict[str, Any] = to_strict(_inline(raw, raw.pop("$defs", {})))
    schema.pop("description", None)  # the tool's description says it
    properties = schema["properties"]
    properties["add_steps"] = nullable({**properties["tasks"], "type": "array"})
    return schema


def wire_schema() -> dict[str, Any]:
    """The compact JSON Schema the model sees, generated from :class:`PlannerArgs`.

    Bounds and defaults are left to validation (its errors say them), which keeps the
    definition small; everything the model may send is still described.
    """
    raw = PlannerArgs.model_json_schema()
    schema: dict[str, Any] = _lean(_inline(raw, raw.pop("$defs", {})))
    schema["required"] = ["action"]
    return schema


def working_schema() -> dict[str, Any]:
    """:func:`wire_schema` for a model working through an open plan: no ``create_plan``.

    It has no ``tasks`` and no ``create_plan`` action; the arguments it leaves out are
    still accepted (validation is the same), they are just not shown.
    """
    schema = wire_schema()
    properties = schema["properties"]
    del properties["tasks"]
    properties["action"]["enum"] = [a for a in ACTIONS if a != "create_plan"]
    return schema


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """Replace each `$ref` by the definition it names (the planner's are not recursive)."""
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _inline(defs[ref.removeprefix("#/$defs/")], defs)
    return compact_schema({k: _inline(v, defs) for k, v in node.items()})


def _lean(node: Any, *, names: bool = False) -> Any:
    """Drop bounds, defaults, descriptions and `additionalProperties` (validation has them)."""
    if isinstance(node, list):
        return [_lean(item) for item in node]
    if not isinstance(node, dict):
        return node
    if names:  # a `properties` mapping: its keys are parameter names, keep them all
        return {k: _lean(v) for k, v in node.items()}
    drop = {"minimum", "default", "description", "additionalProperties", "required"}
    return {
        k: _lean(v, names=k in {"properties", "$defs"}) for k, v in node.items() if k not in drop
    }


def _describe(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = str(first["loc"][0]) if first["loc"] else "arguments"
    if first["type"] == "extra_forbidden":
        return f"unexpected parameter {_short(first['loc'][0])}"
    if first["type"] == "greater_than_equal":  # an index below 1
        return f"{where} {_short(first['input'])} is out of bounds: it must be >= 1"
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"{where}: {message} (got {_short(first['input'])})"


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _actions() -> str:
    return ", ".join(ACTIONS)
