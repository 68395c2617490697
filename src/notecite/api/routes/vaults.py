"""Vaults: list, add, remove; start an index run and follow its progress."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response, status

from notecite.api.errors import ConflictError, InvalidRequestError, NotFoundError
from notecite.api.schemas import (
    FolderList,
    FrontmatterFacetsOut,
    IndexJobOut,
    VaultCreate,
    VaultList,
    VaultOut,
)
from notecite.api.services import Services, ServicesDep
from notecite.api.vault_roots import allowed_vault_path
from notecite.store.base import FrontmatterFacets

router = APIRouter(prefix="/vaults", tags=["vaults"])


def _require(services: Services, name: str) -> None:
    if services.engine.store.get_vault(name) is None:
        raise NotFoundError(f"unknown vault {name!r}; list vaults with GET /vaults")


@router.get("")
def list_vaults(services: ServicesDep) -> VaultList:
    """Registered vaults with their note and chunk counts and failed files."""
    return VaultList(vaults=[VaultOut.of(v) for v in services.engine.status().vaults])


@router.post("", status_code=status.HTTP_201_CREATED)
def add_vault(body: VaultCreate, services: ServicesDep) -> VaultOut:
    """Register a folder of notes under a name (index it with POST /vaults/{name}/index).

    The folder must lie under one of the tenant's vault roots (403 otherwise).
    """
    path = allowed_vault_path(body.path, services.tenant, services.settings.server)
    try:
        path.is_dir()
    except OSError as exc:  # a name too long: the engine's own check would fail the same way
        raise InvalidRequestError(f"vault path cannot be read: {exc.strerror}") from exc
    if services.engine.store.get_vault(body.name) is not None:
        raise ConflictError(f"a vault named {body.name!r} exists already; pick another name")
    vault = services.engine.add_vault(body.name, path)
    return VaultOut(name=vault.name, path=str(vault.path))


@router.delete("/{name}", status_code=status.HTTP_204_NO_CONTENT)
def remove_vault(name: str, services: ServicesDep) -> Response:
    """Forget a vault and its index (the files are not touched)."""
    _require(services, name)
    if services.jobs.running(name):
        raise ConflictError(f"vault {name!r} is being indexed; remove it when the run ends")
    services.engine.remove_vault(name)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/{name}/folders")
def list_folders(name: str, services: ServicesDep) -> FolderList:
    """The folders of the vault's indexed notes (``a/b`` form), for scoping a question."""
    vault = services.engine.store.get_vault(name)
    if vault is None:
        raise NotFoundError(f"unknown vault {name!r}; list vaults with GET /vaults")
    return FolderList(vault=name, folders=services.engine.store.folders(vault.id))


@router.get("/{name}/frontmatter")
def list_frontmatter(
    name: str,
    services: ServicesDep,
    keys: Annotated[str, Query(max_length=500, description="comma-separated keys")] = "tags,type",
) -> FrontmatterFacetsOut:
    """Values of frontmatter keys (default: tags and type) in the vault's notes, with the
    number of notes holding each: what a filter (``tags=atlas``) can pick from."""
    store = services.engine.store
    vault = store.get_vault(name)
    if vault is None:
        raise NotFoundError(f"unknown vault {name!r}; list vaults with GET /vaults")
    wanted = list(dict.fromkeys(k.strip().lower() for k in keys.split(",") if k.strip()))[:20]
    values: dict[str, dict[str, int]] = {k: {} for k in wanted}
    if isinstance(store, FrontmatterFacets):
        values = store.frontmatter_facets([vault.id], wanted)
    return FrontmatterFacetsOut(vault=name, values=values)


@router.post("/{name}/index", status_code=status.HTTP_202_ACCEPTED)
def start_index(name: str, services: ServicesDep) -> IndexJobOut:
    """Start indexing the vault in the background (a run already going on is returned).

    The vault's folder is checked against the tenant's vault roots again (403 outside them),
    so a vault registered before the roots were set, or whose folder has since become a
    symlink leading elsewhere, is not indexed over the API.
    """
    vault = services.engine.store.get_vault(name)
    if vault is None:
        raise NotFoundError(f"unknown vault {name!r}; list vaults with GET /vaults")
    allowed_vault_path(vault.path, services.tenant, services.settings.server)
    services.engine.check_embedder()
    job, _ = services.jobs.start(name)
    return job


@router.get("/{name}/index")
def index_status(name: str, services: ServicesDep) -> IndexJobOut:
    """The vault's latest index run: state, files done of total, and its report."""
    _require(services, name)
    return services.jobs.status(name)
