"""A scikit-learn estimator for the spectral metric of seed 002.

``SpectralMetricLearning().fit(X, pairs=P)`` learns β from similar pairs (or
``fit(X, y)`` draws them from class labels by the paper protocol, so it works inside a
``Pipeline``); ``transform(X_new)`` embeds points (training or new) with the learned
metric; ``learned_kernel`` / ``pairwise_distance`` / ``similarity`` (between X and Y, new
points included) come from :class:`.learned_kernel.LearnedKernelMixin`
— ``similarity`` is an RBF of the learned distances on the training scale, nonnegative, for
``SpectralClustering(affinity="precomputed")`` (the learned kernel itself is centred and
has negative entries).  Parameters are declared (``_parameter_constraints``), input is
checked by scikit-learn's ``validate_data``, and ``certificate_`` is the certificate of the
QP's solve (kernelsdp.verify.certify).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ..data.pairs import PairwiseConstraints
from ..data.spectral_basis import EIG_RTOL
from ..errors import InvalidDataError
from ..formulations.spectral_metric import SpectralMetric
from ..solvers import solver_names
from .contract import DeclaredParameters, solve_certified
from .learned_kernel import LearnedKernelMixin, median_scale


class SpectralMetricLearning(
    DeclaredParameters, LearnedKernelMixin, TransformerMixin, BaseEstimator
):
    """Parameters: ``gamma`` (RBF width; None = 1/median squared distance),
    ``n_landmarks`` (None = the full version), ``n_neighbors`` (landmarks per point),
    ``reg`` (local Gram regulariser), ``nonneg`` (β ≥ 0), ``solver``
    (``spectral-metric-closed-form``, alias ``closed-form``, or a conic solver name),
    ``eig_rtol`` (eigenvalues kept above eig_rtol·λ₁), ``random_state``."""

    _parameter_constraints: dict = {
        # the formulation's own declaration (kernelsdp.declarations), not a copy of it
        **{k: SpectralMetric.inputs()[k].sklearn_constraint() for k in ("gamma", "n_landmarks")},
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "reg": [Interval(Real, 0, None, closed="left")],
        "nonneg": ["boolean"],
        "solver": [StrOptions(solver_names(SpectralMetric))],
        "eig_rtol": [Interval(Real, 0, 1, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        gamma=None,
        n_landmarks=None,
        n_neighbors=10,
        reg=1e-3,
        nonneg=False,
        solver="spectral-metric-closed-form",
        eig_rtol=EIG_RTOL,
        random_state=0,
    ):
        self.gamma = gamma
        self.eig_rtol = eig_rtol
        self.n_landmarks = n_landmarks
        self.n_neighbors = n_neighbors
        self.reg = reg
        self.nonneg = nonneg
        self.solver = solver
        self.random_state = random_state

    def formulation(self, X, pairs=None, labels=None, y=None) -> SpectralMetric:
        """Build the basis and the QP; pairs come from ``pairs``/``labels`` or, failing
        that, are drawn from class labels ``y`` by the paper protocol (must-links)."""
        if pairs is None:
            if y is None:
                raise InvalidDataError(
                    "SpectralMetricLearning requires y to be passed, but the "
                    "target y is None (or give similar pairs, pairs=...)."
                )
            P = PairwiseConstraints.from_labels(np.asarray(y), seed=self._seed())
            pairs, labels = P.as_array(), P.t
        f = SpectralMetric.from_points(
            X,
            pairs,
            labels,
            gamma=self.gamma,
            n_landmarks=self.n_landmarks,
            n_neighbors=self.n_neighbors,
            reg=self.reg,
            eig_rtol=self.eig_rtol,
            nonneg=self.nonneg,
            seed=self._seed(),
        )
        self.basis_ = f.spectral
        return f

    def _seed(self) -> int:
        """An int seed for the pair protocol and the landmarks, from ``random_state``."""
        r = self.random_state
        if isinstance(r, (int, np.integer)):
            return int(r)
        return int(check_random_state(r).randint(np.iinfo(np.int32).max))

    def fit(self, X, y=None, pairs=None, labels=None):
        self._validate_params()
        if pairs is None and y is not None:
            X, y = validate_data(self, X, y, ensure_min_samples=2)
        else:
            X = validate_data(self, X, ensure_min_samples=2)
        f = self.formulation(X, pairs, labels, y)
        self.result_, self.certificate_ = solve_certified(f, self.solver, None, type(self).__name__)
        self.beta_ = np.asarray(self.result_.primal["beta"], dtype=float)
        self.objective_ = self.result_.objective
        self.embedding_ = f.basis * self.beta_[None]
        self.similarity_scale_ = median_scale(self.embedding_)
        return self

    def transform(self, X):
        check_is_fitted(self, "beta_")
        X = validate_data(self, X, reset=False)
        return self.basis_.coordinates(X) * self.beta_[None]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
