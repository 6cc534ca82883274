"""Reproductions of the seed papers' experiments, one module per paper (docs/reproductions.md).

Each module's ``main(quick=False) -> int`` prints our numbers beside the published ones
with the protocol written down.  ``PAPERS`` is the ordered registry used by
``kernelsdp reproduce PAPER``.
"""

from __future__ import annotations


def _simplenpkl(quick: bool = False) -> int:
    from .simplenpkl_icml2009 import main

    return main(quick=quick)


def _ncut_kernels(quick: bool = False) -> int:
    from .ncut_kernels_cvpr2010 import main

    return main(quick=quick)


def _spectral_metric(quick: bool = False) -> int:
    from .spectral_metric_ijcai2007 import main

    return main(quick=quick)


def _tla(quick: bool = False) -> int:
    from .tla_icmla2009 import main

    return main(quick=quick)


def _flexible_npkl(quick: bool = False) -> int:
    from .flexible_npkl_admm import main

    return main(quick=quick)


PAPERS = {
    "simplenpkl": _simplenpkl,
    "flexible-npkl": _flexible_npkl,
    "ncut-kernels": _ncut_kernels,
    "spectral-metric": _spectral_metric,
    "tla": _tla,
}
