"""Who may call the API: loopback-only binding without keys, bearer API keys otherwise;
a key names the tenant the request is served as."""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Sequence

from pydantic import SecretStr

from notecite.api.errors import UnauthorizedError

_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def is_loopback_host(host: str) -> bool:
    """Is ``host`` a loopback address or name (``127.0.0.0/8``, ``::1``, ``localhost``)?"""
    name = host.strip().strip("[]").lower()
    if name in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def tenant_for_key(
    authorization: str | None, keys: Sequence[tuple[str, SecretStr]], default: str
) -> str:
    """The tenant whose key the request sends; ``default`` when no key is configured.

    ``keys`` are (tenant, key) pairs. Every key is compared, in constant time, so timing
    says nothing about which one matched.

    Raises:
        UnauthorizedError: keys are configured and none was sent, or a wrong one.
    """
    if not keys:
        return default
    scheme, _, token = (authorization or "").partition(" ")
    given = token.strip().encode()
    found: str | None = None
    for tenant, key in keys:
        if hmac.compare_digest(given, key.get_secret_value().encode()):
            found = tenant
    if scheme.lower() != "bearer" or not given or found is None:
        raise UnauthorizedError("missing or wrong API key: send 'Authorization: Bearer <key>'")
    return found
