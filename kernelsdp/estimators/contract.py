"""What every kernelsdp estimator shares: scikit-learn's contract, in the house's terms.

- Parameters are declared in ``_parameter_constraints`` (scikit-learn's validate_params
  model) and checked at ``fit``; a bad one raises :class:`EstimatorParameterError`, which is
  both kernelsdp's :class:`~kernelsdp.errors.InvalidParameterError` and scikit-learn's, with
  scikit-learn's one message shape ("The 'C' parameter of NPKLKernelLearning must be a float
  in the range (0.0, inf). Got -1 instead.").
- A solve is never trusted on its status: :func:`solve_certified` returns the result *and*
  its certificate (:func:`kernelsdp.verify.certify`, recomputed from the point and duals),
  which the estimators keep as ``certificate_``.  A solve without a usable point is an
  error for ``fit`` (an estimator cannot return a status); a usable point whose certificate
  fails is kept, with a :class:`~sklearn.exceptions.ConvergenceWarning` that says which
  measures failed.
"""

from __future__ import annotations

import warnings

from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import InvalidParameterError as SklearnParameterError

from ..errors import InvalidParameterError, KernelSDPError


class EstimatorParameterError(InvalidParameterError, SklearnParameterError):
    """A constructor parameter out of its declared range (kernelsdp's and scikit-learn's)."""


class SolveFailedError(KernelSDPError, RuntimeError):
    """The solver returned no usable point, so there is nothing to fit."""


class DeclaredParameters:
    """Mixin: ``_validate_params`` raising the house's typed error."""

    def _validate_params(self):
        try:
            super()._validate_params()
        except SklearnParameterError as exc:
            raise EstimatorParameterError(str(exc)) from None


def solve_certified(f, solver: str | None, options: dict | None, owner: str):
    """(result, certificate) of one solve of formulation ``f``; the solver's options are
    validated by the solver's own declaration (an unknown one is an error)."""
    from ..solvers import solve
    from ..verify import certify

    result = solve(f, solver, **(options or {}))
    if not result.ok:
        raise SolveFailedError(
            f"{owner}: solver {result.solver!r} returned no usable point "
            f"({result.termination.value}): {result.message}"
        )
    cert = certify(f, result)
    result.certificate = cert
    if not cert.passed:
        warnings.warn(
            f"{owner}: the {result.solver!r} solution is not certified at tolerance "
            f"{cert.tol:g} (failing: {', '.join(cert.failed)}); certificate_ says by "
            "how much.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return result, cert
