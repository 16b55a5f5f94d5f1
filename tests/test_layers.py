"""The house's layer order (docs/architecture.md, "Layers"), checked against every import under app/: no
module imports a package of a later layer, and the packages import each other without a cycle (within a
layer too). Only route modules import the request's dependencies (app.api.dependencies, the shared ones, and
each domain's own app.<domain>.dependencies), and those modules import each other.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).parents[1]
APP = ROOT / "app"
DOC = ROOT / "docs" / "architecture.md"
DEPENDENCIES = "dependencies"  # the module name of a package's request dependencies

# Lowest first. A package may import its own layer's packages (without a cycle) and every earlier layer.
LAYERS: tuple[frozenset[str], ...] = tuple(
    frozenset(layer.split())
    for layer in (
        "errors",
        "config",
        "core",
        "models",
        "observability storage",
        "access derived pagecache outbox",
        "api",
        "timeline realtime webhooks notifications",
        "changes",
        "users products claims messages auth calendar inbound health metrics households organizations"
        " replies returns oidc ratings",
        "main cli worker_assembly migrations",
    )
)
LAYER_OF = {package: index for index, layer in enumerate(LAYERS) for package in layer}


def modules() -> list[Path]:
    return sorted(path for path in APP.rglob("*.py") if path != APP / "__init__.py")


def unit_of(path: Path) -> str:
    """The package under app/ a module belongs to, or the module's own name at the top."""
    return path.relative_to(APP).with_suffix("").parts[0]


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
def package_imports() -> dict[tuple[str, str], list[str]]:
    """(importer, imported) package pairs, each with the places that make it."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in modules():
        unit = unit_of(path)
        for line, name in imported(path):
            target = name.split(".")[1]
            if target != unit:
                found.setdefault((unit, target), []).append(f"{path.relative_to(ROOT)}:{line}")
    return found


def is_upward(importer: str, target: str) -> bool:
    return LAYER_OF[target] > LAYER_OF[importer]


def cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components of more than one package (Tarjan, iterative enough for ~30 nodes)."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def is_route_module(path: Path) -> bool:
    parts = path.relative_to(APP).parts
    return path.name == "router.py" or "routes" in parts[:-1] or parts == ("main.py",)


def test_every_package_has_a_layer() -> None:
    units = {unit_of(path) for path in modules()}
    assert units <= LAYER_OF.keys(), f"no layer for: {sorted(units - LAYER_OF.keys())}"


def test_the_layers_are_the_documented_ones() -> None:
    section = DOC.read_text().split("## Layers\n", 1)[1].split("\n## ", 1)[0]
    for package in LAYER_OF:
        assert f"`{package}`" in section, f"docs/architecture.md, Layers, does not name {package}"


def test_no_import_points_up_the_layers() -> None:
    wrong = [
        f"{site} imports {target} ({importer} is below it)"
        for (importer, target), sites in sorted(package_imports().items())
        if is_upward(importer, target)
        for site in sites
    ]
    assert not wrong, "imports that point up the layer order:\n" + "\n".join(wrong)


def test_no_package_cycle() -> None:
    edges = set(package_imports())
    assert not cycles(edges), f"packages that import each other: {cycles(edges)}"


def is_dependencies_module(name: str) -> bool:
    """`app.api.dependencies`, `app.claims.dependencies`, ...: a package's request dependencies."""
    return name.split(".")[-1] == DEPENDENCIES


def test_only_routes_import_the_request_dependencies() -> None:
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in modules()
        for line, name in imported(path)
        if is_dependencies_module(name) and not (is_route_module(path) or path.stem == DEPENDENCIES)
    ]
    assert not wrong, "request dependencies imported outside a route module:\n" + "\n".join(wrong)


def test_the_checks_see_a_wrong_import(tmp_path: Path) -> None:
    """The parser finds imports anywhere in a module: `import app.x`, `from app import x`, in functions;
    an upward import and a cycle are seen."""
    module = tmp_path / "example.py"
    module.write_text(
        "import app.access.claims\nfrom app import users\n\ndef f():\n    from app.core.db import engine\n"
    )
    assert [name for _, name in imported(module)] == ["app.access.claims", "app.users", "app.core.db"]
    assert is_upward("core", "models") and not is_upward("claims", "core")
    assert cycles({("claims", "messages"), ("messages", "claims"), ("messages", "users")}) == [
        ["claims", "messages"]
    ]
