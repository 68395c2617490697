"""``GET /health``: the server is up (no API key needed)."""

from __future__ import annotations

from fastapi import APIRouter

from notecite import __version__
from notecite.api.schemas import Health

router = APIRouter(tags=["health"])


@router.get("/health")
def health() -> Health:
    """The server answers; no key needed, nothing is loaded."""
    return Health(version=__version__)
