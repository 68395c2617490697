"""notecite: answers from your own notes, with citations to the exact file and section."""

import logging

from notecite.config import Settings, load_settings
from notecite.engine import Engine
from notecite.errors import NotecitError
from notecite.types import IndexReport, IndexStatus, SearchResult, Vault

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "Engine",
    "IndexReport",
    "IndexStatus",
    "NotecitError",
    "SearchResult",
    "Settings",
    "Vault",
    "load_settings",
]
__version__ = "0.1.0"
