"""Relaxations: a nonconvex quadratic problem in x goes in, a lifted convex CVXPY model
comes out, with the map back to x (rounding) and a report of how tight it was; chosen by
name through :mod:`.transform` (``relax(qcqp, "dnn")``, ``RELAXATIONS``).
"""

from .lifting import Relaxation, lifted, shor, simplex_dnn
from .qcqp import QCQP, Quadratic
from .rounding import SCHEMES, best_rounding, proposals, to_simplex
from .tightness import TightnessReport, numerical_rank, tightness
from .transform import DNN, RELAXATIONS, SDP1, Lifting, Shor, applicable, relax

__all__ = ["DNN", "Lifting", "QCQP", "Quadratic", "RELAXATIONS", "Relaxation", "SCHEMES", "SDP1",
           "Shor", "TightnessReport", "applicable", "best_rounding", "lifted", "numerical_rank",
           "proposals", "relax", "shor", "simplex_dnn", "tightness", "to_simplex"]
