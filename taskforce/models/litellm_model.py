"""LiteLLMModel: any provider litellm supports, behind the ``Model`` protocol.

The only module that imports litellm, and only at first use (importing it takes seconds and
litellm must see ``LITELLM_LOCAL_MODEL_COST_MAP`` first so it never downloads its price list).

Failures are sorted for the agent loop: transient trouble (rate limits, timeouts, connection
errors, 5xx) is retried with backoff (honouring ``Retry-After``), then raised as
``ProviderError(retryable=True)``; an auth failure names the environment variable to set; an
oversized prompt raises :class:`ContextWindowExceededError` (compact and retry); a reply the
server could not parse, :class:`MalformedReplyError` (not retried as is). The API key never
appears in ``repr()``, logs or error messages.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import os
import time
from collections.abc import Sequence
from typing import Any

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception
from tenacity.wait import wait_exponential

from taskforce.errors import (
    ConfigurationError,
    ContextWindowExceededError,
    MalformedReplyError,
    ProviderError,
)
from taskforce.models._failures import (
    CONTEXT_HINTS,
    MALFORMED,
    is_auth,
    is_transient,
    missing_module,
    retry_after,
    short,
)
from taskforce.models._reply import convert_reply
from taskforce.models.base import Message, ModelResponse, NoCalls, ToolSpec

__all__ = ["LiteLLMModel"]

log = logging.getLogger(__name__)

_RESERVED = frozenset(
    {"model", "messages", "tools", "stream", "num_retries", "max_retries", "api_key", "api_base"}
    | {"timeout"}
)
_MAX_RETRY_AFTER = 60.0  # seconds; a longer Retry-After is capped
_CHARS_PER_TOKEN = 4
_MIN_ATTEMPT = 0.5  # seconds: no attempt is started with less time than this left
_GRACE = 2.0  # seconds beyond an attempt's timeout before it is cut off regardless
_MIN_SECRET_LEN = 6


def _check_options(options: dict[str, Any]) -> None:
    if clash := sorted(_RESERVED & options.keys()):
        raise ConfigurationError(f"LiteLLMModel manages these itself: {', '.join(clash)}")


def _import_litellm() -> Any:
    """Import litellm offline-safe: local cost map, no banner printed to stdout on errors."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    # litellm print()s a "Give Feedback / Get Help" banner on every exception; it would
    # corrupt a CLI's output and says nothing our ProviderError does not.
    litellm.suppress_debug_info = True
    return litellm


