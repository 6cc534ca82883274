"""N-cut multiple kernel learning (seed 003) as a scikit-learn estimator.

``NCutKernelLearning().fit(KL, y)`` takes MKLpy's convention — a list (or a (d, n, n)
array) of base kernels on the training points and their class labels — or, in a plain
``Pipeline``, points X with a family of base kernels (RBF kernels of widths
``gamma_scales`` × 1/median squared distance).  Training examples for the N-cut ratios
are ``n_examples`` random subsets of ``example_size`` points with their labels (seed 003
§4; examples with a single class are skipped); :class:`~kernelsdp.formulations.NCutMKL`
states the StQP, and the registry's default solver (the exact face enumeration for d ≤ 16)
solves it.  ``certificate_`` is its certificate (kernelsdp.verify.certify).

After ``fit``: ``weights_`` weigh the kernels as given (the learned kernel is
Σ_l weights_[l] K_l; ``alpha_`` are the simplex weights of the rescaled kernels, see
NCutMKL.raw_weights); ``combine_kernels(KL)`` applies them to kernels between new and
training points (MKLpy's name); ``transform(X)`` returns the learned kernel between X and
the training points — a ``SVC(kernel="precomputed")`` input, train and test alike.  With
``normalize=True`` the learned training kernel has mean diagonal 1.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ..errors import InvalidDataError, TooLargeError
from ..formulations.ncut_mkl import NCutMKL
from ..solvers import solver_names
from .contract import DeclaredParameters, solve_certified
from .learned_kernel import median_scale
from .pair_input import array_ndim

#: dense base kernels on points above this many GiB in all are refused
MAX_KERNEL_GIB = 4.0


def is_kernel_list(X) -> bool:
    """MKLpy's input: a list/tuple of kernel matrices, or a 3-D array of them."""
    if isinstance(X, (list, tuple)):  # a list of 2-D kernels, not a list of point rows
        return len(X) > 0 and array_ndim(X[0]) == 2
    return array_ndim(X) == 3


def read_kernels(KL, n_columns: int | None = None) -> list[np.ndarray]:
    Ks = [np.asarray(K, dtype=float) for K in KL]
    if not Ks:
        raise InvalidDataError("the list of kernels is empty.")
    shape = Ks[0].shape
    if any(K.ndim != 2 or K.shape != shape for K in Ks):
        raise InvalidDataError(
            f"every kernel must be a 2-D array of the same shape; got {[K.shape for K in Ks]}."
        )
    if n_columns is None and shape[0] != shape[1]:
        raise InvalidDataError(f"training kernels must be square; got {shape}.")
    if n_columns is not None and shape[1] != n_columns:
        raise InvalidDataError(
            f"kernels must be (n_samples, {n_columns}) against the training points; got {shape}."
        )
    if not all(np.all(np.isfinite(K)) for K in Ks):
        raise InvalidDataError("a kernel contains NaN or infinite entries.")
    return Ks


