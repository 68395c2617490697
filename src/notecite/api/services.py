"""What the routes share, built once per app in its lifespan: engine, sessions, index jobs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from notecite.api.errors import NotFoundError
from notecite.api.jobs import IndexJobs
from notecite.api.security import check_api_key
from notecite.chat.base import SessionStore
from notecite.chat.sessions import Sessions
from notecite.chat.types import SessionSettings
from notecite.config import Settings
from notecite.engine import Engine
from notecite.ingest.indexer import ProgressCallback
from notecite.types import IndexReport

SHUTDOWN_WAIT_S = 30.0  # how long shutdown waits for index runs before closing the store


@dataclass
class Services:
    """The engine and what hangs off it; closed when the app shuts down."""

    settings: Settings
    engine: Engine
    session_store: SessionStore
    sessions: Sessions
    jobs: IndexJobs

    @classmethod
    def open(cls, settings: Settings) -> Services:
        """Build the engine (nothing loads yet) and open the session store."""
        engine = Engine(settings)
        store = engine.open_sessions()

        def run_index(vault: str, progress: ProgressCallback) -> list[IndexReport]:
            return engine.index(vault, progress=progress)

        return cls(
            settings=settings,
            engine=engine,
            session_store=store,
            sessions=Sessions(store, SessionSettings.defaults(settings.ask)),
            jobs=IndexJobs(run_index),
        )

    def close(self) -> None:
        """Let index runs finish, then close the session store and the engine."""
        self.jobs.wait(SHUTDOWN_WAIT_S)
        self.session_store.close()
        self.engine.close()

    def require_vaults(self, names: Sequence[str]) -> None:
        """NotFoundError for the first name that is not a vault."""
        for name in names:
            if self.engine.store.get_vault(name) is None:
                known = ", ".join(v.name for v in self.engine.vaults()) or "none yet"
                raise NotFoundError(f"unknown vault {name!r}; known vaults: {known}")


def get_services(request: Request) -> Services:
    """The app's services (set by its lifespan)."""
    services = getattr(request.app.state, "services", None)
    if not isinstance(services, Services):
        raise RuntimeError("the notecite app is not started: run it with its lifespan")
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


def require_api_key(request: Request, services: ServicesDep) -> None:
    """Dependency of every route but /health: the bearer key, when keys are configured."""
    check_api_key(request.headers.get("authorization"), services.settings.server.api_keys)
