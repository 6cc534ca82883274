"""Certify answers and cross-check solvers: the report layer over :mod:`kernelsdp.certificate`."""

from .report import Comparison, SolverCheck, VerifyReport, certify, compare, tolerances_for, verify
from .twins import verify_twins

__all__ = [
    "Comparison",
    "SolverCheck",
    "VerifyReport",
    "certify",
    "compare",
    "tolerances_for",
    "verify",
    "verify_twins",
]
