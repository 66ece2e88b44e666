"""CLI configuration (flags > environment > defaults) and the model it selects."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from taskforce.errors import ConfigurationError

if TYPE_CHECKING:
    from taskforce.models.base import Model

OFFLINE_NAMES = frozenset({"", "offline"})

# The key variable litellm reads for each provider prefix (or bare model-name prefix).
_KEY_VARS: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "gpt-": "OPENAI_API_KEY",
    "o1": "OPENAI_API_KEY",
    "o3": "OPENAI_API_KEY",
    "o4": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "claude": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "fireworks_ai": "FIREWORKS_AI_API_KEY",
    "cohere": "COHERE_API_KEY",
    "xai": "XAI_API_KEY",
    "perplexity": "PERPLEXITYAI_API_KEY",
}
_MODEL_NAME = re.compile(r"[A-Za-z0-9][\w.:/@+-]{0,199}")


@dataclass(frozen=True, slots=True)
class Settings:
    """What one command was asked to use. None means "the default"."""

    db_url: str | None = None
    model: str | None = None
    api_base: str | None = None
    max_steps: int = 30
    debug: bool = False
    demo_tools: bool | None = None
    """The demo tools: None means "with the offline model only"."""
    workspace: str | None = None
    """The demo tools' folder (None: one per session next to the database)."""
    timeout: float | None = None
    """Seconds one model call may take, retries included (None: the model's default)."""

    @property
    def offline(self) -> bool:
        """Whether the offline rule-based model is selected."""
        return (self.model or "").strip().lower() in OFFLINE_NAMES

    def typed_db_url(self) -> str:
        """The database URL as given (flag, else `TASKFORCE_DB_URL`, else the default file)."""
        from taskforce.store import default_db_url

        return self.db_url.strip() if self.db_url and self.db_url.strip() else default_db_url()

    def resolved_db_url(self) -> str:
        """The database URL to use: :meth:`typed_db_url` with its async driver.

        Raises:
            ConfigurationError: an in-memory SQLite URL (a command's sessions would vanish
                when it ends).
        """
        from taskforce.store import require_persistent

        return require_persistent(self.typed_db_url())


def _key_var(model: str) -> str | None:
    """The key variable litellm reads for `model`'s provider, when known."""
    provider = model.split("/", 1)[0].lower() if "/" in model else model.lower()
    for prefix, var in _KEY_VARS.items():
        if provider == prefix if "/" in model else provider.startswith(prefix):
            return var
    return None


def missing_key(model: str, api_base: str | None, environ: Mapping[str, str]) -> str | None:
    """The provider key variable `model` needs but `environ` lacks, else None.

    A model served from `api_base` (a local OpenAI-compatible server) needs no key.
    """
    var = _key_var(model)
    if api_base or var is None:
        return None
    return None if environ.get(var, "").strip() else var


def warn_ignored_api_base(settings: Settings) -> None:
    """Say so on stderr when an API base is set but the offline model will be used."""
    if settings.offline and settings.api_base:
        print(
            "note: --api-base/TASKFORCE_API_BASE is ignored by the offline model; "
            "add --model NAME (e.g. openai/<the served model>) to use that server",
            file=sys.stderr,
        )


def for_session(settings: Settings, state: Mapping[str, Any], session_id: str) -> Settings:
    """The settings to continue `session_id` with: the model (and API base) it ran with.

    `--model` (or `TASKFORCE_MODEL`) still wins; when it names another model than the
    session's, a note on stderr says so. Sessions from before models were recorded keep
    the configured model.
    """
    record = state.get("model")
    stored = record.get("name") if isinstance(record, Mapping) else None
    if not isinstance(stored, str) or not stored.strip():
        return settings
    base = record.get("api_base") if isinstance(record, Mapping) else None
    stored_base = base if isinstance(base, str) and base.strip() else None
    if settings.model is None:
        if stored.strip().lower() in OFFLINE_NAMES:
            return settings
        return replace(settings, model=stored, api_base=settings.api_base or stored_base)
    chosen = "offline" if settings.offline else settings.model.strip()
    if chosen != stored.strip():
        from taskforce.cli._safe import one_line

        print(
            f"note: session {session_id} ran with model {one_line(stored)}; continuing with "
            f"{one_line(chosen)} as asked (--model or TASKFORCE_MODEL)",
            file=sys.stderr,
        )
    return settings


def make_model(settings: Settings, environ: Mapping[str, str] | None = None) -> Model:
    """The model for `settings`: the offline model unless a model name is configured.

    Raises:
        ConfigurationError: a malformed or unknown model name, or a provider key that is
            not set.
    """
    env = os.environ if environ is None else environ
    if settings.offline:
        from taskforce.models.offline import OfflineModel

        return OfflineModel()
    name = (settings.model or "").strip()
    if not _MODEL_NAME.fullmatch(name):
        raise ConfigurationError(
            f"bad model name {name[:80]!r}: use a litellm name such as openai/gpt-4o-mini"
        )
    var = missing_key(name, settings.api_base, env)
    if var:
        raise ConfigurationError(
            f"model {name!r} needs an API key: set {var} (or use --api-base for a local "
            "server, or leave --model out for the offline model)"
        )
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from taskforce.models.litellm_model import LiteLLMModel

    # Local OpenAI-compatible servers ignore the key, but litellm's client insists on one.
    var = _key_var(name) if settings.api_base else None
    key = "sk-no-key-required" if var and not env.get(var, "").strip() else None
    if settings.timeout is None:
        model = LiteLLMModel(name, api_base=settings.api_base, api_key=key)
    else:  # one attempt may use it all; retries happen only within it
        limit = settings.timeout
        model = LiteLLMModel(
            name, api_base=settings.api_base, api_key=key, timeout=limit, total_timeout=limit
        )
    model.check_name()  # before anything is stored: a typo must not create a session
    return model


def plan_first_for(model: Model) -> bool | None:
    """The agent's ``plan_first`` for `model`.

    The offline model plans every request by rule, so it is always offered the planner
    (False: offered, never forced); an LLM gets the default (None: offered and required
    when the mission needs a plan, not offered otherwise).
    """
    return False if model.name == "offline" else None
