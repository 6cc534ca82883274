"""kernelsdp: convex relaxations for kernel learning.

Declare a problem once (a formulation: validated data + one CVXPY model), solve it with
a generic conic solver through CVXPY or a registered fast solver, and cross-check the
answers by certificate with :func:`kernelsdp.verify.verify`.
"""

from .data import PairwiseConstraints, knn_laplacian, load
from .errors import KernelSDPError
from .formulations import FORMULATIONS, NPKL, simple_npkl
from .result import KernelFactor, PointStatus, Result, Termination
from .solvers import get_solver, registry, solve
from .verify import verify

__version__ = "0.1.0"
__all__ = ["FORMULATIONS", "KernelFactor", "KernelSDPError", "NPKL", "PairwiseConstraints",
           "PointStatus", "Result", "Termination", "get_solver", "knn_laplacian", "load",
           "registry", "simple_npkl", "solve", "verify"]
