"""Sorting a provider's failures: worth another try, the caller's fault, or too big a prompt.

Pure functions of an exception (litellm's exception classes are passed in, so this module
never imports litellm): what :class:`~taskforce.models.litellm_model.LiteLLMModel` retries
and how it names what went wrong.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "CONTEXT_HINTS",
    "MALFORMED",
    "is_auth",
    "is_transient",
    "missing_module",
    "retry_after",
    "short",
]

CONTEXT_HINTS = (
    "context length",
    "context window",
    "context size",
    "maximum context",
    "prompt is too long",
    "too many tokens",
)
MALFORMED = "failed to parse tool call"  # llama.cpp's HTTP 500 when a tool call is not JSON


def is_auth(litellm: Any, exc: BaseException) -> bool:
    if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError):
        return True
    text = str(exc).lower()
    return "missing credentials" in text or "api_key client option must be set" in text


def is_transient(litellm: Any, exc: BaseException) -> bool:
    """Rate limits, timeouts, connection trouble and 5xx answers: worth another try."""
    if is_auth(litellm, exc) or isinstance(exc, litellm.ContextWindowExceededError):
        return False
    if missing_module(exc) or MALFORMED in str(exc).lower():  # e.g. no `mcp`: retry is no help
        return False
    if isinstance(exc, TimeoutError):  # our own bound on an attempt (see complete)
        return True
    transient = (
        litellm.RateLimitError,
        litellm.Timeout,
        litellm.APIConnectionError,
        litellm.ServiceUnavailableError,
        litellm.InternalServerError,
    )
    if isinstance(exc, transient):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status >= 500 or status in (408, 409, 429))


def missing_module(exc: BaseException) -> bool:
    return isinstance(exc, ImportError) or "No module named" in str(exc)


def retry_after(exc: BaseException | None) -> float | None:
    # litellm keeps the provider's headers in `litellm_response_headers`; `response` is its own
    headers = getattr(exc, "litellm_response_headers", None) or getattr(
        getattr(exc, "response", None), "headers", None
    )
    try:
        value = headers.get("retry-after") if headers is not None else None
        return max(0.0, float(value)) if value is not None else None
    except (TypeError, ValueError):
        return None  # an HTTP date or garbage: fall back to our own backoff


def short(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    # litellm says "litellm.InternalServerError: InternalServerError: OpenAIException - ..."
    text = re.sub(r"^(?:litellm\.)?(\w+): (?:\1: )?(?:\w+Exception - )?", r"\1: ", text)
    return text if len(text) <= 500 else text[:497] + "..."
