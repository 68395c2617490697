"""The ask tests' engine fixture, for retrieval tests that go through ``Engine.ask``."""

from tests.ask.conftest import make_engine

__all__ = ["make_engine"]
