"""What the routes share, built once per app in its lifespan: per tenant, the engine, its
sessions and its index jobs.

The request's bearer key decides its tenant (:func:`request_tenant`); every route then works
on that tenant's :class:`Services` only.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from notecite.api.errors import ForbiddenError, InvalidRequestError, NotFoundError
from notecite.api.jobs import IndexJobs
from notecite.api.page_session import COOKIE, tenant_of
from notecite.api.security import tenant_for_key
from notecite.chat.sessions import Sessions
from notecite.config import DEFAULT_TENANT, Settings
from notecite.engine import Engine
from notecite.ingest.progress import ProgressCallback
from notecite.schemas.chat import SessionSettings
from notecite.store.sessions import SessionStore
from notecite.types import IndexReport

SHUTDOWN_WAIT_S = 30.0  # how long shutdown waits for index runs before closing the store

# Caps on what one request may scope a question to, and on paging: past them a request is
# hostile or broken, and each name costs a clause of the search's SQL.
MAX_SCOPE_VAULTS = 50
MAX_SCOPE_FOLDERS = 200
MAX_SCOPE_NAME_CHARS = 1000
MAX_OFFSET = 1_000_000


@dataclass
class Services:
    """One tenant's engine and what hangs off it; closed when the app shuts down."""

    settings: Settings
    engine: Engine
    session_store: SessionStore
    sessions: Sessions
    jobs: IndexJobs
    tenant: str = DEFAULT_TENANT

    @classmethod
    def open(cls, settings: Settings, engine: Engine | None = None) -> Services:
        """Build the engine (nothing loads yet) unless given, and open its session store."""
        engine = engine or Engine(settings)
        store = engine.open_sessions()

        def run_index(
            vault: str, progress: ProgressCallback, stop: threading.Event
        ) -> list[IndexReport]:
            return engine.index(vault, progress=progress, stop=stop)

        return cls(
            settings=settings,
            engine=engine,
            session_store=store,
            sessions=Sessions(store, SessionSettings.defaults(settings.ask)),
            jobs=IndexJobs(run_index),
            tenant=engine.tenant,
        )

    def close(self) -> None:
        """Stop index runs after the note or batch at hand (what they wrote is kept), then
        close the session store and the engine."""
        self.jobs.stop()
        self.jobs.wait(SHUTDOWN_WAIT_S)
        self.session_store.close()
        self.engine.close()

    def check_scope_size(self, vaults: Sequence[str], folders: Sequence[str]) -> None:
        """InvalidRequestError when a request names too many vaults or folders, or too long
        a name (the caps above)."""
        for kind, names, cap in (
            ("vaults", vaults, MAX_SCOPE_VAULTS),
            ("folders", folders, MAX_SCOPE_FOLDERS),
        ):
            if len(names) > cap:
                raise InvalidRequestError(f"at most {cap} {kind} per request ({len(names)} given)")
            if any(len(name) > MAX_SCOPE_NAME_CHARS for name in names):
                raise InvalidRequestError(
                    f"a name in {kind} is over {MAX_SCOPE_NAME_CHARS} characters"
                )

    def check_scope(self, vaults: Sequence[str], folders: Sequence[str]) -> None:
        """The caps of :meth:`check_scope_size`, then NotFoundError for the first name of
        ``vaults`` that is not a vault."""
        self.check_scope_size(vaults, folders)
        self.require_vaults(vaults)

    def require_vaults(self, names: Sequence[str]) -> None:
        """NotFoundError for the first name that is not a vault."""
        for name in names:
            if self.engine.store.get_vault(name) is None:
                known = ", ".join(v.name for v in self.engine.vaults()) or "none yet"
                raise NotFoundError(f"unknown vault {name!r}; known vaults: {known}")

    def require_tenant(self, tenant_id: str | None) -> None:
        """ForbiddenError when a body names a tenant other than the key's."""
        if tenant_id is not None and tenant_id != self.tenant:
            raise ForbiddenError(
                f"tenantId {tenant_id!r} is not the tenant of this API key; leave it out"
            )


class Tenants:
    """The services of each tenant, the default one opened at start, others on first use.

    Only tenants named in the settings can be reached (their keys decide), so the set is
    bounded by the configuration.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.default = Services.open(settings)
        self._others: dict[str, Services] = {}
        self._lock = threading.Lock()

    def get(self, tenant: str) -> Services:
        """The services of ``tenant``."""
        if tenant == DEFAULT_TENANT:
            return self.default
        with self._lock:
            found = self._others.get(tenant)
            if found is None:
                found = Services.open(self.settings, self.default.engine.for_tenant(tenant))
                self._others[tenant] = found
            return found

    def close(self) -> None:
        """Close every tenant's services, the default one last (it owns the models)."""
        with self._lock:
            others, self._others = list(self._others.values()), {}
        for services in others:
            services.close()
        self.default.close()


def get_tenants(request: Request) -> Tenants:
    """The app's tenants (set by its lifespan)."""
    tenants = getattr(request.app.state, "tenants", None)
    if not isinstance(tenants, Tenants):
        raise RuntimeError("the notecite app is not started: run it with its lifespan")
    return tenants


TenantsDep = Annotated[Tenants, Depends(get_tenants)]


def request_tenant(request: Request, tenants: TenantsDep) -> str:
    """The tenant of the request's bearer key, or of the web page's session cookie when no
    ``Authorization`` is sent (the default tenant when no key is set)."""
    keys = tenants.settings.server.keys_by_tenant()
    authorization = request.headers.get("authorization")
    cookie = request.cookies.get(COOKIE)
    if keys and authorization is None and cookie:
        tenant = tenant_of(cookie, keys)
        if tenant is not None:
            return tenant
    return tenant_for_key(authorization, keys, DEFAULT_TENANT)


TenantDep = Annotated[str, Depends(request_tenant)]


def get_services(tenants: TenantsDep, tenant: TenantDep) -> Services:
    """The services of the request's tenant."""
    return tenants.get(tenant)


ServicesDep = Annotated[Services, Depends(get_services)]


def require_api_key(tenant: TenantDep) -> None:
    """Dependency of every route but /health: the bearer key, when keys are configured."""
