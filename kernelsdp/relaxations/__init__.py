"""Relaxations: a nonconvex QCQP goes in, a lifted convex CVXPY model comes out, with a
proven bound, the QCQP's multipliers, recovered points and a tightness report.

``relax(q, "shor+rlt").solve("clarabel")`` → ``.bound`` (proven), ``.recover()``; the
standard hierarchy is registered by name in ``RELAXATIONS`` (shor, rlt, shor+rlt, dnn,
sdp1, moment2), a new one joins it with one line; see docs/relaxations.md.
"""

from .base import Lifting
from .boundedness import feasible_set_bounded, implied_box
from .dnn import DNN
from .files import read_boxqp, read_npz, read_qcqp
from .lifting import Relaxation
from .moment import MOMENT_MAX_D, Moment2, moment2
from .qcqp import QCQP, Quadratic, from_cvxpy
from .recovery import FEASIBILITY_TOL, RecoveredPoint, Recovery, recover
from .rlt import RLT
from .rounding import project_simplex, proposals, repair, to_simplex
from .sdp1 import SDP1, simplex_dnn
from .shor import Shor
from .shor_family import lifted, shor_family
from .shor_rlt import ShorRLT
from .tightness import TightnessReport, numerical_rank, tightness
from .transform import RELAXATIONS, Applicability, applicable, relax

__all__ = [
    "Applicability",
    "DNN",
    "FEASIBILITY_TOL",
    "Lifting",
    "MOMENT_MAX_D",
    "Moment2",
    "QCQP",
    "Quadratic",
    "RELAXATIONS",
    "RLT",
    "RecoveredPoint",
    "Recovery",
    "Relaxation",
    "SDP1",
    "Shor",
    "ShorRLT",
    "TightnessReport",
    "applicable",
    "feasible_set_bounded",
    "from_cvxpy",
    "implied_box",
    "lifted",
    "moment2",
    "numerical_rank",
    "project_simplex",
    "proposals",
    "read_boxqp",
    "read_npz",
    "read_qcqp",
    "recover",
    "relax",
    "repair",
    "shor_family",
    "simplex_dnn",
    "tightness",
    "to_simplex",
]
