"""Exact prompt sizes from the model's own server: its chat template and its tokenizer.

The meter's default sizes are estimates: litellm's tiktoken encoding of OpenAI's function
format. A local server renders a request with the model's own chat template (Qwen's puts
every tool definition in the system prompt as JSON, which is longer) and tokenizes it with
the model's own vocabulary. A llama.cpp server says both: ``POST /apply-template`` turns a
chat request into the prompt text and ``POST /tokenize`` turns that into tokens, so
:class:`ServerTokenCounter` sizes a request exactly as the model reads it (on the stored
evaluation runs it equals the ``prompt_tokens`` the server reported, request by request).
The same server says its context window too (``GET /props``): :func:`server_window`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx

from taskforce.errors import ConfigurationError, ProviderError
from taskforce.models.base import Message, ToolSpec

__all__ = ["ServerTokenCounter", "server_root", "server_window"]


def server_root(api_base: str) -> str:
    """The server's root URL from an OpenAI-style base (``http://host:8080/v1`` → ``.../``)."""
    root = api_base.strip().rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


async def server_window(api_base: str, *, wait: float = 10.0) -> int | None:
    """The context size of each of a llama.cpp server's slots (``GET /props``), else None.

    None for a server that does not say (not llama.cpp's, unreachable, an odd answer);
    `wait`: seconds allowed for the answer.
    """
    try:
        async with httpx.AsyncClient(base_url=server_root(api_base), timeout=wait) as client:
            response = await client.get("/props")
        props = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    size = settings.get("n_ctx") if isinstance(settings, dict) else None
    return size if type(size) is int and size > 0 else None


class ServerTokenCounter:
    """Counts a request's prompt tokens with a llama.cpp server's template and tokenizer.

    Args:
        api_base: The server's OpenAI-style base URL (``http://127.0.0.1:8080/v1``).
        timeout: Seconds allowed per HTTP request.

    Raises:
        ConfigurationError: (from :meth:`count`) the server has no ``/apply-template`` or
            ``/tokenize`` (it is not llama.cpp's server), or its answer is not one of them.
        ProviderError: (from :meth:`count`) the server cannot be reached or fails.
    """

    def __init__(self, api_base: str, *, timeout: float = 60.0) -> None:
        if not isinstance(api_base, str) or not api_base.strip():
            raise ConfigurationError("counting tokens on the server needs its URL (--api-base)")
        self.root = server_root(api_base)
        self._timeout = timeout

    async def count(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """The prompt tokens of a chat request of `messages` offering `tools`."""
        return len(await self.tokens(messages, tools))

    async def tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> list[int]:
        """The prompt of a chat request of `messages` offering `tools`, as token ids."""
        body: dict[str, Any] = {"messages": [dict(m) for m in messages]}
        if tools:
            body["tools"] = [dict(t) for t in tools]
        async with httpx.AsyncClient(base_url=self.root, timeout=self._timeout) as client:
            prompt = (await self._post(client, "/apply-template", body)).get("prompt")
            if not isinstance(prompt, str):
                raise self._not_llama_cpp("/apply-template gave no prompt")
            tokens = (await self._post(client, "/tokenize", {"content": prompt})).get("tokens")
        if not isinstance(tokens, list) or not all(type(t) is int for t in tokens):
            raise self._not_llama_cpp("/tokenize gave no tokens")
        return tokens

    async def _post(self, client: httpx.AsyncClient, path: str, body: Any) -> dict[str, Any]:
        try:
            response = await client.post(path, json=body)
        except httpx.HTTPError as exc:
            raise ProviderError(
                f"counting tokens: {self.root}{path} failed: {exc or type(exc).__name__}",
                retryable=True,
            ) from None
        if response.status_code in (404, 405, 501):
            raise self._not_llama_cpp(f"{path} answered HTTP {response.status_code}")
        if response.status_code >= 400:
            raise ProviderError(
                f"counting tokens: {self.root}{path} answered HTTP {response.status_code}: "
                f"{response.text[:200]}",
                retryable=response.status_code >= 500,
            )
        try:
            data = response.json()
        except ValueError:
            raise self._not_llama_cpp(f"{path} did not answer JSON") from None
        if not isinstance(data, dict):
            raise self._not_llama_cpp(f"{path} did not answer a JSON object")
        return data

    def _not_llama_cpp(self, what: str) -> ConfigurationError:
        return ConfigurationError(
            f"counting tokens on the server needs llama.cpp's server (POST /apply-template "
            f"and /tokenize) at {self.root}: {what}"
        )
