"""Lazy package exports (PEP 562): a package's public names load their module on first use.

``import anomaly`` used to import every subpackage, with pandas, scipy and numba, to answer a
command that needs none of them. A package written the lazy way keeps its re-exports where
readers and type checkers look for them, as ordinary imports under ``if TYPE_CHECKING:``, and
hands the rest to this module::

    if TYPE_CHECKING:
        from package.module import Name
    else:
        __getattr__, __dir__ = lazy_exports(__name__)

``from package import Name`` then imports ``package.module`` at that moment and not before;
``from package.other import *`` under ``TYPE_CHECKING`` exports the ``__all__`` of
``package.other``. The import lines are read from the package's own file (with ``ast``), so they
are written once. It lives in ``detectors`` because every package may import ``detectors`` and
this module imports nothing but the standard library.

>>> import detectors
>>> type(detectors).__name__, detectors.Adaptive.__name__
('LazyPackage', 'Adaptive')
"""

from __future__ import annotations

import ast
import importlib
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any


class LazyPackage(types.ModuleType):
    """A package module whose exported names win over its same-named submodules.

    Importing ``package.backfill`` sets the attribute ``backfill`` of ``package`` to that
    module; an eager ``from package.backfill import backfill`` in ``__init__`` would have
    replaced it by the function. Here the import system's assignment is dropped, so the
    exported function still answers, as it did when the package imported eagerly.
    """

    _lazy_names: dict[str, tuple[str, str]]

    def __setattr__(self, name: str, value: Any) -> None:
        exported = self.__dict__.get("_lazy_names", {}).get(name)
        is_submodule = isinstance(value, types.ModuleType) and (
            value.__name__ == f"{self.__name__}.{name}"
        )
        if exported is not None and is_submodule and ".".join(exported) != value.__name__:
            return  # the export, loaded on demand, answers for this name
        super().__setattr__(name, value)


def lazy_exports(package: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of `package`, from its ``TYPE_CHECKING`` imports."""
    module = sys.modules[package]
    names, starred = _declared(Path(str(module.__file__)))
    module.__class__ = LazyPackage
    module.__dict__["_lazy_names"] = names

    def load(name: str) -> Any:
        where = names.get(name)
        if where is None:
            where = next(((source, name) for source in starred if name in _all_of(source)), None)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        source, attribute = where
        value = getattr(importlib.import_module(source), attribute)
        module.__dict__[name] = value  # bypasses LazyPackage.__setattr__ on purpose
        return value

    def listing() -> list[str]:
        starred_names = [n for source in starred for n in _all_of(source)]
        return sorted({*module.__dict__, *names, *starred_names})

    return load, listing


def _declared(path: Path) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """Exported name -> (module, attribute), and the modules exported with ``*``."""
    names: dict[str, tuple[str, str]] = {}
    starred: list[str] = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not (isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")):
            continue
        for statement in node.body:
            if not isinstance(statement, ast.ImportFrom) or not statement.module:
                continue
            for alias in statement.names:
                if alias.name == "*":
                    starred.append(statement.module)
                else:
                    names[alias.asname or alias.name] = (statement.module, alias.name)
    return names, starred


def _all_of(source: str) -> list[str]:
    return list(getattr(importlib.import_module(source), "__all__", []))
