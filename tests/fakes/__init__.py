"""Test doubles with real wire protocols (a scriptable OpenAI-compatible server)."""
