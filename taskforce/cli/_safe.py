"""The one sanitiser for everything the CLI prints that comes from data.

Missions, plan steps, objectives, model answers, tool results, error messages and stored
JSON can hold terminal control sequences (clear screen, cursor moves, OSC 8 hyperlinks,
window titles), right-to-left overrides that disguise text, or lone surrogates that cannot
be encoded at all. None of them reaches the terminal raw: each becomes a visible stand-in.
Rich markup in data is never interpreted either: data is printed as :class:`rich.text.Text`
(see :func:`cell`) or with ``markup=False``, and Markdown without hidden hyperlinks.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rich.markdown import Markdown
from rich.text import Text

# C0 controls but tab and newline, DEL, C1 controls, bidirectional overrides and isolates,
# and lone surrogates (which no encoding can write).
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _stand_in(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode "control pictures": ESC shows as ␛
    if code == 0x7F:
        return "\u2421"  # ␡
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return f"<U+{code:04X}>"


def printable(text: object) -> str:
    """`text` with every control character, bidi override and lone surrogate made visible.

    Newlines and tabs stay (a CRLF becomes a newline); ESC becomes ``␛``, a lone CR ``␍``,
    C1 controls and bidi overrides ``<U+202E>``-style, a lone surrogate ``\ufffd``.
    """
    value = text if isinstance(text, str) else str(text)
    return _UNSAFE.sub(_stand_in, value.replace("\r\n", "\n"))


def one_line(text: object) -> str:
    """:func:`printable`, with all whitespace runs (newlines too) folded into one space."""
    return " ".join(printable(text).split())


_DEEPEST = 40


def clean(data: Any, _depth: int = 0) -> Any:
    """`data` (JSON-like) with :func:`printable` applied to every string in it, keys too.

    Containers nested deeper than 40 levels are shown as ``…`` (nothing shows them whole).
    """
    if isinstance(data, str):
        return printable(data)
    if isinstance(data, dict | list | tuple) and _depth >= _DEEPEST:
        return "…"
    if isinstance(data, dict):
        return {clean(k, _depth + 1): clean(v, _depth + 1) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [clean(v, _depth + 1) for v in data]
    return data


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_text(data: Any) -> str:
    """`data` as indented JSON for the terminal: lossless, with no raw control character.

    ``json`` already escapes C0 controls; DEL, C1 controls, bidi overrides and lone
    surrogates are escaped too (they can only occur inside JSON strings, so the text
    stays valid JSON and decodes to the same data).
    """
    return escape_json(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def escape_json(text: str) -> str:
    """Escape what :func:`json_text` escapes in JSON text made elsewhere."""
    return _UNSAFE.sub(_escape, text)


def cell(text: object, style: str | None = None) -> Text:
    """One line of data as rich `Text` (never parsed as markup), e.g. for a table cell."""
    return Text(one_line(text), style=style or "")


def markdown(text: str | None, fallback: str = "(no answer)") -> Markdown:
    """Model-written Markdown, sanitised; links are shown with their address, never hidden."""
    return Markdown(printable(text or fallback), hyperlinks=False)
