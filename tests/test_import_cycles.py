"""No module of notecite imports itself back through another (DESIGN: layers point down)."""

from __future__ import annotations

from pathlib import Path

import notecite
from tests.import_graph import import_cycles, import_graph

ROOT = Path(notecite.__file__).resolve().parent


def test_notecite_has_no_import_cycle() -> None:
    assert import_cycles(ROOT, "notecite") == []


def test_the_graph_sees_imports_inside_functions(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import thing\n")
    (package / "b.py").write_text("def thing():\n    from pkg import a\n    return a\n")
    assert import_graph(package, "pkg")["pkg.b"] == {"pkg.a"}
    assert import_cycles(package, "pkg") == [["pkg.a", "pkg.b"]]
