"""Tool calls a model wrote as text, and answers wrapped in a code fence.

Small models often write a call as text instead of using the tool-call channel:
```` ```json {"name": "save_note", "arguments": {"title": "x"}} ``` ```` (or the bare
object). Taken as the final answer, such a reply ends the run with a call that never ran.
:func:`calls_in_text` reads these calls back (only when the whole reply is made of calls),
so the loop runs them; a call of a tool the agent does not have (``{"name": "email",
"arguments": {...}}`` beside a ``send_email`` tool) is read back too, and answered as any
unknown tool is. :func:`clean_answer` unwraps a plain answer the model fenced, or wrapped in
a call of an answer tool nobody offered (``{"name": "final_answer", "arguments":
{"result": "..."}}``); :func:`plain_answer` also drops a leading "The final answer is:".
:func:`read_reply` applies both to a reply, and reads a call of such an answer tool sent
through the tool channel (``final_answer(answer="4 packs")``, the habit of models trained
on agents that end with a ``final_answer`` tool) as the answer it wraps. :func:`bare_data`
tells an answer that is still JSON data and no words. Pure functions: no I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from typing import Any

from taskforce.models.base import ToolCall

_FENCE = re.compile(r"```[ \t]*([A-Za-z_-]*)[ \t]*\n?(.*?)```", re.DOTALL)
_ARGUMENT_KEYS = ("arguments", "parameters", "args")
_ANSWER_TOOL = re.compile(r"answer|final|finish|submit|^respon(?:d|se)$|^reply$", re.IGNORECASE)
"""Names a model gives a made-up tool for its final answer (``final_answer``, ``respond``)."""
_ANSWER_KEYS = ("answer", "result", "response", "text", "content", "message", "output")


def read_reply(
    text: str | None, calls: Sequence[ToolCall], tools: Collection[str], turn: int
) -> tuple[tuple[ToolCall, ...], str | None]:
    """The calls a reply makes and its answer text, as the loop takes them.

    Calls sent through the tool channel stay calls, unless every one of them wraps an
    answer in a call of an answer tool nobody offered (see :func:`clean_answer`): the
    reply is then that answer. A reply with no calls may have written them as text
    (:func:`calls_in_text`); otherwise its text is the answer, unwrapped.
    """
    if calls:
        said = [_wrapped_answer(c.name, _arguments(c.arguments), tools) for c in calls]
        if all(said):
            return (), "\n".join(filter(None, said))
        return tuple(calls), text
    written = calls_in_text(text, tools, turn)
    return (written, None) if written else ((), text and clean_answer(text, tools))


_ONLY_ANSWER = re.compile(
    r"(?:final_?|give_?|submit_?|provide_?)?(?:answer|response|result)|final|finish|respond|reply",
    re.IGNORECASE,
)
"""Names that mean nothing but "the final answer" (``submit_order`` also reads as an
answer tool when it wraps one, see :data:`_ANSWER_TOOL`, but may be an action)."""


def is_answer_tool(name: str) -> bool:
    """Whether `name` means nothing but the final answer (``final_answer``, ``respond``)."""
    return _ONLY_ANSWER.fullmatch(name.strip()) is not None


def _arguments(text: str) -> Any:
    """Arguments written as a JSON text: the value, ``{}`` for none, None when not JSON."""
    try:
        return json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError):
        return None


def calls_in_text(text: str | None, tools: Collection[str], turn: int) -> tuple[ToolCall, ...]:
    """The calls written in `text`, or () when it is not made only of calls.

    Each fenced block (or the whole text, when it has no fence) must hold a JSON object
    ``{"name": <tool>, "arguments": {...}}`` (``parameters`` is accepted too), or a list
    of them; any other content means the text is an answer, not calls. A name that is
    none of `tools` counts only with its arguments written out, and not when the call
    wraps the final answer (see :func:`clean_answer`).
    """
    if not text or not text.strip():
        return ()
    text = _closed(text)
    blocks = [body for _, body in _FENCE.findall(text)]
    outside = _FENCE.sub("", text).strip()
    if not blocks:
        blocks, outside = [text], ""
    if outside:
        return ()
    found: list[tuple[str, dict[str, Any]]] = []
    for body in blocks:
        calls = _calls_in_block(body, tools)
        if not calls:
            return ()
        found.extend(calls)
    return tuple(
        ToolCall(id=f"call_text_{turn}_{n}", name=name, arguments=json.dumps(args))
        for n, (name, args) in enumerate(found, start=1)
    )


def _closed(text: str) -> str:
    """`text` with a fence it opens and never closes closed at its end.

    A reply that stops before its closing fence (```` ```json The total is 42. ```` with
    a line break after ``json``) is read as the fenced block it began.
    """
    stripped = text.strip()
    return f"{stripped}\n```" if stripped.startswith("```") and stripped.count("```") == 1 else text


def _calls_in_block(body: str, tools: Collection[str]) -> list[tuple[str, dict[str, Any]]]:
    try:
        value = json.loads(body.strip())
    except (ValueError, RecursionError):  # not JSON, or nested past the interpreter's limit
        return []
    items = value if isinstance(value, list) else [value]
    calls = [_call(item, tools) for item in items]
    return [c for c in calls if c is not None] if all(calls) and calls else []


_NO_ARGUMENTS = object()
"""The arguments of a call-shaped object that writes none out."""


def _named(item: Any) -> tuple[str, Any] | None:
    """``(name, arguments)`` of a call-shaped object, or None when it names nothing.

    The OpenAI wire shape (``{"function": {...}}``) is read too; the arguments are
    :data:`_NO_ARGUMENTS` when no ``arguments`` (``parameters``, ``args``) key is written.
    """
    if isinstance(item, dict) and isinstance(item.get("function"), dict):
        item = item["function"]  # the OpenAI wire shape, written as text
    name = item.get("name") if isinstance(item, dict) else None
    if not isinstance(name, str) or not name.strip():
        return None
    return name, next((item[k] for k in _ARGUMENT_KEYS if k in item), _NO_ARGUMENTS)


def _call(item: Any, tools: Collection[str]) -> tuple[str, dict[str, Any]] | None:
    named = _named(item)
    if named is None:
        return None
    name, args = named
    if name not in tools and (
        args is _NO_ARGUMENTS or _wrapped_answer(name, args, tools) is not None
    ):
        return None
    if args is _NO_ARGUMENTS:
        args = {}
    if isinstance(args, str):
        args = _arguments(args)
    return (name, args) if isinstance(args, dict) else None


def clean_answer(text: str, tools: Collection[str] = ()) -> str:
    """`text` without a code fence wrapped around the whole of it (a fenced plain answer).

    An answer wrapped in a call of an answer tool that is none of `tools` (``{"name":
    "final_answer", "arguments": {"result": "4 packs"}}``) is its text: ``4 packs``; so is
    one written as a tool result would be (``{"success": true, "output": "4 packs"}``).
    """
    unfenced = _unfenced(text)
    try:
        value = json.loads(unfenced)
    except (ValueError, RecursionError):
        return unfenced
    named = _named(value)
    wrapped = _wrapped_answer(*named, tools) if named is not None else _result_text(value)
    return unfenced if wrapped is None else wrapped


def _unfenced(text: str) -> str:
    """The body of a code fence wrapped around the whole of `text` (`text` itself if none)."""
    match = _FENCE.fullmatch(_closed(text).strip())
    return match.group(2).strip() if match else text


def bare_data(text: str | None) -> bool:
    """Whether an answer is JSON data alone (an object or a list, fenced or not): no words.

    What :func:`clean_answer` leaves of ``{"name": "Sofia Ruiz"}`` (a call with its tool
    left out) or of a tool result echoed back (``{"success": false, "error": ...}``).
    """
    body = _unfenced(text or "").strip()
    if body[:1] not in ("{", "["):
        return False
    try:
        return isinstance(json.loads(body), dict | list)
    except (ValueError, RecursionError):
        return False


_RESULT_KEYS = (*_ANSWER_KEYS, "final_answer", "summary", "error")


def _result_text(value: Any) -> str | None:
    """The text of an answer written as a JSON object: its one text, under an answer key.

    ``{"output": "no order needed"}``, ``{"success": true, "result": "5 notes"}``: small
    models answer in the shape of the tool results they read. Flags and numbers beside the
    text are dropped; an object with more than one text (``{"content": ..., "file_name":
    ...}``) is data, and stays as written.
    """
    if not isinstance(value, dict):
        return None
    texts = [k for k, v in value.items() if isinstance(v, str)]
    if len(texts) != 1 or texts[0] not in _RESULT_KEYS:
        return None
    if any(isinstance(v, dict | list) for v in value.values()):
        return None
    return str(value[texts[0]]).strip() or None


def _wrapped_answer(name: str, args: Any, tools: Collection[str]) -> str | None:
    """The text a call ``name(args)`` of a made-up answer tool wraps, if it is one.

    The name must be none of `tools` and read as an answer; the arguments must hold the
    text under an answer-like key, or be one plain value, or one tool result that has
    one (``{"previous_result": {"success": true, "output": "Booked."}}``).
    """
    if name in tools or not _ANSWER_TOOL.search(name):
        return None
    if isinstance(args, dict):
        found = [args[k] for k in _ANSWER_KEYS if isinstance(args.get(k), str)]
        if not found and len(args) == 1:
            (one,) = args.values()
            found = [one] if _plain(one) else [t for t in [_result_text(one)] if t]
        args = found[0] if found else None
    return (str(args).strip() or None) if _plain(args) else None


def _plain(value: Any) -> bool:
    """A string or a number (not a bool): a value that can be an answer's text."""
    return isinstance(value, str | int | float) and not isinstance(value, bool)


_LEAD = re.compile(r"(?:the\s+)?final\s+answer(?:\s+is)?\s*:\s*", re.IGNORECASE)
_QUOTES = {'"': '"', "“": "”", "'": "'"}


def plain_answer(text: str, tools: Collection[str] = ()) -> str:
    """`text` unfenced, without a leading "The final answer is:" and quotes around it all."""
    text = clean_answer(text, tools).strip()
    lead = _LEAD.match(text)
    if lead is None:
        return text
    text = text[lead.end() :].strip()
    if len(text) > 1 and _QUOTES.get(text[0]) == text[-1] and text[0] not in text[1:-1]:
        text = text[1:-1].strip()
    return text
