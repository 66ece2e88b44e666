"""Sampled runs: each repeat its own path, each request of a run its own seed.

At temperature 0 a repeat is the same run again. Above 0, repeat ``r`` of a run is seeded
``settings.seed + r``, and the ``k``-th request of that run with a seed mixed from both
(:func:`request_seed`). One seed for every request would not do: a server re-seeds its
sampler per request, so every request would draw the same random numbers, and a run whose
first draw favours, say, answering in text over calling a tool would do so at every turn
(measured: the plain loop at temperature 0.3 took 3.9 turns per mission with one seed per
run, against 8.1 with another seed and 8.2 greedy).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from taskforce.errors import ConfigurationError
from taskforce.models.base import Message, Model, ModelResponse, ToolSpec

__all__ = ["CanSample", "SampledModel", "request_seed", "sampled"]


@runtime_checkable
class CanSample(Model, Protocol):
    """A model that can be asked with extra options (``LiteLLMModel``)."""

    def with_options(self, **options: Any) -> Model:
        """A model like this one that also sends `options` (temperature, seed)."""
        ...


def request_seed(run_seed: int, request: int) -> int:
    """The seed of a run's `request`-th model request (0-based): 31 bits, well mixed."""
    digest = hashlib.sha256(f"{run_seed}:{request}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFF_FFFF


class SampledModel:
    """One run's model when runs sample: `model` asked with a temperature and a fresh seed."""

    def __init__(self, model: CanSample, temperature: float, run_seed: int) -> None:
        self._model = model
        self.temperature = temperature
        self.run_seed = run_seed
        self.requests = 0

    @property
    def name(self) -> str:
        """The wrapped model's name (runs are stored under it)."""
        return self._model.name

    @property
    def context_window(self) -> int | None:
        """The wrapped model's context window."""
        return self._model.context_window

    def count_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """The wrapped model's count."""
        return self._model.count_tokens(messages, tools)

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> ModelResponse:
        """Ask the wrapped model with this run's temperature and the next request's seed."""
        seed = request_seed(self.run_seed, self.requests)
        self.requests += 1
        model = self._model.with_options(temperature=self.temperature, seed=seed)
        return await model.complete(messages, tools)


def sampled(model: Model, temperature: float, run_seed: int | None) -> Model:
    """`model` as is (`run_seed` None: greedy), or a :class:`SampledModel` of it.

    Raises:
        ConfigurationError: Sampling asked of a model that cannot sample (offline, scripted).
    """
    if run_seed is None:
        return model
    if not isinstance(model, CanSample):
        raise ConfigurationError(
            f"temperature {temperature:g} needs a model that samples (a litellm model); "
            f"{model.name!r} answers the same way every time"
        )
    return SampledModel(model, temperature, run_seed)
