"""Text rules of the offline model: infer a tool's arguments from a step's text.

Pure functions over strings and JSON schemas, no I/O. (A mission is split into steps by
the one splitter, :func:`taskforce.planning.split.split_mission`.)
"""

from __future__ import annotations

import re
from typing import Any

# --- arguments for a plain tool, inferred from the step text -------------------------------

_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|'([^']+)'|`([^`]+)`")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_FILLER = re.compile(
    r"^(?:\s*(?:[:=,-]|in|for|of|on|to|about|with|at|from|the|a|an|tool|of)\b\s*|\s*[:=]\s*)+",
    re.IGNORECASE,
)


def _explicit(step: str, name: str) -> str | None:
    """A value written as `name=value` or `name: value` in the step."""
    match = re.search(rf"\b{re.escape(name)}\s*[=:]\s*(\"[^\"]*\"|[^\s,;]+)", step)
    return match.group(1).strip('"') if match else None


def _coerce(value: str, schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if kind in ("integer", "number"):
        number = _NUMBER.search(value)
        if number is None:
            return None
        return int(float(number.group())) if kind == "integer" else float(number.group())
    if kind == "boolean":
        return value.strip().lower() in ("true", "yes", "1", "on")
    if kind == "array":
        return [value]
    return value if kind in ("string", None) else None


def _after_mention(step: str, tool_name: str | None) -> str | None:
    """The words after the tool's name ("weather in Rome" → "Rome"), if any."""
    match = mention_pattern(tool_name).search(step) if tool_name else None
    rest = _FILLER.sub("", step[match.end() :]).strip(" .") if match else ""
    return rest or None


def infer_arguments(
    step: str, parameters: dict[str, Any], tool_name: str | None = None
) -> dict[str, Any] | None:
    """Arguments for a tool's JSON schema from a step's text, or None when it cannot.

    Explicit `name=value` wins; then a schema default; then an enum value the step
    mentions; numbers come from the first number in the step; text from the first quoted
    phrase, else the words after the tool's name, else the whole step.
    """
    props: dict[str, Any] = parameters.get("properties") or {}
    required = set(parameters.get("required") or ())
    quoted = next((next(g for g in m.groups() if g) for m in _QUOTED.finditer(step)), None)
    quoted = quoted or _after_mention(step, tool_name)
    args: dict[str, Any] = {}
    for name, schema in props.items():
        schema = schema if isinstance(schema, dict) else {}
        explicit = _explicit(step, name)
        value: Any = None
        if explicit is not None:
            value = _coerce(explicit, schema)
        elif "default" in schema:
            continue
        elif isinstance(schema.get("enum"), list) and schema["enum"]:
            hits = [v for v in schema["enum"] if mentions(step, str(v))]
            value = hits[0] if hits else (schema["enum"][0] if name in required else None)
        elif name in required:
            value = _coerce(quoted or step, schema)
        if value is not None:
            args[name] = value
        elif name in required:
            return None
    return args


# --- reading the conversation --------------------------------------------------------------


def mention_pattern(name: str) -> re.Pattern[str]:
    """`name` as a whole word, any case (`web_search` also as "web search")."""
    spoken = re.escape(name).replace("_", "[ _]")
    return re.compile(rf"(?<![\w-]){spoken}(?![\w-])", re.IGNORECASE)


def mentions(text: str, name: str) -> bool:
    """Whether `name` appears in `text` as a word."""
    return mention_pattern(name).search(text) is not None
