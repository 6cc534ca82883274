"""kernelsdp: convex relaxations for kernel learning.

Declare a problem once (a formulation: validated data + one CVXPY model), solve it with
a generic conic solver through CVXPY or a registered fast solver, and cross-check the
answers by certificate with :func:`kernelsdp.verify.verify`.
"""

from .certificate import Certificate
from .data import PairwiseConstraints, knn_laplacian, load
from .errors import KernelSDPError
from .formulations import FORMULATIONS, NPKL, CvxpyModel, Formulation, simple_npkl
from .formulations.cvxpy_problem import CvxpyProblem
from .relaxations import QCQP, RELAXATIONS, relax
from .result import KernelFactor, PointStatus, Result, Termination
from .solvers import default_solver, get_solver, registry, solve
from .verify import certify, verify
from .estimators import NCutKernelLearning, NPKLKernelLearning, SpectralMetricLearning

__version__ = "0.1.0"
__all__ = ["Certificate", "CvxpyModel", "CvxpyProblem", "FORMULATIONS", "Formulation",
           "KernelFactor", "KernelSDPError", "NCutKernelLearning", "NPKL", "NPKLKernelLearning",
           "PairwiseConstraints", "PointStatus", "QCQP", "RELAXATIONS", "Result",
           "SpectralMetricLearning", "Termination", "certify", "default_solver", "get_solver",
           "knn_laplacian", "load", "registry", "relax", "simple_npkl", "solve", "verify"]
