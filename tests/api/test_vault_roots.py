"""Vault roots: over the API a tenant registers and indexes only folders under its own roots.

Two tenants with keys: ``default`` (alpha) whose root holds a secret note, and ``beta``. Beta
tries alpha's folder directly, through a symlink inside its own root, through ``..`` and
through a folder whose name merely starts like its root's; each is refused with 403, and
beta's own folder is accepted, indexed and searched. The command line stays unrestricted.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from notecite import Engine, Settings, load_settings
from notecite.cli.main import cli
from notecite.errors import ConfigError
from notecite.testing import hash_settings, write_files
from tests.api.helpers import add_and_index, assert_error, running, wait_for_index
from tests.api.test_tenants import two_clients

pytestmark = pytest.mark.anyio

ALPHA_SECRET = "# Safe\n\nThe safe combination is quokkazebra nine.\n"
BETA_NOTE = "# Garden\n\nBeta plants tomatoes in the south bed.\n"
REPO = Path(__file__).resolve().parents[2]


def _folders(tmp_path: Path) -> tuple[Path, Path]:
    alpha_root = write_files(tmp_path / "alpha-root", {"notes/safe.md": ALPHA_SECRET})
    beta_root = write_files(tmp_path / "beta-root", {"notes/garden.md": BETA_NOTE})
    return alpha_root, beta_root


def _settings(tmp_path: Path, alpha_root: Path, beta_root: Path) -> Settings:
    return hash_settings(
        tmp_path / "home",
        server={
            "api_keys": ["alpha-key"],
            "tenant_keys": {"beta": ["beta-key"], "gamma": ["gamma-key"]},
            "vault_roots": [alpha_root],
            "tenant_vault_roots": {"beta": [beta_root]},
        },
    )


async def _refused(client: httpx.AsyncClient, path: str | Path) -> str:
    response = await client.post("/vaults", json={"name": "try", "path": str(path)})
    return assert_error(response, 403, "ForbiddenError")


async def test_a_tenant_adds_vaults_only_under_its_own_roots(tmp_path: Path) -> None:
    alpha_root, beta_root = _folders(tmp_path)
    (beta_root / "sneaky").symlink_to(alpha_root / "notes", target_is_directory=True)
    (beta_root / "notes" / "deeper").symlink_to(alpha_root, target_is_directory=True)
    write_files(tmp_path / "beta-root-evil", {"notes/x.md": "# X\n\nnot beta's\n"})
    attempts = [
        alpha_root / "notes",  # alpha's folder itself
        alpha_root,
        beta_root / "sneaky",  # a symlink inside beta's root pointing into alpha's folder
        beta_root / "notes" / "deeper" / "notes",  # a symlinked folder on the way
        f"{beta_root}/../alpha-root/notes",  # `..` out of the root
        f"{beta_root}/notes/../../alpha-root/notes",
        f"{beta_root}/./notes/../..",
        tmp_path / "beta-root-evil",  # starts like the root, is not under it
        tmp_path / "no-such-folder",  # outside and missing: the same 403, no disk oracle
        "/",
        "~",
    ]
    async with two_clients(_settings(tmp_path, alpha_root, beta_root)) as (alpha, beta):
        for path in attempts:
            message = await _refused(beta, path)
            assert "server.tenant_vault_roots.beta" in message
            assert repr(str(path)) in message  # the path as given...
        sneaky = await _refused(beta, beta_root / "sneaky")
        assert str(alpha_root) not in sneaky  # ...never where a symlink leads
        assert (await beta.get("/vaults")).json() == {"vaults": []}
        # alpha (the default tenant) is held to its own roots the same way
        message = await _refused(alpha, beta_root / "notes")
        assert "server.vault_roots" in message

        # the allowed folder (and the root itself) are accepted, indexed and searched
        assert (await add_and_index(beta, "garden", beta_root / "notes"))["state"] == "done"
        created = await beta.post("/vaults", json={"name": "root", "path": f"{beta_root}/notes/.."})
        assert created.status_code == 201, created.text
        assert created.json()["path"] == str(beta_root.resolve())
        found = (await beta.post("/search", json={"query": "safe combination quokkazebra"})).json()
        assert "quokkazebra" not in " ".join(hit["text"] for hit in found["results"])
        found = (await beta.post("/search", json={"query": "tomatoes south bed"})).json()
        assert "tomatoes" in " ".join(hit["text"] for hit in found["results"])

        missing = await beta.post(
            "/vaults", json={"name": "gone", "path": str(beta_root / "nothing-here")}
        )
        assert_error(missing, 400, "VaultError")  # under the root: an honest "not found"


async def test_a_keyed_tenant_with_no_roots_cannot_add_vaults(tmp_path: Path) -> None:
    alpha_root, beta_root = _folders(tmp_path)
    settings = _settings(tmp_path, alpha_root, beta_root)
    async with running(settings) as client:
        client.headers["Authorization"] = "Bearer gamma-key"
        message = await _refused(client, tmp_path / "gamma")
        assert "no vault roots are configured" in message
        assert "server.tenant_vault_roots.gamma" in message
        assert "notecite --tenant gamma vault add" in message


async def test_an_index_run_checks_the_roots_again(tmp_path: Path) -> None:
    """A vault folder swapped for a symlink out of the root after it was registered."""
    alpha_root, beta_root = _folders(tmp_path)
    async with two_clients(_settings(tmp_path, alpha_root, beta_root)) as (_, beta):
        assert (await add_and_index(beta, "garden", beta_root / "notes"))["state"] == "done"
        (beta_root / "notes" / "garden.md").unlink()
        (beta_root / "notes").rmdir()
        (beta_root / "notes").symlink_to(alpha_root / "notes", target_is_directory=True)
        refused = await beta.post("/vaults/garden/index")
        assert "server.tenant_vault_roots.beta" in assert_error(refused, 403, "ForbiddenError")
        status = await wait_for_index(beta, "garden")  # still the first run's
        assert status["state"] == "done"
        assert [v["notes"] for v in (await beta.get("/vaults")).json()["vaults"]] == [1]
        found = (await beta.post("/search", json={"query": "safe combination quokkazebra"})).json()
        assert "quokkazebra" not in str(found)


async def test_a_keyless_loopback_server_accepts_any_folder_unless_roots_are_set(
    tmp_path: Path,
) -> None:
    alpha_root, beta_root = _folders(tmp_path)
    async with running(hash_settings(tmp_path / "open")) as client:
        created = await client.post(
            "/vaults", json={"name": "a", "path": str(alpha_root / "notes")}
        )
        assert created.status_code == 201, created.text
    limited = hash_settings(tmp_path / "limited", server={"vault_roots": [beta_root]})
    async with running(limited) as client:
        await _refused(client, alpha_root / "notes")
        ok = await client.post("/vaults", json={"name": "b", "path": str(beta_root / "notes")})
        assert ok.status_code == 201, ok.text


def test_the_cli_adds_any_folder_whatever_the_roots(tmp_path: Path) -> None:
    alpha_root, beta_root = _folders(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        '[embedder]\nname = "hash"\n[server]\napi_keys = ["alpha-key"]\n'
        f'vault_roots = ["{beta_root}"]\n[server.tenant_keys]\nbeta = ["beta-key"]\n'
        f'[server.tenant_vault_roots]\nbeta = ["{beta_root}"]\n'
    )
    runner = CliRunner()
    for tenant in ("default", "beta"):
        added = runner.invoke(
            cli, ["--home", str(home), "--tenant", tenant, "vault", "add", "a", str(alpha_root)]
        )
        assert added.exit_code == 0, added.output
        assert f"added vault a -> {alpha_root.resolve()}" in added.output
    settings = load_settings(home=home)
    with Engine(settings) as engine:
        assert [v.path for v in engine.vaults()] == [alpha_root.resolve()]
        assert [v.path for v in engine.for_tenant("beta").vaults()] == [alpha_root.resolve()]


def test_the_readme_vault_roots_example_is_valid(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text()
    (block,) = [
        b for b in re.findall(r"```toml\n(.*?)```", readme, re.DOTALL) if "vault_roots" in b
    ]
    (tmp_path / "config.toml").write_text(block)
    server = load_settings(tmp_path / "config.toml", home=tmp_path).server
    assert server.vault_roots_of("default") == [Path("/srv/notes/default")]
    assert server.vault_roots_of("acme") == [Path("/srv/notes/acme")]
    assert server.vault_roots_of("nobody") == []  # keys configured: nothing allowed


@pytest.mark.parametrize(
    ("server", "error"),
    [
        ({"vault_roots": ["relative/notes"]}, "not an absolute path"),
        ({"tenant_vault_roots": {"default": ["/srv"]}}, "server.vault_roots"),
        ({"tenant_vault_roots": {"bad name!": ["/srv"]}}, "invalid tenant name"),
    ],
)
def test_bad_vault_roots_are_config_errors(
    tmp_path: Path, server: dict[str, object], error: str
) -> None:
    with pytest.raises(ConfigError, match=error):
        load_settings(home=tmp_path, server=server)
