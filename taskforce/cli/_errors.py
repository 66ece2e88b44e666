"""Turning exceptions into one clear line and an exit code (tracebacks only with --debug)."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager

import typer

from taskforce.errors import (
    FileAccessError,
    ProviderError,
    SchemaVersionError,
    SessionNotFoundError,
    StaleStateError,
    StateError,
    StatePayloadError,
    TaskforceError,
    UserError,
)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_PROVIDER = 3
EXIT_DATABASE = 4
EXIT_MAX_STEPS = 5
EXIT_PAUSED = 6
EXIT_INCOMPLETE = 7
EXIT_FILE = 8
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

EXIT_CODES_HELP = (
    "Exit codes: 0 done; 1 unexpected error or failed run; 2 bad usage, unknown session "
    "or bad model name; 3 model provider error; 4 database error; 5 stopped at --max-steps "
    "with steps open; 6 paused: a call waits for approval (taskforce approve/reject SESSION); "
    "7 incomplete: the model finished with plan steps still open; 8 a file cannot be read "
    "or written (plan export -o, plan import, eval's --results, --json, --report, --notes); "
    "130 interrupted. "
    "`taskforce --debug COMMAND ...` shows tracebacks."
)

_MAX_MESSAGE = 600
_DB_MODULES = ("sqlalchemy", "sqlite3", "aiosqlite", "asyncpg", "alembic")


def describe(exc: BaseException) -> tuple[int, str]:
    """The exit code and the one-line message for `exc`."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, SessionNotFoundError):
        return EXIT_USAGE, f"{text} (list sessions with `taskforce sessions`)"
    if isinstance(exc, StatePayloadError):
        return EXIT_USAGE, text
    if isinstance(exc, FileAccessError):
        return EXIT_FILE, text
    if isinstance(exc, StaleStateError):
        sid = exc.session_id
        return EXIT_DATABASE, (
            f"session {sid} was changed by another run while this one worked (version "
            f"{exc.expected} became {exc.actual}); nothing was overwritten, and this run's work "
            f"up to its last saved step is kept. See where it stands: taskforce plan show {sid}; "
            f"then continue it: taskforce run --session {sid}"
        )
    if isinstance(exc, SchemaVersionError):
        return EXIT_DATABASE, f"{text} (upgrade taskforce, or point --db at another database)"
    if isinstance(exc, StateError):
        return EXIT_DATABASE, f"database: {text}"
    if isinstance(exc, UserError):
        return EXIT_USAGE, text
    if isinstance(exc, ProviderError):
        return EXIT_PROVIDER, f"model provider: {text}"
    if isinstance(exc, TaskforceError):
        return EXIT_FAILED, text
    if type(exc).__module__.split(".")[0] in _DB_MODULES:
        return EXIT_DATABASE, f"database: {text}"
    return EXIT_FAILED, f"unexpected {type(exc).__name__}: {text} (rerun with --debug for details)"


def shown_url(url: str) -> str:
    """`url` with any password replaced by `***`."""
    from taskforce.store import display_url

    return display_url(url)


@contextmanager
def database_errors(url: str) -> Iterator[None]:
    """Re-raise a driver or OS error from the database as a `StateError` naming `url`."""
    try:
        yield
    except (TaskforceError, KeyboardInterrupt, BrokenPipeError):
        raise
    except Exception as exc:
        if type(exc).__module__.split(".")[0] in _DB_MODULES or isinstance(exc, OSError):
            from taskforce.store import mask_password

            detail = " ".join(mask_password(str(exc), url).split())[:300] or type(exc).__name__
            raise StateError(f"cannot use the database {shown_url(url)}: {detail}") from exc
        raise


def fail(message: str, code: int) -> typer.Exit:
    """Print `error: message` to stderr and return the exit to raise."""
    from taskforce.cli._safe import one_line

    message = one_line(message).split(" Traceback (most recent call last)")[0]
    if len(message) > _MAX_MESSAGE:
        message = message[: _MAX_MESSAGE - 1] + "…"
    print(f"error: {message}", file=sys.stderr)
    return typer.Exit(code)


@contextmanager
def reporting(debug: bool, db_url: str | None = None) -> Iterator[None]:
    """Report any exception raised inside as one line on stderr and exit non-zero.

    Args:
        debug: also print the traceback.
        db_url: the database URL in use, whose password is masked in the message.
    """
    try:
        yield
    except (typer.Exit, typer.Abort, SystemExit):
        raise
    except KeyboardInterrupt:
        raise fail("interrupted", EXIT_INTERRUPTED) from None
    except BrokenPipeError:  # `taskforce sessions | head`: the reader left; leave quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise typer.Exit(EXIT_BROKEN_PIPE) from None
    except Exception as exc:
        if debug:
            traceback.print_exc()
        from taskforce.store import mask_password

        code, message = describe(exc)
        raise fail(mask_password(message, db_url), code) from None
