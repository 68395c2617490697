"""The web page's sign-in: an HttpOnly cookie instead of an API key in the page's storage.

The page sends the key once (``POST /auth/session``); the reply sets a cookie that scripts
cannot read (``HttpOnly``), that the browser sends to this site only (``SameSite=Strict``),
and that expires after :data:`MAX_AGE_S`. So a script that got into the page, which the page's
sanitiser and Content-Security-Policy are there to prevent, still could not read the key.

The cookie is a token ``v1:<tenant>:<issued>:<mac>``, where the MAC is an HMAC-SHA256 of the
tenant and issue time keyed by the API key that signed in. It holds no secret, needs no
server-side state and survives a restart; removing the key from the settings revokes it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Sequence

from pydantic import SecretStr

COOKIE = "notecite_session"
MAX_AGE_S = 30 * 24 * 3600
_VERSION = "v1"
_CLOCK_SKEW_S = 300


def _mac(key: SecretStr, tenant: str, issued: int) -> str:
    message = f"notecite page session\0{tenant}\0{issued}".encode()
    digest = hmac.new(key.get_secret_value().encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def issue(tenant: str, key: SecretStr, now: float | None = None) -> str:
    """A cookie value for ``tenant``, signed with the ``key`` it signed in with."""
    issued = int(time.time() if now is None else now)
    return f"{_VERSION}:{tenant}:{issued}:{_mac(key, tenant, issued)}"


def tenant_of(
    token: str, keys: Sequence[tuple[str, SecretStr]], now: float | None = None
) -> str | None:
    """The tenant a cookie value signs in, or ``None`` when it is malformed, expired, or
    signed by no key of ``keys`` (``(tenant, key)`` pairs)."""
    if not token.isascii():
        return None
    parts = token.split(":")
    if len(parts) != 4 or parts[0] != _VERSION or not parts[2].isdigit():
        return None
    _, tenant, issued_text, mac = parts
    issued = int(issued_text)
    clock = time.time() if now is None else now
    if not clock - MAX_AGE_S <= issued <= clock + _CLOCK_SKEW_S:
        return None
    found = False
    for owner, key in keys:
        if owner == tenant and hmac.compare_digest(mac, _mac(key, tenant, issued)):
            found = True
    return tenant if found else None
