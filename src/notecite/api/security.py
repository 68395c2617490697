"""Who may call the API: loopback-only binding without keys, bearer API keys otherwise."""

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


def check_api_key(authorization: str | None, keys: Sequence[SecretStr]) -> None:
    """Accept any request when no key is configured, else only ``Bearer <a configured key>``.

    Raises:
        UnauthorizedError: keys are configured and none was sent, or a wrong one.
    """
    if not keys:
        return
    scheme, _, token = (authorization or "").partition(" ")
    given = token.strip().encode()
    matched = False
    for key in keys:  # compare with every key, so timing says nothing about which matched
        matched |= hmac.compare_digest(given, key.get_secret_value().encode())
    if scheme.lower() != "bearer" or not given or not matched:
        raise UnauthorizedError("missing or wrong API key: send 'Authorization: Bearer <key>'")
