"""NPKL, SimpleNPKL and low-rank NPKL by ADMM as one scikit-learn estimator.

``NPKLKernelLearning`` learns a non-parametric kernel K ⪰ 0 from pairwise constraints
(seed 000 eq. 4; the Frobenius capacity is SimpleNPKL, seed 000 eqs. 5–6 and 9; ADMM is
seed 001): min tr(LK) + C Σ ℓ(T_ij K_ij) [+ capacity ≤ B] with L the normalised Laplacian
of the points' mutual k-NN graph (seed 000's; ``graph="symmetric"``: the k-NN graph).  It
reads metric-learn's conventions (:mod:`.pair_input`): index pairs with
``preprocessor=points``, an (n_pairs, 2, d) array, y = ±1 — or points with class labels,
from which pairs are drawn by the paper protocol (then it is a plain transformer).

After ``fit``: ``transform(X)`` returns the factor rows Φ (K = ΦΦᵀ) — the training rows for
training points, the out-of-sample extension (:mod:`.out_of_sample`) for new ones;
``certificate_`` is the certificate of the solve (kernelsdp.verify.certify); ``result_`` the
solver's Result.  With ``normalize=True`` (default) Φ is rescaled so that K has mean
diagonal 1 (tr K = n), so that an SVC's C keeps its usual meaning: the capacity B fixes K's
scale (with the linear loss K* ∝ √B; at B = 1, tr KK ≤ 1 makes the entries O(1/n)).
Measured on iris, half the points for training (stratified splits 0–2), C = 1:
SVC(kernel="precomputed") at its default C scores 0.920 on the raw kernel and 0.951
rescaled (mean of the three; split 2 alone: 0.853 and 0.933).  ``scale_`` is the mean
diagonal of the K that was solved for and certified (K_solved = scale_ · ΦΦᵀ).

Pair scoring, on pair input: ``pair_score`` = k(a, b) (higher is more similar),
``pair_distance``, ``decision_function`` = k(a, b) − ``threshold_`` and ``predict`` = its sign,
with the threshold calibrated for accuracy on the training pairs (``calibrate_threshold``
re-calibrates on others).  ``score`` is pair accuracy — on pairs with ±1 labels, or on points
with class labels (over the pairs those labels imply) — so ``cross_val_score`` and
``GridSearchCV`` over C and B work on pairs and on points alike.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from ..data.graph import KNN_GRAPHS, knn_graph, normalized_laplacian
from ..data.pairs import PairwiseConstraints
from ..formulations.npkl import NPKL
from ..solvers import solver_names
from .contract import DeclaredParameters, solve_certified
from .learned_kernel import LearnedKernelMixin, median_scale
from .out_of_sample import EXTENSIONS, Extension
from .pair_input import is_pair_input, pair_labels, read_pairs

#: ``score`` on points with class labels uses every pair up to this many, else a sample
SCORE_MAX_PAIRS = 20000
GRAPHS = KNN_GRAPHS  # the graphs NPKLKernelLearning(graph=...) takes (data.graph)


def best_threshold(s: np.ndarray, t: np.ndarray) -> float:
    """The threshold θ maximising the accuracy of sign(s − θ) against t ∈ {−1, +1}."""
    order = np.argsort(s, kind="stable")
    s, t = s[order], t[order]
    m = s.size
    neg_below = np.concatenate([[0], np.cumsum(t < 0)])  # −1 labels among s[:k]
    pos_from = np.concatenate([np.cumsum((t > 0)[::-1])[::-1], [0]])  # +1 labels among s[k:]
    valid = np.ones(m + 1, dtype=bool)
    valid[1:m] = s[1:] > s[:-1]  # a threshold between two equal scores does not exist
    k = int(np.argmax(np.where(valid, neg_below + pos_from, -1)))
    if k == 0:
        return float(s[0]) - 1.0
    if k == m:
        return float(s[-1]) + 1.0
    return float((s[k - 1] + s[k]) / 2)


def _on_pairs(est) -> bool:
    return est.preprocessor is not None or getattr(est, "fitted_on_pairs_", False)


class NPKLKernelLearning(DeclaredParameters, LearnedKernelMixin, TransformerMixin, BaseEstimator):
    """Parameters: ``loss`` (seed 000/001 losses), ``capacity`` (none, trace: tr K ≤ B,
    frobenius: tr KK ≤ B — SimpleNPKL), ``C`` (loss weight), ``B`` (capacity bound),
    ``n_neighbors`` (k of the k-NN graph and of the harmonic extension), ``graph`` (mutual:
    seed 000's graph, sparse enough to leave points isolated — on ionosphere at k = 10, 142
    components; symmetric: every point keeps its k neighbours, connected on 9 of the 10
    bundled sets at k = 5 (soybean: 3 pieces) and on all at k = 10 — a transductive kernel
    reaches an unlabelled point only through the graph), ``solver``
    (None: the registry's default for the problem — the closed form for linear/frobenius,
    ADMM for trace), ``solver_options`` (a dict, validated by the solver), ``ratio`` (pair
    protocol on class labels: stop at ratio·n must-link components), ``extension``
    (harmonic or nystrom), ``normalize`` (mean diagonal 1), ``preprocessor`` (the points
    that index pairs refer to), ``random_state`` (seed of the pair protocol)."""

    _parameter_constraints: dict = {
        # the formulation's own declaration (kernelsdp.declarations), not a copy of it
        **{k: NPKL.inputs()[k].sklearn_constraint() for k in ("loss", "capacity", "C", "B")},
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "graph": [StrOptions(set(GRAPHS))],
        "solver": [StrOptions(solver_names(NPKL)), None],
        "solver_options": [dict, None],
        "ratio": [Interval(Real, 0, 1, closed="right")],
        "extension": [StrOptions(set(EXTENSIONS))],
        "normalize": ["boolean"],
        "preprocessor": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        loss="linear",
        capacity="frobenius",
        C=1.0,
        B=1.0,
        n_neighbors=5,
        graph="mutual",
        solver=None,
        solver_options=None,
        ratio=0.7,
        extension="harmonic",
        normalize=True,
        preprocessor=None,
        random_state=0,
    ):
        self.loss = loss
        self.capacity = capacity
        self.C = C
        self.B = B
        self.n_neighbors = n_neighbors
        self.graph = graph
        self.solver = solver
        self.solver_options = solver_options
        self.ratio = ratio
        self.extension = extension
        self.normalize = normalize
        self.preprocessor = preprocessor
        self.random_state = random_state

    # ----- input ------------------------------------------------------------------------
    def _training_data(self, X, y) -> tuple[np.ndarray, PairwiseConstraints]:
        if is_pair_input(X, self.preprocessor):
            points, idx = read_pairs(X, self.preprocessor)
            t = pair_labels(y, len(idx))
            self.n_features_in_ = points.shape[1]
            self.fitted_on_pairs_ = True
            return points, PairwiseConstraints.from_arrays(idx, t, len(points))
        points, y = validate_data(self, X, y, ensure_min_samples=2, y_numeric=False)
        self.fitted_on_pairs_ = False
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        pairs = PairwiseConstraints.from_labels(y, ratio=self.ratio, seed=seed)
        if pairs.m == 0:  # every point its own class: the protocol stops before any draw
            pairs = PairwiseConstraints.sample(y, min(len(y) * (len(y) - 1) // 2, len(y)), seed)
        return points, pairs

    def _pair_rows(self, pairs) -> tuple[np.ndarray, np.ndarray]:
        """Φ of the first and second points of each pair."""
        check_is_fitted(self)
        points, idx = read_pairs(pairs, self.preprocessor)
        Phi = self.transform(points)
        return Phi[idx[:, 0]], Phi[idx[:, 1]]

    # ----- fit --------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Learn K from pairs (X = pairs, y = ±1) or from points with class labels."""
        self._validate_params()
        points, pairs = self._training_data(X, y)
        S = knn_graph(points, self.n_neighbors, self.graph)
        f = NPKL(
            L=normalized_laplacian(S),
            pairs=pairs,
            loss=self.loss,
            capacity=self.capacity,
            C=self.C,
            B=self.B,
        )
        self.result_, self.certificate_ = solve_certified(
            f, self.solver, self.solver_options, type(self).__name__
        )
        U = self.result_.kernel.U
        self.scale_ = float(np.sum(U * U)) / len(points)
        if self.normalize and self.scale_ > 0:
            U = U / np.sqrt(self.scale_)
        self.embedding_ = U
        self.extension_ = Extension(
            self.extension, points, U, np.asarray(S.sum(axis=1)).ravel(), self.n_neighbors
        )
        self.similarity_scale_ = median_scale(U)
        self.pairs_ = pairs
        zi, zj = U[pairs.i], U[pairs.j]
        self.threshold_ = best_threshold(np.einsum("ij,ij->i", zi, zj), pairs.t)
        return self

    def transform(self, X):
        """Φ(X), K = ΦΦᵀ: training rows for training points, the extension for new ones."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return self.extension_(X)

    # ----- pairs ------------------------------------------------------------------------
    def pair_score(self, pairs) -> np.ndarray:
        """k(a, b) for each pair (higher: more similar)."""
        A, B = self._pair_rows(pairs)
        return np.einsum("ij,ij->i", A, B)

    def pair_distance(self, pairs) -> np.ndarray:
        """k(a, a) + k(b, b) − 2k(a, b) for each pair."""
        A, B = self._pair_rows(pairs)
        return np.sum((A - B) ** 2, axis=1)

    @available_if(_on_pairs)
    def decision_function(self, pairs) -> np.ndarray:
        """k(a, b) − threshold_ (positive: similar)."""
        return self.pair_score(pairs) - self.threshold_

    @available_if(_on_pairs)
    def predict(self, pairs) -> np.ndarray:
        """+1 (similar) or −1 (dissimilar) for each pair."""
        return np.where(self.decision_function(pairs) >= 0, 1, -1)

    def calibrate_threshold(self, pairs, y):
        """Set ``threshold_`` to the most accurate one on these labelled pairs."""
        s = self.pair_score(pairs)
        self.threshold_ = best_threshold(s, pair_labels(y, len(s)))
        return self

    def score(self, X, y):
        """Pair accuracy: on pairs with ±1 labels, or on points with class labels (over
        all the pairs of points, or a sample of ``SCORE_MAX_PAIRS``)."""
        check_is_fitted(self)
        if is_pair_input(X, self.preprocessor):
            s = self.pair_score(X)
            return float(np.mean(np.where(s >= self.threshold_, 1, -1) == pair_labels(y, len(s))))
        Phi = self.transform(X)
        y = np.asarray(y)
        n = len(y)
        if n * (n - 1) // 2 <= SCORE_MAX_PAIRS:
            i, j = np.triu_indices(n, 1)
        else:
            rng = check_random_state(self.random_state)
            i, j = rng.randint(0, n, (2, SCORE_MAX_PAIRS))
            i, j = i[i != j], j[i != j]
        same = y[i] == y[j]
        s = np.einsum("ij,ij->i", Phi[i], Phi[j])
        return float(np.mean((s >= self.threshold_) == same))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.three_d_array = True
        return tags
