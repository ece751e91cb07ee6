"""Deprecated: which annotations cover a stored point is the repository's rule, read in one
place, ``repository.annotations`` (``repo.coverage(...)``, a `Coverage`; ``covered_by`` in
SQL). The old names stay for a release."""

from __future__ import annotations

from repository.annotations import covering_kinds as kinds
from repository.annotations import of_run

__all__ = ["kinds", "of_run"]
