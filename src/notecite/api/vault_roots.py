"""Where a tenant may add vaults over the API: under its configured vault roots.

A path is resolved (``~``, ``..`` and every symlink) before it is compared, so neither a
``..`` nor a symlink inside an allowed root can reach a folder outside it. The refusal names
only the path as given, never where it resolves to, and is the same whether the folder exists
or not: the API does not tell a tenant what lies on the server's disk.
"""

from __future__ import annotations

import logging
from pathlib import Path

from notecite.api.errors import ForbiddenError, InvalidRequestError
from notecite.config import DEFAULT_TENANT, ServerSettings

logger = logging.getLogger(__name__)


def _setting(tenant: str) -> str:
    if tenant == DEFAULT_TENANT:
        return "server.vault_roots"
    return f"server.tenant_vault_roots.{tenant}"


def _resolve(path: Path) -> Path:
    return path.expanduser().resolve()


def allowed_vault_path(path: str | Path, tenant: str, server: ServerSettings) -> Path:
    """``path`` resolved, when ``tenant`` may add a vault there over the API.

    Args:
        path: the folder as the request gives it.
        tenant: the request's tenant.
        server: the server settings holding the tenant's vault roots.

    Raises:
        InvalidRequestError: the path holds a NUL, or the system cannot resolve it (a name
            too long, a symlink loop).
        ForbiddenError: the resolved folder is under none of the tenant's roots, or the server
            has API keys and the tenant has no roots at all.
    """
    if "\x00" in str(path):
        raise InvalidRequestError("a vault path cannot hold a NUL character")
    try:
        resolved = _resolve(Path(path))
    except (OSError, RuntimeError) as exc:
        raise InvalidRequestError(
            f"vault path cannot be resolved ({type(exc).__name__}): give an existing folder"
        ) from exc
    roots = server.vault_roots_of(tenant)
    if roots is None:  # keyless loopback server without roots: the single user may add any
        return resolved
    setting = _setting(tenant)
    if not roots:
        raise ForbiddenError(
            f"tenant {tenant!r} may not add vaults over the API: no vault roots are "
            f"configured for it; the server's operator sets {setting}, or adds the vault on "
            f"the server with: notecite --tenant {tenant} vault add NAME PATH"
        )
    if any(resolved.is_relative_to(_resolve(root)) for root in roots):
        return resolved
    logger.info("refused a vault path outside the vault roots of tenant %r", tenant)
    allowed = ", ".join(str(root) for root in roots)
    raise ForbiddenError(
        f"vault path {str(path)!r} is outside the folders tenant {tenant!r} may add vaults "
        f"from ({allowed}, symlinks resolved); use a folder under one of them, or ask the "
        f"server's operator to add a root to {setting}"
    )
