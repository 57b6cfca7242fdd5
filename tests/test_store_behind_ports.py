"""The database is reached only through the store's ports: no module outside
``roomsync.adapters.store`` takes the store's SQLAlchemy engine, imports an engine or connection
type, or makes an engine of its own (issue 24: 27 places took ``store.engine`` raw and built the
availability view, the webhook records and the inbox sweep wherever they were needed)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "roomsync"
STORE = SRC / "adapters" / "store"
RAW_NAMES = {"Engine", "Connection", "create_engine"}


def _ends_with_store(node: ast.expr) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return name in ("store", "_store")


def raw_database_uses(path: Path) -> list[str]:
    found: list[str] = []
    where = path.relative_to(SRC) if SRC in path.parents else path.name
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "engine" and _ends_with_store(node.value):
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy"):
            raw = sorted(alias.name for alias in node.names if alias.name in RAW_NAMES)
            if raw:
                found.append(f"{where}:{node.lineno}: imports {', '.join(raw)}")
    return found


def test_nothing_outside_the_store_touches_its_engine() -> None:
    modules = [path for path in SRC.rglob("*.py") if STORE not in path.parents]
    assert len(modules) > 100
    found = [use for path in modules for use in raw_database_uses(path)]
    assert found == [], "\n".join(found)


def test_the_check_finds_a_raw_use(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from sqlalchemy.engine import Engine\n\n"
        "def f(store, self):\n    return store.engine, self._store.engine, self.engine\n"
    )
    assert len(raw_database_uses(sample)) == 3
