"""Independent certificates and cross-solver checks."""

from .kkt import dual_value, npkl_residuals
from .report import Comparison, SolverCheck, VerifyReport, certify, tolerances_for, verify
from .twins import verify_twins

__all__ = ["Comparison", "SolverCheck", "VerifyReport", "certify", "dual_value",
           "npkl_residuals", "tolerances_for", "verify", "verify_twins"]
