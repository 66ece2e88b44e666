"""Every exception taskforce raises, sorted by who is at fault.

* :class:`UserError` — the developer using the library or the person at the CLI
  (bad configuration, unknown session, invalid session id). Raised before anything runs.
* :class:`ModelBehaviorError` — the model did something invalid. Inside the agent loop
  these never escape: they become error results sent back to the model.
* :class:`ProviderError` — the model provider failed (rate limit, timeout, connection)
  after the bounded retries.
* :class:`StateError` — the persistent store refused or could not read state.
"""

from __future__ import annotations


class TaskforceError(Exception):
    """Base class of every taskforce exception."""


# --- the developer / user is at fault ---------------------------------------------------


class UserError(TaskforceError):
    """A mistake by the developer or CLI user: bad configuration or arguments."""


class ConfigurationError(UserError):
    """The agent, model or store was configured wrongly."""


class SessionNotFoundError(UserError):
    """No session with that id exists."""


class InvalidSessionIdError(UserError):
    """A session id is empty, too long or contains characters that are not allowed."""


class FileAccessError(UserError):
    """A file the user named cannot be read or written (Plan.md import and export, eval files)."""

    @classmethod
    def of(cls, exc: OSError, what: str) -> FileAccessError:
        """The error for `what` (e.g. "cannot write 'out.md'") failing with `exc`: its reason."""
        return cls(f"{what}: {exc.strerror or str(exc) or type(exc).__name__}")


# --- the model is at fault ----------------------------------------------------------------


class ModelBehaviorError(TaskforceError):
    """The model sent something invalid (arguments, tool name, plan change)."""


class ToolInputError(ModelBehaviorError):
    """A tool call's arguments were refused; the message says why, for the model to fix."""

    def __init__(self, message: str, error_type: str = "invalid_input") -> None:
        super().__init__(message)
        self.error_type = error_type


class PlanError(ToolInputError):
    """A plan change violates an invariant (bad index, illegal transition, limits)."""

    def __init__(self, message: str, error_type: str = "plan_error") -> None:
        super().__init__(message, error_type)


# --- the provider is at fault -------------------------------------------------------------


class ProviderError(TaskforceError):
    """The model provider failed after retries (rate limit, timeout, connection, auth)."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


class ContextWindowExceededError(ProviderError):
    """The prompt does not fit the model's context window: compact the conversation and retry."""


class MalformedReplyError(ProviderError):
    """The provider could not parse the model's own reply (a tool call's arguments not JSON).

    The model is at fault, the provider reports it (llama.cpp answers HTTP 500): the same
    request gives the same reply at temperature 0, so it is not retried as is; the agent
    asks once more with a note saying what was wrong.
    """


# --- the store refused or failed -------------------------------------------------------------


class StateError(TaskforceError):
    """Base class for persistent-state errors."""


class StaleStateError(StateError):
    """A write was based on an outdated version; nothing was overwritten."""

    def __init__(self, session_id: str, expected: int | None, actual: int | None) -> None:
        super().__init__(
            f"session {session_id!r}: write based on version {expected} refused; "
            f"the stored version is {actual} (reload and retry)"
        )
        self.session_id = session_id
        self.expected = expected
        self.actual = actual


class StatePayloadError(StateError, UserError):
    """State that cannot be stored: not JSON-serialisable, NUL bytes, or too large."""


class StateCorruptError(StateError):
    """A stored row cannot be read back; names the session. Never silently replaced."""


class SchemaVersionError(StateError, UserError):
    """The database schema is newer than this code (or otherwise unusable)."""


class CommitUncertainError(StateError):
    """A commit was interrupted and whether it landed could not be determined."""


class ClaimError(StateError):
    """A claim operation was refused; nothing changed.

    The step is held by another owner, no longer the caller's (``claim_lost``: its lease
    ran out and it was taken back), not in the plan, blocked, or otherwise not ready; the
    message says which and `error_type` names it.
    """

    def __init__(self, message: str, error_type: str = "claim_refused") -> None:
        super().__init__(message)
        self.error_type = error_type
