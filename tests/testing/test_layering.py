"""notecite.testing sits on top: nothing in notecite imports it, and only its pytest plugin
module imports pytest."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib

from tests.helpers import REPO_ROOT

PACKAGE = REPO_ROOT / "src" / "notecite"


def imported_modules(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_nothing_outside_the_package_imports_it() -> None:
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "testing" not in path.relative_to(PACKAGE).parts
        and any(
            name == "notecite.testing" or name.startswith("notecite.testing.")
            for name in imported_modules(path.read_text(encoding="utf-8"))
        )
    ]
    assert offenders == []


def test_only_the_plugin_module_imports_pytest() -> None:
    modules = sorted(
        f"notecite.testing.{p.stem}"
        for p in (PACKAGE / "testing").glob("*.py")
        if p.stem not in ("__init__", "fixtures")
    )
    assert "notecite.testing.server" in modules
    for path in (PACKAGE / "testing").glob("*.py"):
        uses_pytest = any(n.split(".")[0] == "pytest" for n in imported_modules(path.read_text()))
        assert uses_pytest == (path.stem == "fixtures"), path.name
    script = (
        "import sys, importlib\n"
        f"for name in ['notecite.testing', *{modules!r}]: importlib.import_module(name)\n"
        "print('pytest' in sys.modules, '_pytest' in sys.modules)\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script],
        env={"PYTHONPATH": str(REPO_ROOT / "src")},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert ran.stdout.split() == ["False", "False"]


def test_the_entry_point_is_named_after_the_plugin_module() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["pytest11"] == {
        "notecite.testing.fixtures": "notecite.testing.fixtures"
    }
