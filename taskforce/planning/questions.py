"""Questions about the plan: "What is left?", "Where are we?", "Show the plan".

Such a request asks for the plan as it stands; it is answered from the plan, never
planned as a step of its own (in ``chat`` every line is a request on the session). Pure
and bounded: a question is one short sentence, read in linear time.
"""

from __future__ import annotations

import re

MAX_WORDS = 14
"""A longer request is a mission, even if it asks something about the plan."""

_ASKING = re.compile(
    r"^(?:what|what's|whats|which|how|where|is|are|did|do|does|have|has|any|anything"
    r"|show|remind|recap|summari[sz]e)\b",
    re.IGNORECASE,
)
_ABOUT_PLAN = re.compile(
    r"\b(?:left|remain(?:s|ing)?|plan|progress|status|so\s+far|how\s+far|next|todo|to-do"
    r"|done|finish(?:ed)?|complete(?:d)?|still\s+open|where\s+are\s+we"
    r"|(?:the|which|what|open|remaining|next|finished|pending)\s+(?:steps?|tasks?))\b",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[\w'-]+")


def asks_about_plan(request: str) -> bool:
    """Whether `request` asks about the plan (what is left, progress, the next step).

    It is one short sentence that asks (a question mark, or a question or "show me"
    word first) and names the plan or its progress: "What is left?", "what's next",
    "Show me the plan", "How far are we?". A request for work ("Add a step to deploy",
    "Now also publish it") or a question about something else ("What is 2 + 2?") is not.
    """
    text = " ".join(request[:1_000].split()).strip()
    words = _WORDS.findall(text)
    if not words or len(words) > MAX_WORDS or "\n" in request.strip():
        return False
    body = text.rstrip("?!. ")
    if re.search(r"[.!?;]", body):  # more than one sentence: a mission
        return False
    asks = text.endswith("?") or bool(_ASKING.match(text))
    return asks and bool(_ABOUT_PLAN.search(text))
