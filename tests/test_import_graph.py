"""Imports run one way, down the layers: no cycle between units nor between modules.

The graph is read from the source with ``ast``, every import statement included (those inside
functions and under ``TYPE_CHECKING`` too): a lazy import hides a cycle, it does not break it.
A unit is a subpackage or root module of ``anomaly`` (``anomaly.judging``, ``anomaly.cli``),
or ``repository``, or ``detectors``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("anomaly", "repository", "detectors")


def modules() -> dict[str, Path]:
    """Module name -> file, for every module of the three packages."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The known modules that module `name` imports (anywhere in its file)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names = [module] + [f"{module}.{alias.name}" for alias in node.names]
        for target in names:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                targets.add(target)
    return targets


def unit(module: str) -> str:
    """``anomaly.judging.run`` -> ``anomaly.judging``; ``repository.keys`` -> ``repository``."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "anomaly" and len(parts) > 1 else parts[0]


def graphs() -> tuple[nx.DiGraph, nx.DiGraph]:
    """The module graph and the unit graph."""
    known = modules()
    by_module, by_unit = nx.DiGraph(), nx.DiGraph()
    for name, path in known.items():
        by_module.add_node(name)
        for target in imported(name, path, known):
            # A package imports its own modules to re-export them; a module importing its
            # package's face is the same edge the other way: both are not dependencies.
            if not (target.startswith(name + ".") or name.startswith(target + ".")):
                by_module.add_edge(name, target)
            if unit(name) != unit(target):
                by_unit.add_edge(unit(name), unit(target))
    return by_module, by_unit


def cycles(graph: nx.DiGraph) -> list[list[str]]:
    """Every strongly connected set of more than one node, sorted."""
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


@pytest.mark.parametrize("level", ["unit", "module"])
def test_no_import_cycle(level: str) -> None:
    by_module, by_unit = graphs()
    found = cycles(by_unit if level == "unit" else by_module)
    assert found == [], f"{level}s that import each other: {found}"


def test_the_graph_sees_lazy_imports(tmp_path: Path) -> None:
    source = tmp_path / "lazy.py"
    source.write_text("def f():\n    from pkg.b import x\n", encoding="utf-8")
    known = {"pkg.a": source, "pkg.b": source}
    assert imported("pkg.a", source, known) == {"pkg.b"}


def test_detectors_and_repository_import_nothing_of_the_app() -> None:
    _, by_unit = graphs()
    for base in ("detectors", "repository"):
        assert not [u for u in by_unit.successors(base) if u.startswith("anomaly")]
