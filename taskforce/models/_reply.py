"""A litellm reply as a :class:`~taskforce.models.base.ModelResponse` (pure, no litellm import).

Tool calls without an id, or with a repeated one, get a stable id derived from the reply;
content parts are joined; an empty text beside tool calls is no text.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from taskforce.models.base import ModelResponse, ToolCall, Usage


def convert_reply(response: Any) -> ModelResponse:
    """The :class:`ModelResponse` of a litellm reply (OpenAI shape, objects or dicts).

    Raises:
        ValueError: the reply has no choices.
    """
    choices = getattr(response, "choices", None) or []
    if not choices:
        raise ValueError("the reply has no choices")
    message = choices[0].message
    calls = []
    seen: set[str] = set()
    for index, raw in enumerate(getattr(message, "tool_calls", None) or []):
        function = _get(raw, "function")
        name = str(_get(function, "name") or "")
        arguments = _get(function, "arguments")
        if not isinstance(arguments, str):
            arguments = "{}" if arguments is None else json.dumps(arguments, default=str)
        call_id = _get(raw, "id")
        if not isinstance(call_id, str) or not call_id or call_id in seen:
            call_id = _stable_id(getattr(response, "id", ""), index, name, arguments)
        seen.add(call_id)
        calls.append(ToolCall(id=call_id, name=name, arguments=arguments))
    usage = getattr(response, "usage", None)
    return ModelResponse(
        cut_off=_get(choices[0], "finish_reason") == "length",
        content=_text(getattr(message, "content", None)),
        tool_calls=tuple(calls),
        usage=Usage(
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        ),
    )


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def _text(content: Any) -> str | None:
    """The reply text; None when there is none (some servers send "" beside tool calls)."""
    if isinstance(content, list):  # content parts
        content = "".join(str(_get(p, "text") or "") for p in content)
    elif content is not None and not isinstance(content, str):
        content = str(content)
    return content if content and content.strip() else None


def _stable_id(response_id: Any, index: int, name: str, arguments: str) -> str:
    digest = hashlib.sha256(f"{response_id}\0{index}\0{name}\0{arguments}".encode()).hexdigest()
    return f"call_{digest[:24]}"
