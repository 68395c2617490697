"""Errors of chat sessions; they extend the tree of :mod:`notecite.errors`::

NotecitError
└── ChatError                a chat request cannot be served as asked
    ├── SessionNotFoundError   no session with that id (for this tenant)
    └── TenantNotFoundError    the request names a tenant this store does not serve
"""

from __future__ import annotations

from notecite.errors import NotecitError


class ChatError(NotecitError):
    """A chat request cannot be served as asked."""


class SessionNotFoundError(ChatError):
    """No session with that id; list sessions to find the right one."""


class TenantNotFoundError(ChatError):
    """The request names a tenant this store does not serve."""
