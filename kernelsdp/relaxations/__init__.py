"""Relaxations: a nonconvex quadratic problem in x goes in, a lifted convex CVXPY model
comes out, with the map back to x (rounding) and a report of how tight it was.
"""

from .lifting import Relaxation, lifted, shor, simplex_dnn
from .qcqp import QCQP, Quadratic
from .rounding import SCHEMES, best_rounding, proposals, to_simplex
from .tightness import TightnessReport, numerical_rank, tightness

__all__ = ["QCQP", "Quadratic", "Relaxation", "SCHEMES", "TightnessReport",
           "best_rounding", "lifted", "numerical_rank", "proposals", "shor", "simplex_dnn",
           "tightness", "to_simplex"]
