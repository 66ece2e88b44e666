"""What `taskforce eval` asks the model's server: token counts, its window, --remeasure.

Token counts are exact where the server counts, else estimated; the context window is the
server's own when --context-window is not given.

--remeasure counts stored runs again exactly, with no model call (evals/replay.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import TYPE_CHECKING

from rich.console import Console

from taskforce.cli._safe import one_line
from taskforce.errors import ConfigurationError, ProviderError
from taskforce.evals.prompt_tokens import ServerTokenCounter, server_window
from taskforce.plan.text import plural

if TYPE_CHECKING:
    from taskforce.cli._eval import EvalOptions
    from taskforce.evals import Suite


def token_counter(options: EvalOptions, console: Console) -> ServerTokenCounter | None:
    """The counter that sizes the requests exactly, or None: they are estimated.

    --exact-tokens and --remeasure need --api-base's server to count; by default (neither
    --exact-tokens nor --estimated-tokens) it counts when it can, which is asked once.

    Raises:
        ConfigurationError: exact counts were asked for without --api-base, or the server
            cannot count (it is not llama.cpp's).
        ProviderError: exact counts were asked for and the server cannot be reached.
    """
    asked = options.exact_tokens or options.remeasure
    if options.exact_tokens is False and not options.remeasure:
        return None
    if not options.api_base:
        if not asked:
            return None
        flag = "--remeasure" if options.remeasure else "--exact-tokens"
        raise ConfigurationError(
            f"{flag} counts tokens on the model's server: give its --api-base (a llama.cpp "
            "server, which has POST /apply-template and /tokenize)"
        )
    counter = ServerTokenCounter(options.api_base, timeout=min(options.timeout, 300.0))
    probe = counter if asked else ServerTokenCounter(options.api_base, timeout=10.0)
    try:
        asyncio.run(probe.count([{"role": "user", "content": "ping"}], []))
    except (ConfigurationError, ProviderError) as exc:
        if asked:
            raise
        console.print(
            f"Token counts are estimated (tiktoken): the server did not count them ({exc})",
            markup=False,
            highlight=False,
        )
        return None
    return counter


def with_server_window(options: EvalOptions, console: Console) -> EvalOptions:
    """`options` with --context-window set to the server's own window when none was given.

    Only a llama.cpp server says it (``GET /props``); litellm does not know a local model's
    window, and without one a run would first learn it from an overflow. The command line
    the report and the progress show stays as typed.
    """
    if options.context_window is not None or not options.api_base:
        return options
    window = asyncio.run(server_window(options.api_base))
    if window is None:
        return options
    console.print(
        f"Context window: {window} tokens, the server's (--context-window sets another)",
        markup=False,
        highlight=False,
    )
    return dataclasses.replace(options, context_window=window)


def remeasure_command(
    options: EvalOptions, suite: Suite, counter: ServerTokenCounter, console: Console
) -> None:
    """Replay the stored runs of the suite (its --arms, --mission) and count them exactly.

    Raises:
        ConfigurationError: the server cannot count (not llama.cpp's), or nothing is stored.
        ProviderError: the server failed; the runs measured before are stored.
    """
    from taskforce.cli._eval_stored import named, stored_runs
    from taskforce.evals.replay import remeasure_results

    store, arms, progress = stored_runs(options, suite, "remeasure")

    async def run() -> list[str]:  # (token_counter has asked the server once already)
        outcome = await remeasure_results(
            store, suite, counter, arms=arms, missions=options.missions, on_progress=progress
        )
        console.print(
            f"{plural(len(outcome.records), 'run')} of {one_line(suite.name)} measured again "
            f"exactly on {one_line(counter.root)} and stored in {one_line(options.results)}",
            markup=False,
            highlight=False,
        )
        return outcome.differing

    differing = asyncio.run(run())
    if differing:
        console.print(
            f"{plural(len(differing), 'run')} kept as stored: replaying the stored replies did "
            f"not give their conversation back (the code changed since they ran): "
            f"{named(differing)}",
            markup=False,
            highlight=False,
        )
