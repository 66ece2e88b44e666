"""Text rules of the offline model: split a mission into steps, infer a tool's arguments.

Pure functions over strings and JSON schemas, no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

_MAX_INPUT = 20_000
_ITEM = re.compile(
    r"^(?:[-*+•·▪‣◦\u2013]|\(?\d{1,3}[.)]|\(?[a-z][)]|step\s+\d{1,3}\s*[:.)-])\s+(?P<text>.*\S)",
    re.IGNORECASE,
)
_INLINE_NUMBER = re.compile(r"(?:^|\s)\(?\d{1,2}[.)]\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?。\uff01\uff1f])\s+")
_ABBREV = re.compile(r"\b(e\.g|i\.e|etc|vs|cf|approx|Mr|Mrs|Ms|Dr|St|No)\.", re.IGNORECASE)
_SEQUENCE = re.compile(
    r"\s*;\s*|\s*(?:,\s*)?\b(?:and\s+then|then|after\s+that|afterwards|and\s+finally|"
    r"finally|lastly)\b[,:]?\s*",
    re.IGNORECASE,
)
_LEADING = re.compile(
    r"^(?:(?:first(?:ly)?|second(?:ly)?|next|also|and|then|finally|lastly|please)\b[,:]?\s*"
    r"|\[[ xX~-]?\]\s*|#+\s*|>\s*)+",
    re.IGNORECASE,
)


def _clean_text(text: str) -> str:
    """NFC-normalise, drop control characters (keeping newlines), cap the length."""
    text = unicodedata.normalize("NFC", text[:_MAX_INPUT]).replace("\t", " ")
    return "".join(ch for ch in text if ch == "\n" or unicodedata.category(ch)[0] != "C").replace(
        "\u2028", "\n"
    )


def _tidy_step(text: str, max_len: int) -> str:
    text = _LEADING.sub("", " ".join(text.split())).strip(" \t.!;,:-\u2013—")
    if len(text) > max_len:
        cut = text[: max_len - 1].rsplit(" ", 1)[0] or text[: max_len - 1]
        text = cut.rstrip(" ,;:") + "…"
    return text[:1].upper() + text[1:]


def _split_sequence(text: str) -> list[str]:
    pieces = _INLINE_NUMBER.split(text)
    if len(pieces) >= 3:  # "Do 1) this 2) that": the words before "1)" are context
        pieces = pieces[1:]
    else:
        protected = _ABBREV.sub(lambda m: m.group(0)[:-1] + "\x00", text)
        pieces = [s.replace("\x00", ".") for s in _SENTENCE_END.split(protected)]
    return [part for piece in pieces for part in _SEQUENCE.split(piece)]


def decompose(mission: str, *, max_steps: int = 30, max_len: int = 200) -> list[str]:
    """Split a mission into plan steps.

    A numbered or bulleted list gives one step per item (a line before the list is the
    mission's context, not a step); otherwise the text is split into sentences and each
    sentence at "then", "and then", "after that", "finally" and "; ". Steps are trimmed,
    de-duplicated and capped at `max_steps` steps of at most `max_len` characters.
    Empty or blank text gives no steps.
    """
    lines = [line.strip() for line in _clean_text(mission).splitlines() if line.strip()]
    items: list[str] = []
    for line in lines:
        match = _ITEM.match(line)
        if match:
            items.append(match["text"])
        elif items:
            items[-1] += " " + line
    raw = items if len(items) >= 2 else _split_sequence(" ".join(lines))
    steps: list[str] = []
    seen: set[str] = set()
    for piece in raw:
        step = _tidy_step(piece, max_len)
        if step and step.casefold() not in seen:
            seen.add(step.casefold())
            steps.append(step)
    return steps[:max_steps]


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
