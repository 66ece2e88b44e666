"""Fixtures shared by the whole suite. Keep this file small.

* ``LITELLM_LOCAL_MODEL_COST_MAP=True`` is set at import, before anything imports litellm,
  so litellm never downloads its price list.
* ``_no_provider_keys`` (autouse): provider API keys and ``TASKFORCE_MODEL`` are removed from
  the environment, so no test can reach a real provider or depend on the developer's setup.
* ``_network_guard`` (autouse): connecting a socket to anything but loopback (127.0.0.0/8,
  ::1) or a Unix socket raises :class:`NetworkBlockedError` and fails the test, even if the
  code under test swallows the exception.
* ``pytest_configure``: ignores one pydantic ``UserWarning`` that litellm triggers when it
  first builds its response types ("... is using the `ReadOnly` qualifier"). Under
  ``filterwarnings = error`` it would abort that build, and every later litellm call in the
  process would fail the same way (when litellm was imported before the first test ran).
* ``pytest_configure`` also gives Ctrl-C back to the suite when it was started with SIGINT
  ignored (a background job of a non-interactive shell, as CI may start it): processes the
  tests start inherit an ignored SIGINT, so the Ctrl-C tests (tests/cli/test_interrupt.py)
  would send a signal nobody hears.
* ``openai_server``: a scriptable OpenAI-compatible server on 127.0.0.1 (see
  ``tests/fakes/openai_server.py``); ``.url``, ``.script(...)``, ``.requests``.
"""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

PROVIDER_ENV_VARS = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_API_BASE",
    "OPENAI_ORGANIZATION",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "MISTRAL_API_KEY",
    "GROQ_API_KEY",
    "COHERE_API_KEY",
    "TOGETHERAI_API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENROUTER_API_KEY",
    "XAI_API_KEY",
    "AZURE_API_KEY",
    "AZURE_API_BASE",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "HF_TOKEN",
    "HUGGINGFACE_API_KEY",
    "OLLAMA_API_BASE",
    "TASKFORCE_MODEL",
)


def pytest_configure(config: pytest.Config) -> None:
    """The litellm/pydantic warning filter and SIGINT, as the module docstring says."""
    config.addinivalue_line(
        "filterwarnings", "ignore:.*is using the `ReadOnly` qualifier:UserWarning"
    )
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


class NetworkBlockedError(OSError):
    """A test tried to connect somewhere other than loopback."""


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset provider keys and TASKFORCE_MODEL for every test."""
    for name in PROVIDER_ENV_VARS:
        monkeypatch.delenv(name, raising=False)


def _is_loopback(family: int, address: Any) -> bool:
    if family == getattr(socket, "AF_UNIX", object()):
        return True
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, bytes):
        host = host.decode()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False  # a host name other than localhost: refuse, do not resolve


@pytest.fixture(autouse=True)
def _network_guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Block non-loopback connections; fail the test afterwards if any was attempted."""
    attempts: list[str] = []
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_create_connection = socket.create_connection

    def check(family: int, address: Any) -> None:
        if not _is_loopback(family, address):
            attempts.append(repr(address))
            raise NetworkBlockedError(f"test tried to connect to {address!r}: only loopback")

    def connect(self: socket.socket, address: Any) -> None:
        check(self.family, address)
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        check(self.family, address)
        return real_connect_ex(self, address)

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        check(socket.AF_INET, address)
        return real_create_connection(address, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "create_connection", create_connection)
    yield attempts
    if attempts:
        pytest.fail(f"non-loopback network access attempted: {', '.join(attempts)}")


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    """A running fake OpenAI-compatible server; ``.url`` is ``http://127.0.0.1:PORT/v1``."""
    with FakeOpenAIServer() as server:
        yield server
