"""What kernelsdp knows of each CVXPY conic solver, declared once: its kind, its own names
for the common options (time limit, iteration limit, tolerances), the accuracy kernelsdp
asks of it, and whether it is an extra of this package.  It sits beside
:func:`.canonical.solve_canonical`, the one path every generic solver runs by, so that
everything that solves — the registered solvers (:mod:`kernelsdp.solvers.conic`) and the
relaxations (:meth:`kernelsdp.relaxations.Relaxation.solve`) — reads the same table without
importing upward.  Probing whether an installed extra can run (MOSEK's licence) is the
solvers' business (:mod:`kernelsdp.solvers.conic`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InvalidParameterError


@dataclass(frozen=True)
class Backend:
    """What kernelsdp knows of one CVXPY conic solver, declared once."""

    #: ``interior-point`` or ``first-order``: its place in the preference order, its
    #: tolerances and its memory formula
    kind: str = "interior-point"
    #: its own names for the common options (None / empty: kernelsdp knows none)
    time_limit: str | None = None
    max_iter: str | None = None
    tol: tuple[str, ...] = ()
    #: the keyword under which it takes its parameters as one dict (MOSEK's mosek_params)
    params_keyword: str | None = None
    #: the accuracy kernelsdp asks of it (CVXPY keyword names)
    defaults: dict = field(default_factory=dict)
    #: the install hint of an extra of this package (listed even when not installed)
    extra: str | None = None


MOSEK_TOLERANCES = (
    "MSK_DPAR_INTPNT_CO_TOL_REL_GAP",
    "MSK_DPAR_INTPNT_CO_TOL_PFEAS",
    "MSK_DPAR_INTPNT_CO_TOL_DFEAS",
)
BACKENDS: dict[str, Backend] = {
    "CLARABEL": Backend(
        time_limit="time_limit", max_iter="max_iter", tol=("tol_gap_abs", "tol_gap_rel", "tol_feas")
    ),
    # SCS reaches a few digits on SDPs at eps 1e-7 (see the tolerances module)
    "SCS": Backend(
        kind="first-order",
        time_limit="time_limit_secs",
        max_iter="max_iters",
        tol=("eps_abs", "eps_rel"),
        defaults={"eps_abs": 1e-7, "eps_rel": 1e-7, "max_iters": 100_000},
    ),
    "MOSEK": Backend(
        time_limit="MSK_DPAR_OPTIMIZER_MAX_TIME",
        max_iter="MSK_IPAR_INTPNT_MAX_ITERATIONS",
        tol=MOSEK_TOLERANCES,
        params_keyword="mosek_params",
        extra="pip install 'kernelsdp[mosek]' (and a MOSEK licence)",
    ),
}
#: a conic solver CVXPY has that kernelsdp declares nothing of
UNDECLARED = Backend()


def backend(cvxpy_name: str) -> Backend:
    return BACKENDS.get(cvxpy_name, UNDECLARED)


def option_names(cvxpy_name: str, time_limit=None, max_iter=None, tol=None) -> dict:
    """time_limit, max_iter and tol under the solver's own option names, from its
    :class:`Backend` declaration (an option this solver has no name for is refused, not
    dropped)."""
    b = backend(cvxpy_name)
    out: dict = {}
    for value, names, cast in (
        (time_limit, b.time_limit, float),
        (max_iter, b.max_iter, int),
        (tol, b.tol, float),
    ):
        if value is None:
            continue
        names = (names,) if isinstance(names, str) else names or ()
        if not names:
            raise InvalidParameterError(
                f"kernelsdp does not know how to pass this option to "
                f"{cvxpy_name.lower()}; use solver_options."
            )
        out.update({n: cast(value) for n in names})
    if b.params_keyword:
        return {b.params_keyword: out} if out else {}
    return out
