"""Semi-supervised metric learning with a spectral kernel family (seed 002)."""

from ..data.spectral_basis import (
    SpectralBasis,
    choose_landmarks,
    full_basis,
    landmark_basis,
    median_gamma,
)
from ..estimators.spectral_metric import SpectralMetricLearning
from .baselines import RCA, class_separation

__all__ = [
    "RCA",
    "SpectralBasis",
    "SpectralMetricLearning",
    "choose_landmarks",
    "class_separation",
    "full_basis",
    "landmark_basis",
    "median_gamma",
]
