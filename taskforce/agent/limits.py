"""What one model reply may carry into a session: its text and arguments cut to size.

A misbehaving provider can answer with megabytes (a 20 MB reply once made the save fail
and left the session "running"). Whatever arrives, the reply kept, stored and shown is at
most :data:`MAX_REPLY_CHARS` characters of text plus arguments; the text is cut with a
marker, and a call whose arguments do not fit keeps only a marker that
:func:`~taskforce.tools.arguments.decode_arguments` refuses as "too large", so the model
gets an error result it can act on.
"""

from __future__ import annotations

import dataclasses

from taskforce.models.base import ModelResponse
from taskforce.tools.arguments import cut_arguments

MAX_REPLY_CHARS = 1_000_000
"""Characters of text and tool-call arguments kept from one model reply, in all."""


def bound_reply(response: ModelResponse, limit: int = MAX_REPLY_CHARS) -> ModelResponse:
    """`response` within `limit` characters (itself when it fits)."""
    content = response.content or ""
    size = len(content) + sum(len(c.arguments) for c in response.tool_calls)
    if size <= limit:
        return response
    budget = limit
    if len(content) > budget:
        cut = len(content) - budget
        content = f"{content[:budget]}\n\n[… cut: {cut:,} more characters; a reply may carry "
        content += f"at most {limit:,}]"
    budget -= min(len(content), budget)
    calls = []
    for call in response.tool_calls:
        if len(call.arguments) > budget:
            call = dataclasses.replace(call, arguments=cut_arguments(call.arguments))
        else:
            budget -= len(call.arguments)
        calls.append(call)
    return dataclasses.replace(response, content=content or None, tool_calls=tuple(calls))
