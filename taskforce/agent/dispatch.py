"""Running the tool calls of one turn: argument parsing, execution, results as JSON.

Nothing a model sends can crash this: an unknown tool, malformed JSON, invalid arguments or
a tool that raises all become ``{"success": false, "error": ...}`` results for the model.
Calls run concurrently where the tool's ``supports_parallelism`` allows; the planner and
every other non-parallel tool run one at a time, in the order the model sent them.

A planner call is decoded once, when it is parsed (:meth:`PlannerTool.decode`): the
request is what the guards and approvals look at, and what the planner runs
(:meth:`PlannerTool.run`), so its arguments are never validated twice.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from taskforce.agent import textcalls
from taskforce.agent.prompts import DUPLICATE_IN_TURN, cut_off_call
from taskforce.errors import ToolInputError
from taskforce.models.base import Message, ToolCall
from taskforce.plan.requests import PlanRequest
from taskforce.tools.arguments import ArgumentsError, decode_arguments
from taskforce.tools.base import ToolProtocol, error_result, is_read_only
from taskforce.tools.planner import PlannerTool
from taskforce.tools.planner_calls import PlanChange

log = logging.getLogger("taskforce.agent")

PLANNER = "planner"
MAX_RESULT_CHARS = 16_000


@dataclass(slots=True)
class Prepared:
    """A tool call ready to run, or already answered (`preset`) by a guard or the parser.

    For a planner call, `request` is its decoded request (or `refusal` the planner's
    answer to arguments it cannot take), and `change` what running it did.
    """

    call: ToolCall
    args: dict[str, Any]
    preset: dict[str, Any] | None = None
    signature: str = ""
    duplicate_of: Prepared | None = None
    request: PlanRequest | None = None
    refusal: dict[str, Any] | None = None
    change: PlanChange | None = None
    reused: bool = False
    """A repeat answered with an earlier successful run that now counts as a step's work."""
    read_only: bool = False
    """The tool says its calls change nothing (they leave earlier results current)."""
    approval: bool = False
    """The tool asks a human before each call: a repeat is never run again without one."""
    recheck: dict[str, Any] | None = None
    """A repeat run again (an action came after its earlier result, given here); its
    `preset` is the answer when the result is the same."""


ResultHandler = Callable[[Prepared, dict[str, Any]], Awaitable[None]]


def loop_call(planner: PlannerTool, request: PlanRequest, call_id: str) -> Prepared:
    """A planner call the loop makes on the model's behalf (e.g. the plan a turn had to make)."""
    args = planner.encode(request)
    call = ToolCall(id=call_id, name=planner.name, arguments=json.dumps(args, ensure_ascii=False))
    return Prepared(call, args, signature=signature(call.name, args), request=request)


_SENT_CHARS = 200
"""How much of arguments that are not JSON an error result quotes back to the model."""


def parse_call(
    call: ToolCall, tools: Mapping[str, ToolProtocol], *, cut_off: bool = False
) -> Prepared:
    """Look the tool up and decode its arguments; problems become a preset error result.

    `cut_off`: the reply stopped at the model's output limit, so arguments that are not
    valid JSON were cut short (the error says so, not "a missing bracket").
    """
    if call.name not in tools:
        known = ", ".join(sorted(tools))
        msg = f"Unknown tool {call.name!r}. Available tools: {known}."
        if textcalls.is_answer_tool(call.name):
            msg += " To give the final answer, reply with it in plain text, with no tool call."
        return Prepared(call, {}, error_result(msg, "unknown_tool"))
    try:
        args = _decode(call.arguments)
    except ArgumentsError as exc:
        msg = f"The arguments were refused: {exc}."
        return Prepared(call, {}, error_result(msg, "malformed_arguments"))
    except ValueError as exc:
        sent = call.arguments[:_SENT_CHARS] + ("…" if len(call.arguments) > _SENT_CHARS else "")
        msg = (
            f"The arguments are not valid JSON ({exc}); you sent: {sent}. "
            "Send one JSON object of arguments."
        )  # the call goes back to the model as {} (session.wire_arguments): the text is here
        if cut_off:
            msg = cut_off_call(len(call.arguments), isinstance(tools[call.name], PlannerTool))
        return Prepared(call, {}, error_result(msg, "malformed_arguments"))
    if not isinstance(args, dict):
        msg = f"The arguments must be a JSON object, not {type(args).__name__}."
        return Prepared(call, {}, error_result(msg, "malformed_arguments"))
    tool = tools[call.name]
    item = Prepared(
        call, args, signature=signature(call.name, args), read_only=is_read_only(tool),
        approval=bool(tool.requires_approval),
    )  # fmt: skip
    if isinstance(tool, PlannerTool):
        try:
            item.request = tool.decode(args)
        except ToolInputError as exc:
            item.refusal = error_result(tool.corrected(str(exc), args), exc.error_type)
    return item


