"""The shrunk re-solve of :mod:`.perturbed` by CSDP, where CSDP is installed and the
problem is in SDPA's own form.

The re-solve's point is never trusted: :mod:`.ends` proves whatever it returns, so any
solver may find it, and the cheapest one that finds it should.  Clarabel factors a dense
(side(side+1)/2)² scaling block per PSD cone at every iteration; CSDP (Borchers 1999)
works on the m × m Schur complement of SDPA's form instead.  On SDPLIB the shrunk
problem's re-solve took (Clarabel → CSDP, with the same ε and accuracy, 2026-11-27): truss8
31.8 → 1.7 s, qap8 12.8 → 1.1 s, control5 6.5 → 1.6 s, control4 2.2 → 0.71 s, control2 0.25 →
0.12 s — and every end that CSDP's point proved was as tight as Clarabel's or tighter
(docs/measurements.md, the sixth pass of the certificate's cost).
CSDP runs with its objective unperturbed (``perturbobj=0``; its default perturbs C for a
stable start, and the dual point it returns then proved truss5's lower end at −132.64496
where the unperturbed one proves −132.63609, the optimum −132.6357).  Below about 40,000
entries in Clarabel's scaling blocks CSDP's start (a process, two files) costs more than
Clarabel's whole re-solve (truss6 0.14 → 0.27 s, control1 0.03 → 0.04 s).

Only forms whose blocks are all PSD and ℝ₊ go to CSDP: equality rows would be written as
± pairs of ℝ₊ rows (:func:`.sdpa_layout.sdpa_of_form`), which have no interior, and a
second-order cone as a tree of arrow blocks with new variables; those stay with Clarabel.
"""

from __future__ import annotations

import dataclasses
import shutil
import time

import numpy as np

from .canonical import CanonicalForm

#: the re-solve runs CSDP from this many entries in Clarabel's PSD scaling blocks,
#: Σ (side(side+1)/2)² — between SDPLIB's truss6 (5,401: Clarabel faster) and control2
#: (47,125: CSDP 2× faster)
CSDP_FROM_ENTRIES = 40_000
#: the program
CSDP = "csdp"
#: CSDP's dense m × m Schur complement and its work copy (16·m² bytes) must fit in this,
#: the re-solve's memory (:data:`.perturbed.RESOLVE_MEMORY_BYTES`): m ≤ 11,585
CSDP_MEMORY_BYTES = 2 * 2**30


def scaling_entries(form: CanonicalForm) -> int:
    """Σ over the PSD blocks of (side(side+1)/2)²: the entries of Clarabel's dense scaling
    blocks, what one of its iterations factors."""
    return sum((b.side * (b.side + 1) // 2) ** 2 for b in form.blocks if b.kind == "psd")


def csdp_resolves(form: CanonicalForm) -> bool:
    """Does the shrunk re-solve of this form run CSDP? (installed, PSD and ℝ₊ blocks only,
    a linear objective, at least :data:`CSDP_FROM_ENTRIES` scaling entries and a Schur
    complement within :data:`CSDP_MEMORY_BYTES`)."""
    return (
        shutil.which(CSDP) is not None
        and 16 * form.c.size**2 <= CSDP_MEMORY_BYTES
        and (form.P is None or not form.P.nnz)
        and all(b.kind in ("psd", "nonneg") for b in form.blocks)
        and scaling_entries(form) >= CSDP_FROM_ENTRIES
    )


def shrink_and_solve_csdp(
    form: CanonicalForm,
    eps_primal: float,
    eps_dual: float,
    accuracy: float,
    time_limit: float | None = None,
    max_iter: int | None = None,
):
    """:func:`.perturbed.shrink_and_solve`'s solve by CSDP on the (normalised) ``form``:
    min (c − ε_d·Aᵀe*)ᵀx s.t. Ax + b − ε_p·e ∈ K, written as an SDPA problem; its x, and
    y = w + ε_d·e* from CSDP's dual blocks w; None when CSDP returns no point."""
    from ..solvers.external_sdp import ExternalOptions, ExternalSDPSolver
    from .perturbed import Perturbed, cone_identity
    from .sdpa_layout import sdpa_of_form

    e, e_dual = cone_identity(form), cone_identity(form, dual=True)
    shrunk = dataclasses.replace(
        form, b=form.b - eps_primal * e, c=form.c - eps_dual * (form.A.T @ e_dual), d=0.0
    )
    t0 = time.perf_counter()
    run = ExternalSDPSolver(CSDP).execute(
        sdpa_of_form(shrunk, "shrunk"),
        ExternalOptions(
            tol=accuracy, time_limit=time_limit, max_iter=max_iter, perturb_objective=False
        ),
    )
    if run.x is None or run.y is None:
        return None
    x, w = np.asarray(run.x, float), np.asarray(run.y, float)
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(w))):
        return None
    return Perturbed(
        x,
        w + eps_dual * e_dual,
        str(run.status),
        eps_primal,
        eps_dual,
        time.perf_counter() - t0,
        solver="CSDP",
    )
