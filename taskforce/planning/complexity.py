"""Does a goal deserve a plan? A deterministic 0-1 complexity heuristic.

The score weighs four signals of the goal text, each capped at 1.0:

* length (25%): words, saturating at :data:`LENGTH_SATURATION` words;
* action verbs (30%): distinct action verbs that open a clause, saturating at three;
* multi-action keywords (30%): sequencing words and separators ("then", "after that",
  "finally", "and" before a verb, ";"), saturating at three;
* structure (15%): list items, several sentences or several lines.

A single action ("What time is it?") scores near 0; a compound request ("Research X, then
summarise it and email the summary to Y") scores well above the default threshold 0.3.
Only the first :data:`MAX_ANALYSED_CHARS` characters are read, so huge input costs little.

A short goal can still be several steps, whatever its score; :func:`is_multi_step` reads
its shape instead (quoted text left out): two or more clauses that each open with a
different action verb ("Convert 5 km to miles, then email the result to Bob"), a
sequencing word next to an action ("... and then ..."), a question followed by an
action on its answer ("What's the weather in Rome? Email it to Alice."), an action under a
condition that opens a clause ("If no city bike is free, rent her a mountain bike instead":
the condition is checked first, then the action taken or not), the same action over a
series or a quantifier ("the weather in Oslo, Rome and Paris", "each of", "both") or a
list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_THRESHOLD = 0.3
"""The score from which :func:`should_plan` answers True."""

MAX_ANALYSED_CHARS = 10_000
LENGTH_SATURATION = 60

_WEIGHTS = {"length": 0.25, "verbs": 0.30, "keywords": 0.30, "structure": 0.15}

_VERB_TEXT = """
add analyse analyze archive ask assess audit book build calculate call check clean
collect combine compare compile compute configure convert copy count create debug
delete deploy design divide document download draft edit email evaluate export extract
fetch file find fix format gather generate get implement import install investigate
list load make measure merge migrate monitor move multiply notify open optimise
optimize organise organize outline parse plan post prepare present print publish read
record refactor remove rename render reply report research resolve review rewrite run
save schedule scrape search send set setup share sort store study submit subtract sum
summarise summarize test track transform translate update upload validate verify
visualise visualize write
"""
ACTION_VERBS = frozenset(_VERB_TEXT.split())
"""Verbs that name an action (a goal with several of them is likely several steps)."""

_CLAUSE_VERB_TEXT = """
tell look put give text message remind forward invite cancel reschedule buy order pay
transfer split average total double round append attach log note ping switch turn ship
borrow return renew reserve place lend withdraw deposit refund charge approve reject
assign close lock unlock start stop restart enable disable dim raise lower increase
decrease reduce register subscribe unsubscribe upgrade downgrade top restock reorder
pick pack label replace swap exchange accept decline confirm postpone sell purchase rent
"""
CLAUSE_VERBS = ACTION_VERBS | frozenset(_CLAUSE_VERB_TEXT.split())
"""Action verbs, and words that are actions when they open a clause ("note it down")."""

_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?", re.UNICODE)
_SEQUENCE_WORDS = (
    r"and\s+then|then|after\s+that|afterwards|finally|lastly|once\s+(?:that|done)|followed\s+by"
)
"""Words that put one action after another (the sequencing vocabulary of both patterns)."""
_KEYWORDS = re.compile(
    rf"\b(?:{_SEQUENCE_WORDS}|afterward|next|also|before|after|first|second|third|"
    r"as\s+well\s+as)\b|;",
    re.IGNORECASE,
)
_AND_VERB = re.compile(r"\b(?:and|,)\s+(?P<verb>[^\W\d_]+)", re.IGNORECASE)
_LIST_LINE = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*+•]|step\s*\d{1,3}\s*[:.)-])\s+\S", re.I | re.M)
_SENTENCE = re.compile(r"[.!?\u3002\uff01\uff1f]+(?:\s+|$)")


@dataclass(frozen=True, slots=True)
class ComplexityBreakdown:
    """The four signals (each 0-1) and the weighted score."""

    length: float
    verbs: float
    keywords: float
    structure: float

    @property
    def score(self) -> float:
        """The weighted sum, rounded to 4 places so equal inputs compare exactly."""
        total = (
            _WEIGHTS["length"] * self.length
            + _WEIGHTS["verbs"] * self.verbs
            + _WEIGHTS["keywords"] * self.keywords
            + _WEIGHTS["structure"] * self.structure
        )
        return round(min(1.0, max(0.0, total)), 4)


def analyse(goal: str) -> ComplexityBreakdown:
    """The complexity signals of `goal` (see the module docstring)."""
    text = goal[:MAX_ANALYSED_CHARS] if isinstance(goal, str) else ""
    words = [w.lower() for w in _WORD.findall(text)]
    verbs = set(clause_verbs(text))
    keywords = len(_KEYWORDS.findall(text))
    keywords += sum(1 for m in _AND_VERB.finditer(text) if m.group("verb").lower() in ACTION_VERBS)
    list_items = len(_LIST_LINE.findall(text))
    sentences = len([s for s in _SENTENCE.split(text.strip()) if s.strip()])
    lines = len([line for line in text.splitlines() if line.strip()])
    structure = 0.0
    if list_items >= 2:
        structure = 1.0
    elif sentences >= 3 or lines >= 3:
        structure = 0.75
    elif sentences == 2 or lines == 2:
        structure = 0.5
    return ComplexityBreakdown(
        length=min(1.0, len(words) / LENGTH_SATURATION),
        verbs=min(1.0, max(0, len(verbs) - 1) / 2),
        keywords=min(1.0, keywords / 3),
        structure=structure,
    )


def estimate_complexity(goal: str) -> float:
    """How complex `goal` looks, from 0.0 (one simple action) to 1.0 (many steps)."""
    return analyse(goal).score


_QUOTED = re.compile(
    r"\"[^\"\n]*\"|\u201c[^\u201d\n]*\u201d|\u2018[^\u2019\n]*\u2019|(?<![^\W_])'[^'\n]*'(?![^\W_])"
)
_CLAUSE_BREAK = re.compile(
    r"[.;:!?()\n\u2014\u2013]|,|\b(?:and|then|or|otherwise|else|also|after\s+that|afterwards|"
    r"finally|next|before|after)\b",
    re.IGNORECASE,
)
_FILLER_TEXT = """
please can could would will you kindly now also just then first second third finally
next lastly i we me for
"""
_FILLER = frozenset(_FILLER_TEXT.split())
_SEQUENCE = re.compile(rf"\b(?:{_SEQUENCE_WORDS})\b", re.IGNORECASE)
_CONDITION = re.compile(r"(?:^|[.;:!?,\n\u2014]\s*|\b(?:and|then|but)\s+)(?:if|unless)\b", re.I)
"""A condition opening a clause ("If it rains, ..."; not "ask Bob if he can come")."""
_QUANTIFIER = re.compile(
    r"\b(?:each|every(?:thing|one|body)?|both|all\s+(?:of|the|\d+|three|four|five))\b", re.I
)
"""Several items to act on: "each photo", "everything of mine" (the items found first)."""
_SERIES = re.compile(r"(?:^|(?<=[,;:\n]))[^,;:\n]+,[^,;:\n]+,?\s+(?:and|&)\s+\S", re.IGNORECASE)
"""Tried only where a run of text starts (a match inside a run is one from its start), so a
long run without commas is scanned once, not once for each of its characters."""


def unquoted(text: str) -> str:
    """`text` with its quoted spans (a title, a subject: values, not wording) left out.

    An apostrophe inside a word ("Frank's") opens no quote.
    """
    return _QUOTED.sub(" ", text)


def clause_verbs(goal: str) -> list[str]:
    """The action verbs that open a clause of `goal`, in order (quoted text left out).

    "Convert 5 km to miles, then email the result to Bob" gives ``["convert", "email"]``:
    "email" opens a clause there, while in "Send an email to Bob" it is a noun.
    """
    text = unquoted(goal[:MAX_ANALYSED_CHARS] if isinstance(goal, str) else "")
    verbs = []
    for clause in _CLAUSE_BREAK.split(text):
        words = [w.lower() for w in _WORD.findall(clause)]
        words = [w for w in words if w not in _FILLER]
        if words and words[0] in CLAUSE_VERBS:
            verbs.append(words[0])
    return verbs


def is_multi_step(goal: str) -> bool:
    """Whether the shape of `goal` says it is several steps (see the module docstring)."""
    return _several_steps(goal, analyse(goal))


_ANSWER_VERBS = frozenset(["tell", "give", "show", "say", "reply", "answer", "explain"])
"""Verbs that only answer: "What is X? Tell me in words." is one step, not two."""
_PIECE = re.compile(r"[^.!?\n]*(?:[.!?\n]|$)")
"""A run of text up to and including its end mark; one pass, no backtracking."""
_ALNUM = re.compile(r"[^\W_]")


def _asks_then_acts(text: str) -> bool:
    """Whether `text` asks a question, and orders an action in another sentence.

    "What's the weather in Rome? Email it to Alice." (`text` has its quotes left out.)
    A question is a piece of text with a letter or digit that ends in "?". The text is
    cut into pieces in one pass: a pattern that searched for a question directly took
    minutes on 10,000 characters with no "?" in them.
    """
    pieces = _PIECE.findall(text)
    asks = [p.endswith("?") and _ALNUM.search(p) is not None for p in pieces]
    if not any(asks):
        return False
    rest = " ".join(p for p, asked in zip(pieces, asks, strict=True) if not asked)
    sentences = [s for s in _SENTENCE.split(rest) if s.strip()]
    return any(set(clause_verbs(s)) - _ANSWER_VERBS for s in sentences)


def _several_steps(goal: str, signals: ComplexityBreakdown) -> bool:
    """:func:`is_multi_step` from the goal's already analysed `signals`."""
    verbs = clause_verbs(goal)
    if len(set(verbs)) >= 2 or signals.structure >= 1.0:
        return True
    if not isinstance(goal, str):
        return False
    text = unquoted(goal[:MAX_ANALYSED_CHARS])
    if verbs and (_SEQUENCE.search(text) or _CONDITION.search(text) or _asks_then_acts(text)):
        return True
    return bool(verbs or _WORD.search(text)) and bool(
        _QUANTIFIER.search(text) or _SERIES.search(text)
    )


def should_plan(goal: str, threshold: float = DEFAULT_THRESHOLD) -> bool:
    """Whether `goal` warrants a plan: its shape says several steps, or a high complexity.

    The complexity must be at least `threshold`; a goal that :func:`is_multi_step` (a
    list of two or more items, two different actions, a sequence, a condition and an
    action, an action over a series)
    needs a plan whatever its score: a short one scores low on length, yet it is several
    steps.
    """
    signals = analyse(goal)  # once: both tests read it
    return _several_steps(goal, signals) or signals.score >= threshold