def _decode(text: str) -> Any:
    value: Any = decode_arguments(text or "")
    if isinstance(value, str) and value.strip().startswith("{"):
        value = decode_arguments(value)  # some small models double-encode the object
    return value


def signature(name: str, args: Mapping[str, Any]) -> str:
    """A canonical text of a call, equal for equal name and arguments.

    Numbers are compared as JSON means them: ``250`` and ``250.0`` are the same amount (a
    small model that sent a transfer of 250.0 and then of 250 made the same call twice).
    """
    return name + json.dumps(_same_numbers(args), sort_keys=True, ensure_ascii=False, default=str)


def _same_numbers(value: Any) -> Any:
    """`value` with every whole float (250.0) written as the integer it equals."""
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, Mapping):
        return {k: _same_numbers(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_same_numbers(v) for v in value]
    return value


def tool_message(call: ToolCall, result: Mapping[str, Any]) -> Message:
    """The OpenAI tool message carrying `result` as a JSON string (long results cut)."""
    text = json.dumps(result, ensure_ascii=False, default=str)
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"… [cut: {len(text) - MAX_RESULT_CHARS} more chars]"
    return {"role": "tool", "tool_call_id": call.id, "content": text}


async def run_tool(tool: ToolProtocol, args: dict[str, Any]) -> dict[str, Any]:
    """Validate and run one call; every failure becomes an error result."""
    try:
        ok, problem = tool.validate_params(**args)
        if not ok:
            msg = f"Invalid arguments: {problem}. Call it like this: {usage(tool, args)}"
            return error_result(msg, "invalid_arguments")
        result = await tool.execute(**args)
    except ToolInputError as exc:
        return error_result(str(exc), exc.error_type)
    except Exception as exc:
        log.debug("tool %s raised %s", tool.name, type(exc).__name__)
        return error_result(f"The tool failed: {type(exc).__name__}: {exc}", "tool_exception")
    if not isinstance(result, dict):
        return {"success": True, "output": result}
    return result


def usage(tool: ToolProtocol, args: Mapping[str, Any]) -> str:
    """A corrected call of `tool` for the model: its arguments, required ones filled in.

    ``save_note({"text": "x"})`` missing ``title`` becomes
    ``{"name": "save_note", "arguments": {"title": "<string>", "text": "x"}}``.
    """
    schema = tool.parameters_schema
    properties = schema.get("properties") or {}
    required = [p for p in schema.get("required") or [] if isinstance(p, str)]
    fixed: dict[str, Any] = {}
    for name in dict.fromkeys([*required, *args]):
        if name in args and name in properties:
            fixed[name] = args[name]
        elif name in required:
            kind = (properties.get(name) or {}).get("type", "value")
            fixed[name] = f"<{kind}>"
    call = {"name": tool.name, "arguments": fixed}
    return json.dumps(call, ensure_ascii=False, default=str)


async def run_calls(
    items: Sequence[Prepared], tools: Mapping[str, ToolProtocol], on_result: ResultHandler
) -> None:
    """Run `items`: presets answered first, then the rest (parallel where allowed)."""
    serial = asyncio.Lock()
    results: dict[int, dict[str, Any]] = {}

    async def one(item: Prepared) -> None:
        tool = tools[item.call.name]
        if tool.name == PLANNER or not tool.supports_parallelism:
            async with serial:
                results[id(item)] = await _run(tool, item)
        else:
            results[id(item)] = await _run(tool, item)
        await on_result(item, results[id(item)])

    for item in items:
        if item.preset is not None and item.recheck is None:
            await on_result(item, item.preset)
    runnable = [i for i in items if runs(i)]
    await asyncio.gather(*(one(i) for i in runnable))
    for item in items:
        if item.preset is None and item.duplicate_of is not None:
            await on_result(item, _duplicate(item, results[id(item.duplicate_of)]))


async def _run(tool: ToolProtocol, item: Prepared) -> dict[str, Any]:
    """The planner runs its decoded request; other tools are validated and run."""
    if item.refusal is not None:
        return item.refusal
    if item.request is not None and isinstance(tool, PlannerTool):
        result, item.change = await tool.run(item.request)
        return result
    return await run_tool(tool, item.args)


def runs(item: Prepared) -> bool:
    """Whether `item` is run (not answered by a guard, or a repeat run again to recheck)."""
    return (item.preset is None or item.recheck is not None) and item.duplicate_of is None


def _duplicate(item: Prepared, first: dict[str, Any]) -> dict[str, Any]:
    msg = DUPLICATE_IN_TURN.format(first=item.duplicate_of.call.id if item.duplicate_of else "?")
    return error_result(msg, "repeated_call") | {"previous_result": first}
