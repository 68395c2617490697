"""The one error tree of notecite.

Every error raised on purpose by notecite derives from :class:`NotecitError`::

    NotecitError
    ├── ConfigError              settings are invalid or a provider name is unknown
    ├── VaultError               a vault name or path is wrong (unknown, duplicate, missing)
    ├── StoreError               the index database cannot be opened or written
    │   ├── EmbedderMismatchError  the index was built with another embedding model
    │   └── IndexBusyError         another index run holds the vault's lock
    ├── EmbeddingError           an embedding provider failed (load, network, bad reply)
    ├── LLMError                 a language model failed (load, network, bad reply)
    │   └── LLMTimeoutError        it did not answer in time (HTTP timeout, local deadline)
    ├── RerankError              a model reranker failed (retrieval keeps the fused order)
    ├── FilterError              a frontmatter filter is malformed (which part, what was expected)
    ├── GenerationCancelled      the client stopped the turn (Stop, or it went away)
    └── ParseError               one note could not be read or parsed (recorded, never fatal)

Messages say what to do next. Misuse of the Python API raises ``ValueError``/``TypeError``.
"""

from __future__ import annotations


class NotecitError(Exception):
    """Base of every error notecite raises on purpose."""


class ConfigError(NotecitError):
    """Settings are invalid, or a provider name is not registered."""


class VaultError(NotecitError):
    """A vault name or path is wrong: unknown, duplicate or missing on disk."""


class StoreError(NotecitError):
    """The index database cannot be opened, migrated or written."""


class EmbedderMismatchError(StoreError):
    """The index was built with another embedding model or dimension."""


class IndexBusyError(StoreError):
    """Another index run holds the vault's lock (its pid is in the message)."""


class EmbeddingError(NotecitError):
    """An embedding provider failed to load or to answer."""


class LLMError(NotecitError):
    """A language model failed to load or to answer."""


class LLMTimeoutError(LLMError):
    """A language model did not answer in time: an HTTP timeout or the local model's deadline.

    Every LLM provider raises this for a timeout, so that clients can tell it apart (the HTTP
    API answers 504 and ``error.type`` ``LLMTimeoutError``).
    """


class RerankError(NotecitError):
    """A model reranker (e5, cross-encoder) failed to load or to answer."""


class FilterError(NotecitError):
    """A frontmatter filter (``--filter``, ``filters``, ``#tag`` in a question) is malformed;
    the message names the part that is wrong and what was expected there."""


class GenerationCancelled(NotecitError):
    """The client stopped the turn (pressed Stop, or went away) while the model was writing.

    Raised from the token callback, so that the model's stream is closed and the provider
    stops; the chat service stores the turn as cancelled with the text written so far.
    """


class ParseError(NotecitError):
    """One note could not be read or parsed; the index run records it and goes on."""
