"""Semi-supervised metric learning with a spectral kernel family (seed 002)."""

from .baselines import RCA, class_separation
from ..estimators.spectral_metric import SpectralMetricLearning
from ..data.spectral_basis import (SpectralBasis, choose_landmarks, full_basis, landmark_basis,
                                   median_gamma)

__all__ = ["RCA", "SpectralBasis", "SpectralMetricLearning", "choose_landmarks",
           "class_separation", "full_basis", "landmark_basis", "median_gamma"]
