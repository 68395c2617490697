"""One home for the MCP tests, indexed once: the Foam vault and a small vault (with a symlink
that leads out of it) for the default tenant, one other note for tenant ``beta``."""

from __future__ import annotations

from pathlib import Path

import pytest

from notecite import Engine
from notecite.testing import hash_settings, write_files
from tests.helpers import FOAM_VAULT

SMALL_NOTES = {"inbox/todo.md": "# Todo\n\nBuy oat milk.\nCall the plumber about the sink.\n"}
BETA_NOTES = {
    "projects/zephyr.md": "# Zephyr\n\n## Budget\n\nThe Zephyr budget is 12000 dollars.\n",
}


@pytest.fixture
def anyio_backend() -> str:
    """The MCP client runs on asyncio."""
    return "asyncio"


@pytest.fixture(scope="session")
def mcp_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home where tenant ``default`` has vaults ``foam`` (the shared Foam docs) and
    ``small`` (whose ``leak.md`` links to a file outside it), and tenant ``beta`` has vault
    ``zephyr``; all indexed with the hash embedder."""
    root = tmp_path_factory.mktemp("mcp")
    home = root / "home"
    secret = write_files(root / "outside", {"secret.md": "# Secret\n\nThe safe code is 4711.\n"})
    small = write_files(root / "small", SMALL_NOTES)
    (small / "leak.md").symlink_to(secret / "secret.md")
    with Engine(hash_settings(home)) as engine:
        engine.add_vault("foam", FOAM_VAULT)
        engine.add_vault("small", small)
        engine.index()
        with engine.for_tenant("beta") as beta:
            beta.add_vault("zephyr", write_files(root / "zephyr", BETA_NOTES))
            beta.index()
    return home
