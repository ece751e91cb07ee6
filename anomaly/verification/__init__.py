"""Verification: run checks on data, store metrics and outcomes, report."""

from anomaly.verification.result import CheckResult, VerificationResult
from anomaly.verification.suite import VerificationSuite

__all__ = ["CheckResult", "VerificationResult", "VerificationSuite"]
