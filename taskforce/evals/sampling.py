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
from taskforce.models.base import Message, Model, ModelResponse, ModelWrapper, ToolSpec

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


class SampledModel(ModelWrapper):
    """One run's model when runs sample: `inner` asked with a temperature and a fresh seed."""

    inner: CanSample

    def __init__(self, inner: CanSample, temperature: float, run_seed: int) -> None:
        super().__init__(inner)
        self.temperature = temperature
        self.run_seed = run_seed
        self.requests = 0

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> ModelResponse:
        """Ask the inner model with this run's temperature and the next request's seed."""
        seed = request_seed(self.run_seed, self.requests)
        self.requests += 1
        model = self.inner.with_options(temperature=self.temperature, seed=seed)
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
