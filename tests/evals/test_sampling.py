"""Sampled runs: a seed per request, mixed from the run's, and models that cannot sample."""

from __future__ import annotations

import pytest

from taskforce.errors import ConfigurationError
from taskforce.evals.sampling import SampledModel, request_seed, sampled
from taskforce.models.offline import OfflineModel
from taskforce.testing import ScriptedModel, reply
from tests.evals.helpers import Sampler


def test_request_seeds_are_fixed_distinct_and_31_bit() -> None:
    seeds = [request_seed(run, k) for run in range(5) for k in range(200)]
    assert seeds == [request_seed(run, k) for run in range(5) for k in range(200)]
    assert len(set(seeds)) == len(seeds)
    assert all(0 <= s < 2**31 for s in seeds)
    assert request_seed(1, 0) != request_seed(0, 1)


async def test_each_request_of_a_run_asks_with_its_own_seed() -> None:
    inner = Sampler(ScriptedModel([reply("a"), reply("b"), reply("c")]))
    model = sampled(inner, 0.3, run_seed=4)
    assert isinstance(model, SampledModel) and model.name == inner.name
    for _ in range(3):
        await model.complete([{"role": "user", "content": "hi"}], [])
    assert inner.asked == [{"temperature": 0.3, "seed": request_seed(4, k)} for k in range(3)]


def test_greedy_leaves_the_model_alone_and_a_model_that_cannot_sample_is_refused() -> None:
    offline = OfflineModel()
    assert sampled(offline, 0.0, None) is offline
    with pytest.raises(ConfigurationError, match=r"temperature 0\.5 needs a model that samples"):
        sampled(offline, 0.5, run_seed=0)
