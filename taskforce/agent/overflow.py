"""What a provider's error says about the context window: an overflow, and its size.

Providers word it differently (litellm's ``ContextWindowExceededError`` when it recognises
one; llama.cpp's "request (9030 tokens) exceeds the available context size (8192 tokens)";
OpenAI's and vLLM's "maximum context length is 4096 tokens"; Anthropic's "prompt is too long:
210000 tokens > 200000 maximum"). Pure.
"""

from __future__ import annotations

import re

from taskforce.errors import ProviderError

_OVERFLOW = re.compile(
    r"context[ _-]?(length|window)|maximum context|too many tokens|prompt is too long|"
    r"exceeds? the (model'?s? )?(context|maximum)|n_ctx|input is too long|reduce the length",
    re.IGNORECASE,
)
_NAMED_WINDOW = re.compile(
    r"available context size \((\d+) tokens\)"  # llama.cpp
    r"|maximum context length is (\d+) tokens"  # OpenAI, vLLM
    r"|tokens > (\d+) maximum",  # Anthropic
    re.IGNORECASE,
)


def is_context_overflow(exc: BaseException) -> bool:
    """Whether a provider error says the prompt did not fit the context window."""
    if not isinstance(exc, ProviderError):
        return False
    return "ContextWindow" in type(exc).__name__ or bool(_OVERFLOW.search(str(exc)))


def named_window(exc: BaseException) -> int | None:
    """The context size (tokens) an overflow error names, if it names one."""
    match = _NAMED_WINDOW.search(str(exc)) if is_context_overflow(exc) else None
    return int(next(g for g in match.groups() if g)) if match else None
