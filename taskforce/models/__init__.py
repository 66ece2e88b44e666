"""The models the agent asks: the protocol and its data, and two implementations.

``base.py``: the :class:`~taskforce.models.base.Model` protocol and what crosses it
(``ModelResponse``, ``ToolCall``, ``Usage``; pure data). ``litellm_model.py``:
:class:`~taskforce.models.litellm_model.LiteLLMModel`, any provider through litellm (the
only module that imports it, at first use). ``offline.py``:
:class:`~taskforce.models.offline.OfflineModel`, deterministic rules for a first run
without a provider.
"""