class NCutKernelLearning(
    DeclaredParameters, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    """Parameters: ``gamma_scales`` (the RBF family on points), ``n_examples`` and
    ``example_size`` (the N-cut training examples), ``relaxation`` (sdp1 or dnn, for a conic
    solver), ``solver`` (None: the registry's default), ``solver_options`` (a dict, checked
    by the solver), ``normalize`` (mean diagonal 1), ``random_state``."""

    _parameter_constraints: dict = {
        "gamma_scales": ["array-like"],
        # the formulation's own declaration (kernelsdp.declarations), not a copy of it
        **{
            k: NCutMKL.inputs()[k].sklearn_constraint()
            for k in ("n_examples", "example_size", "relaxation")
        },
        "solver": [StrOptions(solver_names(NCutMKL)), None],
        "solver_options": [dict, None],
        "normalize": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        gamma_scales=(0.1, 1.0, 10.0),
        n_examples=10,
        example_size=40,
        relaxation="sdp1",
        solver=None,
        solver_options=None,
        normalize=True,
        random_state=0,
    ):
        self.gamma_scales = gamma_scales
        self.n_examples = n_examples
        self.example_size = example_size
        self.relaxation = relaxation
        self.solver = solver
        self.solver_options = solver_options
        self.normalize = normalize
        self.random_state = random_state

    def _base_kernels(self, X, Y) -> list[np.ndarray]:
        gib = 8 * len(self.gammas_) * len(X) * len(Y) / 2**30
        if gib > MAX_KERNEL_GIB:
            raise TooLargeError(
                f"the {len(self.gammas_)} base kernels of {len(X)}×{len(Y)} points "
                f"need {gib:.1f} GiB (limit {MAX_KERNEL_GIB} GiB); subsample the "
                "points or pass the kernels yourself."
            )
        return [rbf_kernel(X, Y, gamma=g) for g in self.gammas_]

    def fit(self, X, y=None):
        """Learn the kernel weights from kernels KL (MKLpy) or points X, and labels y."""
        self._validate_params()
        if is_kernel_list(X):
            Ks = read_kernels(X)
            if y is None:
                raise InvalidDataError(
                    "NCutKernelLearning requires y to be passed, but the target y is None."
                )
            y = np.asarray(y).ravel()
            if y.shape != (len(Ks[0]),):
                raise InvalidDataError(
                    f"y must have one label per point: {len(Ks[0])} points, y of shape {y.shape}."
                )
            self.precomputed_, self.n_features_in_ = True, len(y)
        else:
            X, y = validate_data(self, X, y, ensure_min_samples=2)
            scales = np.asarray(self.gamma_scales, dtype=float).ravel()
            if scales.size == 0 or not np.all(np.isfinite(scales) & (scales > 0)):
                raise InvalidDataError("gamma_scales must be positive numbers.")
            self.gammas_ = scales / median_scale(X)
            self.precomputed_, self.X_fit_ = False, X
            Ks = self._base_kernels(X, X)
        n = len(y)
        if np.unique(y).size < 2:
            raise InvalidDataError(
                "NCutKernelLearning needs labels of at least two classes; got 1 class."
            )
        rng = check_random_state(self.random_state)
        size = min(self.example_size, n)
        examples = [
            (s, y[s]) for s in (rng.choice(n, size, replace=False) for _ in range(self.n_examples))
        ]
        examples = [e for e in examples if np.unique(e[1]).size > 1]
        if len(examples) < 2:
            raise InvalidDataError(
                "fewer than two training examples with two classes could be "
                "drawn; raise example_size or n_examples."
            )
        f = NCutMKL.from_kernels(Ks, examples, relaxation=self.relaxation)
        self.result_, self.certificate_ = solve_certified(
            f, self.solver, self.solver_options, type(self).__name__
        )
        self.alpha_ = np.asarray(self.result_.primal["alpha"], dtype=float)
        w = f.raw_weights(self.alpha_)
        if self.normalize:
            w = w / float(sum(wl * np.mean(np.diag(K)) for wl, K in zip(w, Ks)))  # mean diagonal
        self.weights_ = w
        self.n_train_ = n
        return self

    def combine_kernels(self, KL) -> np.ndarray:
        """Σ_l weights_[l] K_l for kernels between new points and the training points."""
        check_is_fitted(self)
        Ks = read_kernels(KL, self.n_train_)
        if len(Ks) != len(self.weights_):
            raise InvalidDataError(f"expected {len(self.weights_)} kernels, got {len(Ks)}.")
        return sum(w * K for w, K in zip(self.weights_, Ks))

    def transform(self, X) -> np.ndarray:
        """The learned kernel between X and the training points (n_samples × n_train)."""
        check_is_fitted(self)
        if self.precomputed_:
            return self.combine_kernels(X)
        X = validate_data(self, X, reset=False)
        return self.combine_kernels(self._base_kernels(X, self.X_fit_))

    @property
    def _n_features_out(self) -> int:
        return int(self.n_train_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
