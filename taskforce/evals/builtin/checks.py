"""Checks of the built-in missions.

They read the toy world (and the answer where it is the product), tolerant of formatting
(case, number notation), never of substance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from taskforce.evals.builtin.world import ToyWorld
from taskforce.evals.mission import Mission, Verdict, has_number
from taskforce.models.base import ModelResponse

__all__ = [
    "all_of",
    "answer",
    "event",
    "file",
    "file_without",
    "mission",
    "no_email",
    "no_event",
    "no_note",
    "note",
    "sent",
    "world",
]

Check = Callable[[ToyWorld, str], Verdict]


def world(
    *kits: str,
    notes: dict[str, str] | None = None,
    files: dict[str, str] | None = None,
    events: Sequence[dict[str, str]] = (),
) -> Callable[[], ToyWorld]:
    """A factory of fresh worlds with these kits and this starting state."""

    def make() -> ToyWorld:
        return ToyWorld(kits, dict(notes or {}), [], dict(files or {}), [dict(e) for e in events])

    return make


def mission(
    id: str,
    text: str,
    make: Callable[[], ToyWorld],
    check: Check,
    reference: Sequence[ModelResponse],
    *tags: str,
) -> Mission:
    """A built-in mission (the reference is required here)."""
    return Mission(id, text, make, check, tuple(reference), tuple(tags))


def _has(text: str, words: Sequence[str], numbers: Sequence[float], tol: float) -> str:
    """What `text` lacks of `words` (case-insensitive) and `numbers`; empty when nothing."""
    low = text.lower()
    missing = [repr(w) for w in words if w.lower() not in low]
    missing += [f"{n:g}" for n in numbers if not has_number(text, n, tol)]
    return ", ".join(missing)


def sent(to: str, *words: str, numbers: Sequence[float] = (), tol: float = 0.011) -> Check:
    """An email to `to` whose subject + body has `words` and `numbers`."""

    def check(w: ToyWorld, _answer: str) -> Verdict:
        mails = [m for m in w.outbox if m["to"] == to]
        if not mails:
            return Verdict(False, f"no email to {to}")
        for m in mails:
            if not _has(f"{m['subject']}\n{m['body']}", words, numbers, tol):
                return Verdict(True, f"email to {to} has {list(words) + list(numbers)}")
        lacks = _has(f"{mails[-1]['subject']}\n{mails[-1]['body']}", words, numbers, tol)
        return Verdict(False, f"email to {to} lacks {lacks}")

    return check


def no_email(to: str) -> Check:
    """No email went to `to`."""

    def check(w: ToyWorld, _answer: str) -> Verdict:
        sent_to = any(m["to"] == to for m in w.outbox)
        return Verdict(not sent_to, f"an email went to {to}" if sent_to else "")

    return check


def note(
    title: str | None, *words: str, numbers: Sequence[float] = (), tol: float = 0.011
) -> Check:
    """A note (titled `title`, any title when None) whose text has `words` and `numbers`."""

    def check(w: ToyWorld, _answer: str) -> Verdict:
        texts = [
            f"{t}\n{x}" if title is None else x
            for t, x in w.notes.items()
            if title is None or t.strip().lower() == title.lower()
        ]
        if not texts:
            return Verdict(False, f"no note titled {title!r}")
        if any(not _has(t, words, numbers, tol) for t in texts):
            return Verdict(True, f"note {title or ''} has {list(words) + list(numbers)}")
        return Verdict(False, f"note {title or ''} lacks {_has(texts[-1], words, numbers, tol)}")

    return check


def file(name: str, *words: str, numbers: Sequence[float] = (), tol: float = 0.011) -> Check:
    """The file `name` exists and has `words` and `numbers`."""

    def check(w: ToyWorld, _answer: str) -> Verdict:
        if name not in w.files:
            return Verdict(False, f"no file {name}")
        lacks = _has(w.files[name], words, numbers, tol)
        return Verdict(not lacks, f"{name} lacks {lacks}" if lacks else f"{name} is right")

    return check


def no_note(title: str) -> Check:
    """No note is titled `title`."""

    def check(w: ToyWorld, _answer: str) -> Verdict:
        bad = [t for t in w.notes if t.strip().lower() == title.lower()]
        return Verdict(not bad, f"unexpected note {title!r}" if bad else "")

    return check


def file_without(name: str, word: str) -> Check:
    """The file `name` does not contain `word` (case-sensitive)."""

    def check(w: ToyWorld, _answer: str) -> Verdict:
        left = word in w.files.get(name, "")
        return Verdict(not left, f"{name} still has {word!r}" if left else "")

    return check


def event(title_word: str, date: str, time: str) -> Check:
    """A calendar event whose title has `title_word`, on `date` at `time`."""

    def check(w: ToyWorld, _answer: str) -> Verdict:
        for e in w.events:
            if title_word.lower() in e["title"].lower() and (e["date"], e["time"]) == (date, time):
                return Verdict(True, f"{e['title']} on {date} at {time}")
        return Verdict(False, f"no event with {title_word!r} on {date} at {time}")

    return check


def no_event(title_word: str) -> Check:
    """No calendar event's title has `title_word`."""

    def check(w: ToyWorld, _answer: str) -> Verdict:
        bad = [e["title"] for e in w.events if title_word.lower() in e["title"].lower()]
        return Verdict(not bad, f"unexpected event {bad[0]!r}" if bad else "")

    return check


def answer(*words: str, numbers: Sequence[float] = (), tol: float = 0.011) -> Check:
    """The final answer has `words` and `numbers` (when the answer is the product)."""

    def check(_w: ToyWorld, text: str) -> Verdict:
        lacks = _has(text, words, numbers, tol)
        return Verdict(not lacks, f"the answer lacks {lacks}" if lacks else "the answer is right")

    return check


def all_of(*checks: Check) -> Check:
    """Every check passes (the first failure is the reason)."""

    def check(w: ToyWorld, text: str) -> Verdict:
        reasons = []
        for c in checks:
            verdict = c(w, text)
            if not verdict.solved:
                return verdict
            reasons.append(verdict.reason)
        return Verdict(True, "; ".join(r for r in reasons if r))

    return check
