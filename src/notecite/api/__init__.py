"""The HTTP API: ``create_app(settings)`` (FastAPI), served by ``notecite serve``."""

from notecite.api.app import create_app

__all__ = ["create_app"]
