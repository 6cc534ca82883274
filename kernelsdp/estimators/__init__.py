"""Kernel learning as scikit-learn estimators (fit/transform, get_params/set_params, clone).

- :class:`NPKLKernelLearning` — NPKL / SimpleNPKL / ADMM from pairwise constraints, in
  metric-learn's conventions, with an out-of-sample extension and a certificate;
- :class:`NCutKernelLearning` — N-cut multiple-kernel weights from a list of kernels
  (MKLpy's convention) or from points and a family of base kernels;
- :class:`SpectralMetricLearning` — the spectral kernel re-weighting of seed 002
  (also exported by :mod:`kernelsdp.metric`, beside its baselines).

Each keeps ``certificate_``: the certificate of the solve that produced it.
"""

from .contract import EstimatorParameterError, SolveFailedError
from .ncut_kernel import NCutKernelLearning
from .npkl_kernel import NPKLKernelLearning
from .spectral_metric import SpectralMetricLearning

__all__ = [
    "EstimatorParameterError",
    "NCutKernelLearning",
    "NPKLKernelLearning",
    "SolveFailedError",
    "SpectralMetricLearning",
]
