"""Public test helpers for notecite and its plugins (see docs/testing.md).

- :class:`ScriptedLLM`: an LLM provider that answers from a script and records requests;
- :class:`ProviderServer`: an OpenAI/Ollama-compatible server on 127.0.0.1, and
  :class:`LoopbackServer`, the raw server under it, for wire-level tests;
- :class:`DelegatingEmbedder`: wraps an embedder, records what it embeds, fails on demand;
- :class:`EngineFactory`, :class:`CliRun`, :func:`hash_settings`, :func:`write_files`: engines
  and the command line on a temporary home;
- ``notecite.testing.fixtures``: the pytest plugin (the only module that imports pytest).

Nothing in notecite imports this package; it imports the rest of notecite.
"""

from notecite.testing.cli import CliRun
from notecite.testing.embedder import DelegatingEmbedder
from notecite.testing.engines import EngineFactory, hash_settings, write_files
from notecite.testing.llm import ScriptedLLM, Task, task_of
from notecite.testing.loopback import LoopbackServer, Received
from notecite.testing.server import GARBAGE, HANG, Fault, ProviderServer

__all__ = [
    "GARBAGE",
    "HANG",
    "CliRun",
    "DelegatingEmbedder",
    "EngineFactory",
    "Fault",
    "LoopbackServer",
    "ProviderServer",
    "Received",
    "ScriptedLLM",
    "Task",
    "hash_settings",
    "task_of",
    "write_files",
]
