"""The shared vaults the QA sets of bench/qa ask about."""

from __future__ import annotations

from pathlib import Path


def shared_vault_roots(shared_data: Path) -> dict[str, Path]:
    """Each vault name of the QA sets with its folder in the shared data."""
    return {
        "foam": shared_data / "vault-foam" / "docs",
        "dendron": shared_data / "vault-dendron" / "vault",
    }
