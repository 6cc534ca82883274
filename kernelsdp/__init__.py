"""kernelsdp: convex relaxations for kernel learning.

Declare a problem once (a formulation: validated data + one CVXPY model), solve it with
a generic conic solver through CVXPY or a registered fast solver, and cross-check the
answers by certificate with :func:`kernelsdp.verify.verify`.

The names below are imported on first use (PEP 562), so that ``import kernelsdp`` — and
``kernelsdp --help`` — does not load CVXPY until something needs it.
"""

from __future__ import annotations

import importlib
import sys
import types
from importlib.metadata import PackageNotFoundError, version

try:  # one version, written once: pyproject.toml's, as installed
    __version__ = version("kernelsdp")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"

#: public name → the module that defines it
_EXPORTS = {
    "Certificate": ".certificate",
    "certify_conic": ".certificate",
    "PairwiseConstraints": ".data",
    "knn_laplacian": ".data",
    "load": ".data",
    "KernelSDPError": ".errors",
    "FORMULATIONS": ".formulations",
    "NPKL": ".formulations",
    "CvxpyModel": ".formulations",
    "Formulation": ".formulations",
    "simple_npkl": ".formulations",
    "CvxpyProblem": ".formulations.cvxpy_problem",
    "QCQP": ".relaxations",
    "RELAXATIONS": ".relaxations",
    "relax": ".relaxations",
    "KernelFactor": ".result",
    "PointStatus": ".result",
    "Result": ".result",
    "Termination": ".result",
    "default_solver": ".solvers",
    "get_solver": ".solvers",
    "registry": ".solvers",
    "solve": ".solvers",
    "certify": ".verify",
    "verify": ".verify",
    "NCutKernelLearning": ".estimators",
    "NPKLKernelLearning": ".estimators",
    "SpectralMetricLearning": ".estimators",
}
__all__ = sorted(_EXPORTS) + ["__version__"]
#: exported functions named like a sub-package: ``kernelsdp.verify`` is the function, as it
#: was when this module imported everything, even after ``kernelsdp.verify`` (the package)
#: has been imported (the import system would otherwise set the attribute to the package)
_SHADOWED = ("verify",)


class _Package(types.ModuleType):
    def __setattr__(self, name: str, value) -> None:
        if name in _SHADOWED and isinstance(value, types.ModuleType):
            return  # the sub-package stays in sys.modules; the name stays the function
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kernelsdp' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
