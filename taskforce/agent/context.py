"""The context budget: make the conversation fit the model's window before each call.

The history itself is never changed; each call gets a *view* of it. When the view would
not fit, it is compacted in stages until it does:

1. tool results older than the last turn are shortened;
2. the oldest turns are dropped (the mission message says so);
3. only the last turn is kept and every long text is shortened.

A cut made at stage 2 goes deeper than it must (it keeps about half of the room the
window leaves for the conversation) and then stays where it is: the next turns keep
dropping the same messages while what follows still fits. The view's start is then the
same turn after turn, so a provider's prompt cache (llama.cpp's, or a hosted one) keeps
working, and the conversation is cut again only once that half has filled up. A cut that
moved with every turn made the model reread the whole view on every turn.

Only the latest plan recitation is ever sent (an older one shows a plan that no longer
is, and repeats the checklist), and the planner calls and results before it are left out
(that recitation is what they made of the plan). Whenever a stage applies, a fresh
recitation (the plan and the current step) closes the view, so the plan survives every
compaction.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

from taskforce.agent import prompts
from taskforce.agent.dispatch import PLANNER
from taskforce.agent.overflow import is_context_overflow, named_window
from taskforce.models.base import Message, ToolSpec

TokenCounter = Callable[[Sequence[Message], Sequence[ToolSpec]], int]

_CUT = "… [shortened]"


def _cut(text: str | None, limit: int | None) -> str | None:
    if text is None or limit is None or len(text) <= limit:
        return text
    return text[:limit] + _CUT


def _reserve(window: int | None) -> int:
    """The tokens kept free for the answer by default: a quarter of the window, 256-4096."""
    return 0 if window is None else max(256, min(window // 4, 4096))


def _groups(history: Sequence[Message]) -> list[list[int]]:
    """Indices grouped by turn: a message plus the tool results that answer it."""
    groups: list[list[int]] = []
    for index, message in enumerate(history):
        if message.get("role") == "tool" and groups:
            groups[-1].append(index)
        else:
            groups.append([index])
    return groups


def _is_recitation(message: Message) -> bool:
    content = message.get("content")
    return (
        message.get("role") == "user"
        and isinstance(content, str)
        and content.startswith(prompts.PLAN_HEADER)
    )


class _PlanView:
    """`history` as the model sees it, kept up to date as the history grows.

    Only the latest recitation is kept, and the planner exchanges before it are left out:
    that recitation shows the plan they made. Other tools' calls and results all stay.
    The history only grows, so a turn looks at its new messages only: those before the
    latest recitation are filtered once and kept (the same objects turn after turn).
    """

    def __init__(self) -> None:
        self._restart((), -1)

    def _restart(self, history: Sequence[Message], pinned: int) -> None:
        self.pinned = pinned
        self.first: Message | None = history[0] if history else None
        self.seen = 0  # messages looked at for recitations
        self.last: Message | None = None  # history[seen - 1]
        self.latest = -1  # index of the latest recitation
        self.done = 0  # messages before this index are filtered into `kept`
        self.kept: list[Message] = []
        self.origin: list[int] = []  # the index in `history` of each message in `kept`
        self.dropped_ids: set[str] = set()
        self.dropped_before_pin = 0

    def __call__(self, history: Sequence[Message], pinned: int) -> tuple[list[Message], int]:
        """The view of `history`, and where the pinned message is in it."""
        grown = (
            pinned == self.pinned
            and len(history) >= self.seen
            and (not history or history[0] is self.first)
            and (self.seen == 0 or history[self.seen - 1] is self.last)
        )
        if not grown:  # another conversation, or not this one grown: start over
            self._restart(history, pinned)
        for index in range(self.seen, len(history)):
            if _is_recitation(history[index]):
                self.latest = index
        self.seen, self.last = len(history), history[-1] if history else None
        if self.latest < 0:
            return list(history), pinned
        for index in range(self.done, self.latest):
            message = history[index]
            shown = message if index == pinned else _without_planner(message, self.dropped_ids)
            if shown is None:
                self.dropped_before_pin += index < pinned
            else:
                self.kept.append(shown)
                self.origin.append(index)
        self.done = max(self.done, self.latest)
        return [*self.kept, *history[self.latest :]], pinned - self.dropped_before_pin

    def to_history(self, position: int) -> int:
        """The index in the last `history` of the message at `position` in its view."""
        if self.latest < 0:
            return position
        if position < len(self.kept):
            return self.origin[position]
        return self.latest + position - len(self.kept)

    def to_view(self, index: int) -> int:
        """The position in the last view of `history[index]`, or of the next message shown."""
        if self.latest < 0:
            return index
        if index >= self.latest:
            return len(self.kept) + index - self.latest
        return bisect.bisect_left(self.origin, index)


def _without_planner(message: Message, dropped_ids: set[str]) -> Message | None:
    """`message` without its planner calls (None: nothing left), or a stale recitation."""
    if _is_recitation(message):
        return None
    if message.get("role") == "tool":
        return None if message.get("tool_call_id") in dropped_ids else message
    calls = message.get("tool_calls") or []
    planner = [c for c in calls if c.get("function", {}).get("name") == PLANNER]
    if not planner:
        return message
    dropped_ids.update(str(c.get("id")) for c in planner)
    others = [c for c in calls if c not in planner]
    if not others and not message.get("content"):
        return None
    if others:
        return {**message, "tool_calls": others}
    return {k: v for k, v in message.items() if k != "tool_calls"}


class _Tally:
    """Token counts of messages already seen, so a turn counts only what is new.

    ``bound`` is an upper bound of ``count(view, tools)``: the per-call base, plus each
    message's marginal count (``count([m]) - count([])``, cached by identity), plus a
    margin per message for counters that are not exactly additive (JSON separators,
    rounding). When the bound fits the budget, the exact count would too.
    """

    MARGIN = 4

    def __init__(self) -> None:
        self.counter: TokenCounter | None = None
        self.base = 0
        self.seen: dict[int, tuple[Message, int]] = {}
        self.tools: tuple[Sequence[ToolSpec], int] | None = None

    def bound(self, view: Sequence[Message], tools: Sequence[ToolSpec], count: TokenCounter) -> int:
        if count != self.counter:  # a bound method is a new object at each access
            self.counter, self.base, self.seen, self.tools = count, count([], []), {}, None
        if self.tools is None or self.tools[0] is not tools:
            self.tools = (tools, count([], tools) - self.base)
        total = self.base + self.tools[1] + self.MARGIN * (len(view) + 1)
        for message in view:
            hit = self.seen.get(id(message))
            if hit is None or hit[0] is not message:
                hit = self.seen[id(message)] = (message, count([message], []) - self.base)
            total += hit[1]
        if len(self.seen) > 2 * len(view) + 64:  # forget messages no longer in the view
            self.seen = {id(m): self.seen[id(m)] for m in view}
        return total


class ContextBudget:
    """Knows the window size and compacts a conversation view to fit it.

    Args:
        window: The model's context size in tokens (None: unknown, no compaction unless
            the provider reports an overflow; one that names the size teaches it, see
            :meth:`overflowed`).
        reserve: Tokens kept free for the answer (default: a quarter of the window,
            between 256 and 4096).
    """

    def __init__(self, window: int | None, reserve: int | None = None) -> None:
        self.window = window
        self._auto_reserve = reserve is None
        self.reserve = _reserve(window) if reserve is None else reserve
        self._tally = _Tally()  # the whole conversation
        self._tally_compact = _Tally()  # the compacted views (each prunes by its own views)
        self._over: tuple[int, Message, int] | None = None  # (length, last message, size)
        self._cuts: dict[tuple[int, int | None], tuple[Message, Message]] = {}
        self._plan_view = _PlanView()
        self._anchor: tuple[int, Message] | None = None  # the kept cut: (index, message)
        self._scale = 1.0  # the provider's tokens per counted token (learned, >= 1)

    def calibrate(
        self, view: list[Message], tools: Sequence[ToolSpec], count: TokenCounter, level: int,
        reported: int,
    ) -> None:  # fmt: skip
        """Learn from the provider's count (`reported`; 0: none) of `view`, fitted at `level`.

        A local counter can undercount the model's tokenizer (tiktoken against Qwen's, by
        a third on tool-heavy prompts): the budget shrinks by the largest ratio seen (at
        most 4x) so a view counted under it fits the provider too; it never grows back.
        """
        if self.window is None or reported <= 0:
            return
        estimate = (self._tally if level == 0 else self._tally_compact).bound(view, tools, count)
        self._scale = min(4.0, max(self._scale, reported / max(estimate, 1)))

    def overflowed(self, error: BaseException) -> bool:
        """Whether a provider's `error` says the view did not fit; learns the size it names.

        The size is taken when no window was known (a local model litellm does not know,
        run without ``context_window``) or the named one is smaller than the one given:
        later views are then fitted to it, instead of overflowing turn after turn.
        """
        if not is_context_overflow(error):
            return False
        size = named_window(error)
        if size is not None and size > 0 and (self.window is None or size < self.window):
            self.window = size
            if self._auto_reserve:
                self.reserve = _reserve(size)
        return True

    def _room(self) -> int:
        """Counted tokens a view may take: the window less the reserve, calibrated."""
        assert self.window is not None
        return int((self.window - self.reserve) / self._scale)

    def fit(
        self,
        system: Message,
        history: Sequence[Message],
        tools: Sequence[ToolSpec],
        count: TokenCounter,
        *,
        pinned: int,
        plan_note: Message | None,
        harder: bool = False,
    ) -> tuple[list[Message], int]:
        """The view to send and the compaction level used (0 = none).

        `pinned` is the index in `history` of the current mission message (always kept).
        `harder` (after a provider overflow) aims at half the usual budget.
        """
        raw = history
        history, pinned = self._plan_view(raw, pinned)
        view = [system, *history]
        if self.window is None and not harder:
            return view, 0
        budget = self._room() if self.window is not None else None
        if not harder and budget is not None and self._tally.bound(view, tools, count) <= budget:
            return view, 0  # the usual turn: only the new messages were counted
        size = count(view, tools) if harder else self._size_of(view, tools, count)
        budget = self._room() if self.window is not None else size
        if harder:
            budget = min(budget, size) // 2
        if size <= budget:
            return view, 0
        groups = _groups(history)
        sticky = None if harder else self._sticky(raw, groups)
        if sticky is not None:
            view = [system, *self._compact(history, groups, pinned, plan_note, sticky, 500, None)]
            if self._fits(view, tools, count, budget):
                return view, 2
        first = [system, *self._compact(history, groups, pinned, plan_note, len(groups), 500, None)]
        if self._fits(first, tools, count, budget):
            self._anchor = None
            return first, 1  # nothing dropped: the view's start does not move
        fixed = [system, history[pinned]] if 0 <= pinned < len(history) else [system]
        floor = count([*fixed, *([plan_note] if plan_note else [])], tools)
        low = budget if harder else floor + max(0, budget - floor) // 2
        self._anchor = None
        turns = len(groups)
        near: tuple[list[Message], int] | None = None
        while turns > 2:  # drop the oldest turns: as deep as `low`, else as `budget`
            turns = max(2, turns * 2 // 3)
            view = [system, *self._compact(history, groups, pinned, plan_note, turns, 500, None)]
            if self._fits(view, tools, count, low):
                near = (view, turns)
                break
            if near is None and self._fits(view, tools, count, budget):
                near = (view, turns)
        if near is not None:
            view, turns = near
            index = self._plan_view.to_history(groups[-turns][0])
            self._anchor = (index, raw[index])  # kept while what follows fits
            return view, 2
        return [system, *self._compact(history, groups, pinned, plan_note, 1, 300, 500)], 3

    def _sticky(self, history: Sequence[Message], groups: list[list[int]]) -> int | None:
        """How many turns the kept cut keeps now (None: no cut, or not in this history)."""
        if self._anchor is None:
            return None
        index, message = self._anchor
        if index >= len(history) or history[index] is not message:
            self._anchor = None  # another conversation
            return None
        position = self._plan_view.to_view(index)
        turns = sum(1 for group in groups if group[0] >= position)
        return turns if 0 < turns < len(groups) else None

    def _fits(
        self, view: list[Message], tools: Sequence[ToolSpec], count: TokenCounter, budget: int
    ) -> bool:
        return self._tally_compact.bound(view, tools, count) <= budget or (
            count(view, tools) <= budget
        )

    def _size_of(self, view: list[Message], tools: Sequence[ToolSpec], count: TokenCounter) -> int:
        """The exact size, unless the view only grew from one already known to be larger.

        A conversation over the budget stays over it as it grows, so once a turn had to
        be compacted, later turns go straight to compaction without a full recount.
        """
        over = self._over
        if over is not None and len(view) >= over[0] and view[over[0] - 1] is over[1]:
            return over[2]  # a lower bound of the size now: enough to know it is too big
        size = count(view, tools)
        self._over = (len(view), view[-1], size)
        return size

    def _cut_message(self, message: Message, content: str | None, limit: int | None) -> Message:
        """`message` with its content cut to `limit`, the same object on every turn.

        Nothing cut: the message itself; cut: one copy kept for the next turns, so the
        token tally counts it once.
        """
        cut = _cut(content, limit)
        if cut is content:
            return message
        key = (id(message), limit)
        known = self._cuts.get(key)
        if known is None or known[0] is not message:
            if len(self._cuts) > 4096:
                self._cuts.clear()
            known = self._cuts[key] = (message, {**message, "content": cut})
        return known[1]

    def _compact(
        self,
        history: Sequence[Message],
        groups: list[list[int]],
        pinned: int,
        plan_note: Message | None,
        turns: int,
        tool_chars: int,
        text_chars: int | None,
    ) -> list[Message]:
        kept = {i for g in groups[-turns:] for i in g}
        last = set(next((g for g in reversed(groups) if len(g) > 1), groups[-1] if groups else []))
        pin_group = next((g for g in groups if pinned in g), [])
        kept |= set(pin_group)
        dropped = sum(1 for i in range(len(history)) if i not in kept)
        out: list[Message] = []
        for index, message in enumerate(history):
            if index not in kept or _is_recitation(message):
                continue
            content = message.get("content")
            if index == pinned:
                message = dict(message)
                message["content"] = _cut(content, 2000 if text_chars else None)
                if dropped:
                    message["content"] = f"{message['content']}\n\n{prompts.OMITTED}"
            elif message.get("role") == "tool":
                limit = tool_chars if (index not in last or text_chars) else None
                message = self._cut_message(message, content, limit)
            elif isinstance(content, str):
                message = self._cut_message(message, content, text_chars)
            out.append(message)
        if plan_note is not None:
            out.append(plan_note)
        return out
