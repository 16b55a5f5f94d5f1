"""The layering of docs/architecture.md ("The house in one page"), checked against every import under app/:
a package imports the foundation and what its row of the table allows, `app.core` imports no domain
package, and only route modules import the request's dependencies (app.dependencies)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).parents[1]
APP = ROOT / "app"
DOC = ROOT / "docs" / "architecture.md"
HEADING = "## The house in one page"
FOUNDATION = frozenset({"errors", "config", "core", "models"})
DEPENDENCIES = "dependencies"


def layering() -> dict[str, set[str]]:
    """The table's rows: package (or top-level module) -> the packages it may import."""
    section = DOC.read_text().split(HEADING + "\n", 1)[1].split("\n## ", 1)[0]
    table: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 3 and re.fullmatch(r"`[a-z_]+`", cells[0]):
            table[cells[0].strip("`")] = set(re.findall(r"`([a-z_]+)`", cells[2]))
    return table


def modules() -> list[Path]:
    return sorted(path for path in APP.rglob("*.py") if path != APP / "__init__.py")


def unit_of(path: Path) -> str:
    """The table's name for a module: its package under app/, or the module's own name at the top."""
    return path.relative_to(APP).with_suffix("").parts[0]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> Iterator[tuple[int, str]]:
    """(line, module) for every `app.*` module the file imports, wherever the import statement is."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [f"app.{alias.name}" if node.module == "app" else node.module for alias in node.names]
        else:
            continue
        for name in names:
            if name.startswith("app."):
                yield node.lineno, name


@cache
def vocabularies() -> frozenset[str]:
    """Modules that declare StrEnums (and type aliases of them), and import nothing from app: leaves, usable
    from anywhere."""
    found = set()
    for path in modules():
        body = ast.parse(path.read_text()).body
        classes = [node for node in body if isinstance(node, ast.ClassDef)]
        plain = (ast.ClassDef, ast.Import, ast.ImportFrom, ast.Expr, ast.Assign, ast.AnnAssign)
        enums = all(any(getattr(base, "id", None) == "StrEnum" for base in node.bases) for node in classes)
        if classes and enums and all(isinstance(node, plain) for node in body) and not list(imported(path)):
            found.add(module_name(path))
    return frozenset(found)


def is_route_module(path: Path) -> bool:
    parts = path.relative_to(APP).parts
    return path.name == "router.py" or "routes" in parts[:-1] or parts == ("main.py",)


def test_the_table_names_every_package() -> None:
    table = layering()
    units = {unit_of(path) for path in modules()}
    assert units <= table.keys(), f"not in docs/architecture.md: {sorted(units - table.keys())}"
    assert table.keys() <= units, f"in the table but not under app/: {sorted(table.keys() - units)}"


def test_every_import_follows_the_table() -> None:
    table = layering()
    wrong = []
    for path in modules():
        unit = unit_of(path)
        allowed = table[unit] | ({unit} if unit in FOUNDATION else FOUNDATION | {unit, DEPENDENCIES})
        for line, name in imported(path):
            target = name.split(".")[1]
            if target not in allowed and not any(name.startswith(v) for v in vocabularies()):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {name} ({unit} may not use {target})")
    assert not wrong, "imports against docs/architecture.md:\n" + "\n".join(wrong)


def test_core_imports_no_domain_package() -> None:
    assert layering()["core"] <= FOUNDATION
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in modules()
        if unit_of(path) == "core"
        for line, name in imported(path)
        if name.split(".")[1] not in FOUNDATION and not any(name.startswith(v) for v in vocabularies())
    ]
    assert not wrong, "\n".join(wrong)


def test_only_routes_import_the_request_dependencies() -> None:
    wrong = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in modules()
        for line, name in imported(path)
        if name.split(".")[1] == DEPENDENCIES and not is_route_module(path)
    ]
    assert not wrong, "app.dependencies imported outside a route module:\n" + "\n".join(wrong)


def test_the_checks_see_a_wrong_import(tmp_path: Path) -> None:
    """The parser finds imports anywhere in a module: `import app.x`, `from app import x`, in functions."""
    module = tmp_path / "example.py"
    module.write_text(
        "import app.claims.access\nfrom app import users\n\ndef f():\n    from app.core.db import engine\n"
    )
    assert [name for _, name in imported(module)] == ["app.claims.access", "app.users", "app.core.db"]
