"""Verification: run checks on data, store metrics and outcomes, report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from anomaly.verification.result import CheckResult, VerificationResult
    from anomaly.verification.suite import VerificationSuite
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = ["CheckResult", "VerificationResult", "VerificationSuite"]