class LiteLLMModel:
    """A chat model reached through litellm (OpenAI, Anthropic, Gemini, local servers, ...).

    Args:
        model: litellm model string, e.g. ``"openai/gpt-4o-mini"`` or ``"anthropic/claude-..."``.
        api_base: Base URL of the endpoint (e.g. ``"http://127.0.0.1:8014/v1"``).
        api_key: Key for the provider; default: litellm reads the provider's variable.
        context_window: Context size in tokens; default: litellm's model table, else None.
        max_retries: Retries after the first attempt for transient failures.
        retry_wait: ``(min, max)`` seconds of exponential backoff between attempts.
        timeout: Seconds allowed for one request (one attempt).
        total_timeout: Seconds one :meth:`complete` call may take in all, attempts and the
            waits between them included (default: 2.5 x `timeout`, so 150 s): a provider
            that hangs gives up in bounded time.
        **litellm_kwargs: Passed through to ``litellm.acompletion`` (temperature, headers, ...).

    Raises:
        ConfigurationError: If an argument is invalid.
    """

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        context_window: int | None = None,
        max_retries: int = 3,
        retry_wait: tuple[float, float] = (1.0, 30.0),
        timeout: float = 60.0,
        total_timeout: float | None = None,
        **litellm_kwargs: Any,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ConfigurationError("model must be a non-empty litellm model string")
        if api_base is not None and not api_base.strip():
            raise ConfigurationError("api_base must not be empty (omit it for the default)")
        if api_key is not None and not api_key.strip():
            raise ConfigurationError("api_key must not be empty (omit it to use the environment)")
        if context_window is not None and (
            isinstance(context_window, bool) or not isinstance(context_window, int)
        ):
            raise ConfigurationError("context_window must be a positive integer or None")
        if context_window is not None and context_window <= 0:
            raise ConfigurationError("context_window must be a positive integer or None")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigurationError("max_retries must be an integer >= 0")
        if len(retry_wait) != 2 or not 0 <= retry_wait[0] <= retry_wait[1]:
            raise ConfigurationError("retry_wait must be (min, max) seconds with 0 <= min <= max")
        if not timeout > 0:
            raise ConfigurationError("timeout must be > 0 seconds")
        if total_timeout is not None and not total_timeout > 0:
            raise ConfigurationError("total_timeout must be > 0 seconds (or None)")
        _check_options(litellm_kwargs)
        self._model = model.strip()
        self._api_base = api_base
        self._api_key = api_key
        self._context_window = context_window
        self._max_retries = max_retries
        self._retry_wait = (float(retry_wait[0]), float(retry_wait[1]))
        self._timeout = float(timeout)
        self._total = float(total_timeout) if total_timeout is not None else 2.5 * self._timeout
        self._extra = dict(litellm_kwargs)
        self._info_window: int | None = None
        self._info_loaded = False

    def __repr__(self) -> str:
        base = f", api_base={self._api_base!r}" if self._api_base else ""
        key = ", api_key=<set>" if self._api_key else ""
        return f"LiteLLMModel(model={self._model!r}{base}{key})"

    @property
    def name(self) -> str:
        """The litellm model string."""
        return self._model

    def with_options(self, **litellm_kwargs: Any) -> LiteLLMModel:
        """A copy of this model that also sends these options (e.g. ``temperature``, ``seed``).

        Raises:
            ConfigurationError: For an option this class manages itself (see ``__init__``).
        """
        _check_options(litellm_kwargs)
        twin = copy.copy(self)
        twin._extra = {**self._extra, **litellm_kwargs}
        return twin

    def check_name(self) -> None:
        """Fail now if litellm cannot tell the provider from the model name (imports litellm).

        Raises:
            ConfigurationError: e.g. ``"gpt4"`` or ``"nosuchprovider/x"``; names the fix.
        """
        try:
            _import_litellm().get_llm_provider(self._model, api_base=self._api_base)
        except Exception:
            raise ConfigurationError(
                f"bad model name {self._model!r}: litellm does not know its provider; use "
                "provider/model, e.g. openai/gpt-4o-mini or anthropic/claude-3-5-haiku-latest"
            ) from None

    def _takes_tool_choice(self, litellm: Any) -> bool:
        """Whether the provider takes ``tool_choice`` (litellm's list of its parameters).

        One that does not is asked for the answer with no tools shown, as a model told
        nothing else would be.
        """
        try:
            model, provider, _, _ = litellm.get_llm_provider(self._model, api_base=self._api_base)
            params = litellm.get_supported_openai_params(model=model, custom_llm_provider=provider)
        except Exception:
            return False
        return "tool_choice" in (params or ())

    @property
    def api_base(self) -> str | None:
        """The endpoint's base URL, when one was given."""
        return self._api_base

    @property
    def context_window(self) -> int | None:
        """The configured context size, else litellm's ``max_input_tokens``, else None."""
        if self._context_window is not None:
            return self._context_window
        if not self._info_loaded:
            self._info_loaded = True
            try:
                info = _import_litellm().get_model_info(self._model)
                value = info.get("max_input_tokens") or info.get("max_tokens")
                self._info_window = int(value) if value else None
            except Exception:  # unknown model: litellm raises; "unknown" is the answer
                self._info_window = None
        return self._info_window

    def count_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """Estimate prompt tokens with litellm's bundled tiktoken encoding, never the network.

        litellm would fetch Hugging Face tokenizers for some model names (llama-3, claude-2,
        command-r, ...); those are not used here. If litellm cannot count, the estimate is
        one token per 4 characters of the JSON-encoded messages and tools.
        """
        try:
            litellm = _import_litellm()
            tokenizer = litellm.utils._return_openai_tokenizer(self._model)
            return int(
                litellm.token_counter(
                    model=self._model,
                    custom_tokenizer=tokenizer,
                    messages=[dict(m) for m in messages],
                    tools=[dict(t) for t in tools] or None,
                    use_default_image_token_count=True,  # never download images to size them
                )
            )
        except Exception:
            log.debug("token_counter failed for %s; using chars/4", self._model, exc_info=True)
            text = json.dumps(list(messages), default=str) + json.dumps(list(tools), default=str)
            return len(text) // _CHARS_PER_TOKEN + 1

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> ModelResponse:
        """Send the conversation (and tools, if any) and convert the reply.

        Raises:
            ContextWindowExceededError: The prompt is too large for the model.
            ProviderError: The provider failed; ``retryable`` says if a later try may work.
        """
        litellm = _import_litellm()
        request: dict[str, Any] = {
            "model": self._model,
            "messages": copy.deepcopy(list(messages)),
            "timeout": self._timeout,
            "num_retries": 0,  # retries are ours (tenacity), so they are counted and bounded
            **self._extra,
        }
        told = isinstance(tools, NoCalls)  # shown, not to be called: the answer in words
        shown = list(tools) if not told or self._takes_tool_choice(litellm) else []
        if shown:
            request["tools"] = copy.deepcopy(shown)
            if told:
                request["tool_choice"] = "none"
        if self._api_base:
            request["api_base"] = self._api_base
        if self._api_key:
            request["api_key"] = self._api_key
        deadline = time.monotonic() + self._total

        def left() -> float:
            return deadline - time.monotonic()

        retrying = AsyncRetrying(
            stop=lambda s: s.attempt_number > self._max_retries or left() < _MIN_ATTEMPT,
            wait=lambda s: min(self._wait(s), max(0.0, left() - _MIN_ATTEMPT)),
            retry=retry_if_exception(lambda e: is_transient(litellm, e)),
            before_sleep=self._log_retry,
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    request["timeout"] = max(min(self._timeout, left()), _MIN_ATTEMPT)
                    # litellm enforces the timeout; this bounds it even if a provider path does not
                    async with asyncio.timeout(request["timeout"] + _GRACE):
                        response = await litellm.acompletion(**request)
        except Exception as exc:
            attempts = retrying.statistics.get("attempt_number", 1)
            error = self._provider_error(litellm, exc, attempts, request["timeout"])
            raise error from (None if self._leaks(exc) else exc)
        try:
            return convert_reply(response)
        except Exception as exc:
            raise ProviderError(
                f"{self._model}: could not read the provider's reply ({type(exc).__name__}: "
                f"{self._redact(str(exc))})"
            ) from None

    # -- retries -------------------------------------------------------------------------

    def _wait(self, state: RetryCallState) -> float:
        low, high = self._retry_wait
        backoff = float(wait_exponential(multiplier=max(low, 1e-9), min=low, max=high)(state))
        exc = state.outcome.exception() if state.outcome else None
        after = retry_after(exc)
        return max(backoff, min(after, _MAX_RETRY_AFTER)) if after is not None else backoff

    def _log_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        log.warning(
            "%s: %s on attempt %d/%d; retrying in %.2fs",
            self._model,
            type(exc).__name__,
            state.attempt_number,
            self._max_retries + 1,
            wait,
        )

    # -- errors ------------------------------------------------------------------------------

    def _secret(self) -> str | None:
        # A placeholder key like "x" for a local server is no secret; masking it would
        # garble every message that contains the letter.
        key = self._api_key
        return key if key and len(key) >= _MIN_SECRET_LEN else None

    def _redact(self, text: str) -> str:
        key = self._secret()
        return text.replace(key, "***") if key else text

    def _leaks(self, exc: BaseException) -> bool:
        key = self._secret()
        return key is not None and key in f"{exc!s}{exc!r}"

    def _provider_error(
        self, litellm: Any, exc: Exception, attempts: int, waited: float
    ) -> ProviderError:
        status = getattr(exc, "status_code", None)
        detail = self._redact(short(exc))
        if isinstance(exc, TimeoutError):
            detail = f"no answer within {waited:g} s"
        where = f"{self._model}" + (f" at {self._api_base}" if self._api_base else "")
        if MALFORMED in str(exc).lower():
            return MalformedReplyError(f"{where}: the model's reply could not be parsed ({detail})")
        if is_transient(litellm, exc):
            return ProviderError(
                f"{where}: {detail} (gave up after {attempts} attempt(s); at most "
                f"{self._total:g} s per call, see timeout/total_timeout or --timeout)",
                retryable=True,
            )
        if isinstance(exc, litellm.ContextWindowExceededError) or (
            status in (400, 413, None) and any(h in str(exc).lower() for h in CONTEXT_HINTS)
        ):
            return ContextWindowExceededError(
                f"{where}: the prompt does not fit the model's context window; "
                f"shorten or compact the conversation ({detail})"
            )
        if is_auth(litellm, exc):
            return ProviderError(f"{where}: authentication failed ({detail}); {self._key_hint()}")
        if isinstance(exc, litellm.NotFoundError):
            return ProviderError(f"{where}: model or endpoint not found ({detail})")
        if isinstance(exc, litellm.BadRequestError):
            return ProviderError(f"{where}: the provider rejected the request ({detail})")
        if missing_module(exc):
            hint = " (pip install mcp)" if "mcp" in str(exc) else ""
            return ProviderError(f"{where}: litellm needs a missing package{hint}: {detail}")
        return ProviderError(f"{where}: {detail}")

    def _key_hint(self) -> str:
        names: list[str] = []
        try:
            litellm = _import_litellm()
            names = list(litellm.validate_environment(model=self._model)["missing_keys"])
            if not names:
                provider = litellm.get_llm_provider(self._model)[1]
                names = [f"{str(provider).upper()}_API_KEY"]
        except Exception:
            provider = self._model.split("/", 1)[0] if "/" in self._model else "OPENAI"
            names = [f"{provider.upper()}_API_KEY"]
        how = " or ".join(names)
        if self._api_key:
            return f"the api_key given was rejected; check it, or omit it and set {how}"
        return f"set {how} in the environment (or pass api_key=...)"
