"""The certificate layer: one solver-independent check of any answer.

- :mod:`.canonical`: a CVXPY problem in canonical conic form, solved so that the point
  (x, y, ray) behind the answer is kept — the path of every generic solver;
- :mod:`.conic`: the generic certificate of that point (DIMACS err1–err6, an objective
  interval, Farkas and ray checks), with :mod:`.cones` and :mod:`.bounds`;
- :mod:`.verdict`: the one :class:`Certificate` type every family returns.
"""

from .canonical import CanonicalForm, CanonicalSolution, solve_canonical
from .conic import conic_certificate
from .external import certify_conic
from .verdict import (
    ESTIMATE,
    FEASIBILITY_ONLY,
    INCONSISTENT,
    INFEASIBILITY,
    NO_POINT,
    OPTIMALITY,
    PROBABLE,
    PROOF,
    UNBOUNDEDNESS,
    Certificate,
    feasibility_only,
    no_point,
    relative_width,
)

__all__ = [
    "CanonicalForm",
    "CanonicalSolution",
    "Certificate",
    "ESTIMATE",
    "FEASIBILITY_ONLY",
    "INCONSISTENT",
    "PROBABLE",
    "PROOF",
    "INFEASIBILITY",
    "NO_POINT",
    "OPTIMALITY",
    "UNBOUNDEDNESS",
    "certify_conic",
    "conic_certificate",
    "feasibility_only",
    "no_point",
    "relative_width",
    "solve_canonical",
]
