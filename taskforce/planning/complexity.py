"""Does a goal deserve a plan? A deterministic 0-1 complexity heuristic.

The score weighs four signals of the goal text, each capped at 1.0:

* length (25%): words, saturating at :data:`LENGTH_SATURATION` words;
* action verbs (30%): distinct action verbs, saturating at three;
* multi-action keywords (30%): sequencing words and separators ("then", "after that",
  "finally", "and" before a verb, ";"), saturating at three;
* structure (15%): list items, several sentences or several lines.

A single action ("What time is it?") scores near 0; a compound request ("Research X, then
summarise it and email the summary to Y") scores well above the default threshold 0.3.
Only the first :data:`MAX_ANALYSED_CHARS` characters are read, so huge input costs little.
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

_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?", re.UNICODE)
_KEYWORDS = re.compile(
    r"\b(?:and\s+then|then|after\s+that|afterwards|afterward|next|finally|lastly|also|"
    r"followed\s+by|once\s+(?:that|done)|before|after|first|second|third|as\s+well\s+as)\b"
    r"|;",
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
    verbs = {w for w in words if w in ACTION_VERBS}
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


def should_plan(goal: str, threshold: float = DEFAULT_THRESHOLD) -> bool:
    """Whether `goal` warrants a plan: a list of two or more items, or a high complexity.

    The complexity must be at least `threshold`. A short numbered list scores low on
    length and verbs, yet the user has already written its steps.
    """
    signals = analyse(goal)
    return signals.structure >= 1.0 or signals.score >= threshold
