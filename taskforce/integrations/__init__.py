"""The planner in other agent frameworks, as each framework's own tool type.

* :mod:`taskforce.integrations.openai_agents` — an Agents SDK ``FunctionTool``
  (``pip install "taskforce[openai_agents]"``).
* :mod:`taskforce.integrations.pydantic_ai` — a pydantic-ai ``Tool``
  (``pip install "taskforce[pydantic_ai]"``).
* :mod:`taskforce.integrations.langchain` — a LangChain ``StructuredTool`` for LangGraph
  and LangChain agents (``pip install "taskforce[langchain]"``).

Each module has ``planner_tool(state_manager=None, session_id=None, ...)``: the plan is
kept per session (the framework's session or thread when it has one), persisted through
the ``StateManager`` when given, and the model is sent the checklist as text. Importing
this package imports no framework; each module imports only its own.
"""
