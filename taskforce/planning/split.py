"""The one mission splitter: a list's items, else a text's sentences and sequenced clauses.

Shared by the offline model (its plan), the agent (the plan it makes for a model that did
not) and the tolerant plan parser (a reply written as a list). Pure and bounded: only the
first :data:`MAX_INPUT` characters are read, and every pattern runs in linear time.

* :func:`list_items` reads a numbered or bulleted list (``1.``, ``2)``, ``Step 3:``,
  ``**4.**``, ``- ``, ``* ``, ``•``...): the items at the outermost level, in order.
* :func:`split_mission` turns a mission into step texts: its list items when it has two
  or more, else its sentences, each split at "then", "after that", "finally", ";" and
  (with ``actions_only``) at ", and <action verb>".
"""

from __future__ import annotations

import re
import unicodedata

from taskforce.plan.text import clean_text
from taskforce.planning.complexity import ACTION_VERBS

MAX_INPUT = 20_000

_NUMBERED = re.compile(
    r"^(?P<indent>[ \t]*)(?:#{1,6}[ \t]*)?(?:\*\*|__)?"
    r"(?:(?:step|task)[ \t]*\d{1,3}[ \t]*[:.)\-\u2013\u2014]|\(?\d{1,3}[.):]|\(?[a-z]\))"
    r"(?:\*\*|__)?[ \t]+(?P<text>\S.*)$",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^(?P<indent>[ \t]*)[-*+•‣◦▪·\u2013][ \t]+(?P<text>\S.*)$")
_EMPHASIS = re.compile(r"^(?:\*\*|__)(.+?)(?:\*\*|__)(?=[:\s]|$)")
_INLINE_NUMBER = re.compile(r"(?:^|\s)\(?\d{1,2}[.)]\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?。\uff01\uff1f])\s+")
_ABBREV = re.compile(r"\b(e\.g|i\.e|etc|vs|cf|approx|Mr|Mrs|Ms|Dr|St|No)\.", re.IGNORECASE)
_SEQUENCE = re.compile(
    r"\s*;\s*|\s*(?:,\s*)?\b(?:and\s+then|then|after\s+that|afterwards|and\s+finally|"
    r"finally|lastly)\b[,:]?\s*",
    re.IGNORECASE,
)
_AND_ACTION = re.compile(r",?\s+and\s+(?=(?P<verb>[^\W\d_]+)\b)", re.IGNORECASE)
_LEADING = re.compile(
    r"^(?:(?:first(?:ly)?|second(?:ly)?|next|also|and|then|finally|lastly|please)\b[,:]?\s*"
    r"|\[[ xX~-]?\]\s*|#+\s*|>\s*)+",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def _prepare(text: str) -> str:
    """NFC-normalised, control characters dropped (line breaks kept), length capped."""
    text = unicodedata.normalize("NFC", text[:MAX_INPUT]).replace("\t", " ")
    kept = (ch for ch in text if ch == "\n" or unicodedata.category(ch)[0] != "C")
    return "".join(kept).replace("\u2028", "\n")


def list_items(text: str, *, continuations: bool = False) -> list[str]:
    """The outermost items of the first numbered (else bulleted) list in `text`.

    With `continuations`, an unmarked line after an item continues that item (a nested
    item does not).
    """
    lines = text.splitlines()
    for pattern in (_NUMBERED, _BULLET):
        found = [(i, m) for i, line in enumerate(lines) if (m := pattern.match(line))]
        if not found:
            continue
        top = min(len(m.group("indent").expandtabs(4)) for _, m in found)
        at = {i: m for i, m in found if len(m.group("indent").expandtabs(4)) == top}
        items: list[str] = []
        for index, line in enumerate(lines):
            if index in at:
                items.append(_EMPHASIS.sub(r"\1", at[index].group("text").strip()))
            elif continuations and items and line.strip() and not _item(line):
                items[-1] += " " + line.strip()
        return items
    return []


def _item(line: str) -> bool:
    return bool(_NUMBERED.match(line) or _BULLET.match(line))


def split_mission(
    mission: str, *, max_steps: int = 30, max_len: int = 200, actions_only: bool = False
) -> list[str]:
    """Step texts for `mission` (see the module docstring); empty when it has none.

    Steps are tidied (leading "first", "then", checkboxes... dropped; first letter upper
    case), de-duplicated and capped at `max_steps` steps of at most `max_len` characters.
    With `actions_only` the text must name two or more actions: every part needs an
    action verb and two words, and fewer than two such parts give no steps.
    """
    text = _prepare(mission)
    items = list_items(text, continuations=True)
    listed = len(items) >= 2
    parts = items if listed else _split_sequence(" ".join(text.split()))
    if actions_only and not listed:
        parts = [p for part in parts for p in _split_actions(part)]
        parts = [p for p in parts if _acts(p)]
    steps: list[str] = []
    seen: set[str] = set()
    for part in parts:
        step = _tidy(part, max_len)
        if step and step.casefold() not in seen:
            seen.add(step.casefold())
            steps.append(step)
    if actions_only and len(steps) < 2:
        return []
    return steps[:max_steps]


def _split_sequence(text: str) -> list[str]:
    pieces = _INLINE_NUMBER.split(text)
    if len(pieces) >= 3:  # "Do 1) this 2) that": the words before "1)" are context
        pieces = pieces[1:]
    else:
        protected = _ABBREV.sub(lambda m: m.group(0)[:-1] + "\x00", text)
        pieces = [s.replace("\x00", ".") for s in _SENTENCE_END.split(protected)]
    return [part for piece in pieces for part in _SEQUENCE.split(piece)]


def _split_actions(part: str) -> list[str]:
    """`part` split at ", and <action verb>" ("compute 2*21 and save a note")."""
    cuts = [m for m in _AND_ACTION.finditer(part) if m.group("verb").lower() in ACTION_VERBS]
    pieces, start = [], 0
    for cut in cuts:
        pieces.append(part[start : cut.start()])
        start = cut.end()
    return [*pieces, part[start:]]


def _acts(part: str) -> bool:
    words = [w.lower() for w in _WORD.findall(part)]
    return len(part.split()) >= 2 and any(w in ACTION_VERBS for w in words)


def _tidy(text: str, max_len: int) -> str:
    text = _LEADING.sub("", clean_text(text)).strip(" \t.!;,:-\u2013—")
    if len(text) > max_len:
        cut = text[: max_len - 1].rsplit(" ", 1)[0] or text[: max_len - 1]
        text = cut.rstrip(" ,;:") + "…"
    return text[:1].upper() + text[1:]
