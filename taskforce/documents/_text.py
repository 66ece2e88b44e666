"""Text codecs for the Markdown documents: times, YAML frontmatter, safe lines, table cells.

Everything is written so it reads back exactly: a value that would not survive as plain
Markdown is written as a JSON string instead (which is also a valid YAML scalar).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from datetime import UTC, datetime

from taskforce.errors import UserError
from taskforce.plan.text import clean_text, escape_inline, scrub

Scalar = str | int | None
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*))?$")
_ENTITY = re.compile(r"&(lt|gt|amp);")


# ---- times ----------------------------------------------------------------------------


def to_second(value: datetime) -> datetime:
    """`value` without microseconds (for display rows)."""
    return value.replace(microsecond=0)


def format_time(value: datetime) -> str:
    """ISO 8601: ``2026-02-03T09:15:00Z`` for aware times (in UTC), no ``Z`` for naive ones.

    Microseconds are written only when present, so a time reads back exactly.
    """
    if value.tzinfo is not None:
        value = value.astimezone(UTC)
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond:06d}"
    return text + ("Z" if value.tzinfo is not None else "")


def parse_time(text: str, where: str) -> datetime:
    """The inverse of :func:`format_time` (any ISO 8601 time is accepted)."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise UserError(f"{where}: {text[:40]!r} is not an ISO 8601 time") from exc
    return value.astimezone(UTC) if value.tzinfo is not None else value


# ---- scalars and lines ----------------------------------------------------------------


def quote(text: str) -> str:
    """A JSON string literal that is also a safe YAML double-quoted scalar."""
    out = []
    for ch in json.dumps(text, ensure_ascii=False):
        if unicodedata.category(ch) in _UNSAFE_CATEGORIES or ch == "\ufeff":
            out.append(_u_escape(ch))
        else:
            out.append(ch)
    return "".join(out)


def unquote(text: str, where: str) -> str:
    """The string a :func:`quote` literal stands for."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise UserError(f"{where}: malformed quoted string") from exc
    if not isinstance(value, str):
        raise UserError(f"{where}: expected a quoted string")
    return scrub(value)  # "\ud800" decodes to a lone surrogate: never stored


def unescape_inline(text: str) -> str:
    """The inverse of :func:`taskforce.plan.text.escape_inline`."""
    return text.replace("&lt;", "<").replace("&gt;", ">")


def encode_line(text: str) -> str:
    """`text` as one Markdown line: itself (HTML-escaped) when that reads back, else JSON."""
    shown = escape_inline(text)
    plain = bool(text) and text == clean_text(text) and not text.startswith('"')
    if plain and unescape_inline(shown) == text and "&lt;" not in text and "&gt;" not in text:
        return shown
    return quote(text)


def decode_line(text: str, where: str) -> str:
    """The inverse of :func:`encode_line`."""
    text = text.strip()
    if text.startswith('"'):
        return unquote(text, where)
    return unescape_inline(text)


def heading_text(text: str) -> str:
    """A one-line, HTML-escaped rendering of `text` for a heading (lossy by design)."""
    return escape_inline(clean_text(text)) or "(untitled)"


# ---- table cells ----------------------------------------------------------------------


def encode_cell(text: str) -> str:
    """A table cell that reads back exactly (pipes, newlines, HTML and controls escaped)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    out = []
    for ch in text:
        if ch in "\\|":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif unicodedata.category(ch) in _UNSAFE_CATEGORIES or ch == "\ufeff":
            out.append(_u_escape(ch))
        else:
            out.append(ch)
    return "".join(out)


def _u_escape(ch: str) -> str:
    """A JSON-style unicode escape (a surrogate pair for astral characters)."""
    if ord(ch) < 0x10000:
        return f"\\u{ord(ch):04x}"
    return json.dumps(ch)[1:-1]


def split_row(line: str, where: str) -> list[str]:
    """The decoded cells of a table row written with :func:`encode_cell`."""
    body = line.strip()
    if not (body.startswith("|") and body.endswith("|") and len(body) >= 2):
        raise UserError(f"{where}: a table row must start and end with '|'")
    raw_cells: list[str] = []
    current: list[str] = []
    i, end = 1, len(body) - 1
    while i < end:
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            current.append(body[i : i + 2])
            i += 2
            continue
        if ch == "|":
            raw_cells.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    raw_cells.append("".join(current))
    return [_decode_cell(c.strip()) for c in raw_cells]


_CELL_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
_ENTITIES = {"lt": "<", "gt": ">", "amp": "&"}


def _decode_cell(raw: str) -> str:
    def unescape(match: re.Match[str]) -> str:
        code = match.group(1)
        if len(code) == 5:
            return chr(int(code[1:], 16))
        return "\n" if code == "n" else code

    text = _CELL_ESCAPE.sub(unescape, raw)
    return join_surrogates(_ENTITY.sub(lambda m: _ENTITIES[m.group(1)], text))


def join_surrogates(text: str) -> str:
    """Combine surrogate pairs left by decoding escapes one at a time (lone ones: U+FFFD)."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


# ---- frontmatter ----------------------------------------------------------------------


def write_frontmatter(pairs: Sequence[tuple[str, Scalar]]) -> str:
    """``---`` / ``key: value`` lines / ``---``; strings quoted, None as ``null``."""
    lines = ["---"]
    for key, value in pairs:
        if value is None:
            lines.append(f"{key}: null")
        elif isinstance(value, bool):
            lines.append(f"{key}: {'true' if value else 'false'}")
        elif isinstance(value, int):
            lines.append(f"{key}: {value}")
        else:
            lines.append(f"{key}: {quote(value)}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def read_frontmatter(lines: Sequence[str]) -> tuple[dict[str, Scalar], int]:
    """Parse the frontmatter at the top of `lines`; returns (values, index after it).

    Strict about what it reads (``key: value`` with quoted strings, integers, ``null``),
    tolerant of what it skips: indented or list lines (e.g. Obsidian ``tags``) and
    unquoted values are accepted, the latter as plain strings.
    """
    if not lines or lines[0].strip() != "---":
        raise UserError("line 1: a Plan.md starts with '---' (YAML frontmatter)")
    values: dict[str, Scalar] = {}
    for index in range(1, len(lines)):
        line = lines[index]
        where = f"line {index + 1}"
        if line.strip() == "---":
            return values, index + 1
        if not line.strip() or line.startswith((" ", "\t", "-", "#")):
            continue
        match = _KEY.match(line.rstrip())
        if match is None:
            raise UserError(f"{where}: expected 'key: value' in the frontmatter")
        key, raw = match.group(1), (match.group(2) or "").strip()
        if key in values:
            raise UserError(f"{where}: frontmatter key {key!r} appears twice")
        values[key] = _scalar(raw, where)
    raise UserError("the frontmatter is not closed by a '---' line")


def _scalar(raw: str, where: str) -> Scalar:
    if raw in ("", "null", "~", "Null", "NULL"):
        return None
    if re.fullmatch(r"-?\d{1,18}", raw):
        return int(raw)
    if raw.startswith('"'):
        return join_surrogates(unquote(raw, where))
    if raw in ("|", ">", "|-", ">-", "|+", ">+"):
        raise UserError(f"{where}: multi-line YAML values are not supported; use a quoted string")
    if raw.startswith("'"):
        if len(raw) < 2 or not raw.endswith("'"):
            raise UserError(f"{where}: unterminated quoted string")
        return raw[1:-1].replace("''", "'")
    return raw
