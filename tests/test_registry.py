"""The solver registry is derived from declarations (issue #28): one ordered list of solver
instances; what each solves is its own declaration, by exact class; a solver refuses a
problem it does not accept; the base class enforces the contract; and a formulation and a
solver registered from outside the package get ``kernelsdp solvers``, ``solve``, ``verify``
and sweeps with no edit to the package."""

from __future__ import annotations

import json
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
import pytest

from kernelsdp.cli import main
from kernelsdp.declarations import option
from kernelsdp.errors import UnsupportedProblemError
from kernelsdp.formulations import (
    FORMULATIONS,
    LMTL,
    NCTLA,
    CvxpyModel,
    Formulation,
    FormulationEntry,
)
from kernelsdp.result import KernelFactor, PointStatus, Result, Termination
from kernelsdp.solvers import SOLVERS, Solver, register, solvers_for
from kernelsdp.solvers.tla_reduced import SchurReduced


@dataclass
class TopAlignment(Formulation):
    """max ⟨C, K⟩ s.t. K ⪰ 0, tr K ≤ 1 (its optimum is λ_max(C)₊): a formulation declared
    in this file only."""

    C: np.ndarray
    name = "top-alignment"
    maximize = True
    NPZ_KEYS = {"C": "(n, n) symmetric matrix"}

    @property
    def n(self):
        return len(self.C)

    def build(self):
        K = cp.Variable(self.C.shape, symmetric=True)
        return CvxpyModel(
            cp.Problem(cp.Maximize(cp.trace(self.C @ K)), [K >> 0, cp.trace(K) <= 1]), {"K": K}
        )

    def from_cvxpy(self, model):
        return {"kernel": KernelFactor.from_dense(model.variables["K"].value)}

    @classmethod
    def from_npz(cls, arrays, **_):
        return cls(np.asarray(arrays["C"], dtype=float))


class TopEigenvector(Solver):
    """The exact solver of TopAlignment: the top eigenvector of C."""

    name, kind, ACCEPTS = "top-eigenvector", "exact", {TopAlignment: {}}
    objective_tol = certificate_tol = 1e-7

    def memory_bytes(self, f, options):
        return 8 * 3 * f.n * f.n  # eigh: C, its eigenvectors, workspace

    def run(self, f, options):
        w, V = np.linalg.eigh(f.C)
        U = V[:, -1:] * (w[-1] > 0)
        return Result(
            f.name,
            self.name,
            Termination.OPTIMAL,
            PointStatus.FEASIBLE_POINT,
            objective=float(max(w[-1], 0.0)),
            kernel=KernelFactor(U),
        )


@pytest.fixture
def toy(tmp_path):
    """The two registry lines, undone afterwards; a problem file for the CLI."""
    before = (dict(FORMULATIONS), list(SOLVERS))
    FORMULATIONS["top-alignment"] = FormulationEntry(TopAlignment, {}, "max <C, K>, K psd")
    register(TopEigenvector())
    C = np.cov(np.random.default_rng(0).standard_normal((5, 40)))
    np.savez(tmp_path / "C.npz", C=C)
    yield tmp_path / "C.npz"
    FORMULATIONS.clear()
    FORMULATIONS.update(before[0])
    SOLVERS[:] = before[1]


def test_a_formulation_and_a_solver_registered_here_get_the_cli(toy, capsys, tmp_path):
    assert [s.name for s in solvers_for(TopAlignment)][:2] == ["top-eigenvector", "clarabel"]
    assert main(["solvers", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    listed = [r["solver"] for r in rows if r["formulation"] == "top-alignment"]
    assert listed == [s.name for s in solvers_for(TopAlignment)]
    assert main(["solvers"]) == 0 and "top-alignment" in capsys.readouterr().out
    assert main(["solve", "top-alignment", "--problem", str(toy), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["solver"] == "top-eigenvector"  # the exact solver is the default
    assert np.isclose(d["objective"], np.linalg.eigvalsh(np.load(toy)["C"])[-1])
    code = main(
        [
            "verify",
            "top-alignment",
            "--problem",
            str(toy),
            "--solvers",
            "top-eigenvector,clarabel",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code in (0, 1) and [s["solver"] for s in out["solvers"]] == [
        "top-eigenvector",
        "clarabel",
    ]
    from kernelsdp.runs import ResultsStore
    from kernelsdp.sweep import parse_spec, run_sweep

    spec = parse_spec(
        {
            "study": "toy",
            "grid": {
                "formulation": "top-alignment",
                "solver": ["top-eigenvector", "clarabel"],
                "problem": str(toy),
            },
        }
    )
    records = run_sweep(spec, store=ResultsStore(tmp_path / "r.sqlite")).records
    assert [r["objective"] for r in records] == pytest.approx([d["objective"]] * 2, rel=1e-6)


def test_solvers_are_matched_by_exact_class():
    """LMTL subclasses NC-TLA but is another problem: schur-reduced is NC-TLA's only."""
    assert "schur-reduced" in [s.name for s in solvers_for(NCTLA)]
    assert "schur-reduced" not in [s.name for s in solvers_for(LMTL)]

    @dataclass
    class Derived(TopAlignment):
        name = "derived"

    toy = TopEigenvector()
    assert toy.accepted(TopAlignment) == {} and toy.accepted(Derived) is None
    generic = [s.name for s in solvers_for(TopAlignment) if s.accepts_every_formulation]
    assert generic and [s.name for s in solvers_for(Derived)] == generic


def test_a_solver_refuses_a_problem_its_declaration_does_not_accept():
    """SchurReduced().solve on LMTL returned OPTIMAL 10.95 where the optimum is 9.23."""
    from kernelsdp.data.datasets import hyperplane_transformed

    X, y = hyperplane_transformed(30, "logarithmic", seed=0)
    f = LMTL.from_data(X, y, J=2)
    with pytest.raises(UnsupportedProblemError, match="schur-reduced"):
        SchurReduced().solve(f)


def test_the_base_class_enforces_the_contract():
    with pytest.raises(TypeError, match="memory_bytes"):

        class NoMemory(Solver):
            name, kind = "no-memory", "exact"

            def run(self, f, options):
                return None

    @dataclass(frozen=True)
    class OnlyTol:
        tol: float = option(1e-6, low=0.0, open_low=True, help="tolerance")

    with pytest.raises(TypeError, match="time_limit, max_iter"):

        class NoLimits(Solver):
            name, kind, Options = "no-limits", "iterative", OnlyTol

            def memory_bytes(self, f, options):
                return 0

            def run(self, f, options):
                return None

    with pytest.raises(TypeError, match="kind"):

        class BadKind(Solver):
            name, kind = "bad-kind", "heuristic"

            def memory_bytes(self, f, options):
                return 0

            def run(self, f, options):
                return None

    with pytest.raises(TypeError, match="certificate_tol"):

        class BadTolerance(Solver):
            name, kind, certificate_tol = "bad-tol", "exact", 0.0

            def memory_bytes(self, f, options):
                return 0

            def run(self, f, options):
                return None

    class Nameless(TopEigenvector):
        name = ""

    with pytest.raises(TypeError, match="name"):
        register(Nameless())
    assert all(s.name for s in SOLVERS)
