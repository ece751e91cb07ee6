"""Lazy package exports for ``repository`` (PEP 562): a package's public names load their
module when first used, so ``import repository.records`` (what validating a config needs)
loads neither DuckDB nor Arrow.

A package lists its exports once, as ordinary imports under ``if TYPE_CHECKING:`` (where
readers and type checkers look), and ends with
``__getattr__, __dir__ = lazy_names(__name__)`` outside that block. (``detectors`` has the
same mechanism with more cases; ``repository`` imports nothing from it.)

>>> import repository
>>> repository.ResultKey.__module__
'repository.keys'
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def lazy_names(package: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of `package`, from its ``TYPE_CHECKING`` imports."""
    module = sys.modules[package]
    homes = _declared(Path(str(module.__file__)))

    def load(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(homes[name]), name)
        module.__dict__[name] = value
        return value

    def listing() -> list[str]:
        return sorted({*module.__dict__, *homes})

    return load, listing


def _declared(path: Path) -> dict[str, str]:
    """Exported name -> its module, from the ``if TYPE_CHECKING:`` imports of `path`."""
    homes: dict[str, str] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module:
                    homes.update((alias.name, statement.module) for alias in statement.names)
    return homes
