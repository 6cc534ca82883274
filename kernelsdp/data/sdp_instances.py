"""SDP instances with known answers, generated here (no third-party files): the conformance
suite of the certificate layer and the benchmark's instances.

- Lovász theta of the odd cycle C_n:  ϑ(C_n) = n·cos(π/n) / (1 + cos(π/n))  (Lovász 1979),
  as max ⟨J, X⟩ s.t. tr X = 1, X_ij = 0 on edges, X ⪰ 0 — and, for the SDPA reader, as
  SDPA's primal min x₀ s.t. x₀I + Σ_e x_e E_e − J ⪰ 0 (whose SDPA dual is that program);
- MaxCut's SDP  max ¼⟨L, X⟩ s.t. diag X = 1, X ⪰ 0:  n(1 + cos(π/n))/2 on the odd cycle
  C_n (consecutive unit vectors at angle (n − 1)π/n), n²/4 on the complete graph K_n;
- an SDPA file with a diagonal (LP) block: min x₁ + x₂ s.t. x₁ ≥ 1, x₂ ≥ 2,
  [[x₁, 1], [1, x₂]] ⪰ 0 — optimum 3 at (1, 2);
- a primal-infeasible SDPA file ([[x, 0], [0, −1]] ⪰ 0) and a dual-infeasible one
  (min −x s.t. [[x, 0], [0, 1]] ⪰ 0: the ray x → ∞);
- the exponential and power cones: min −Σ log x_i s.t. 1ᵀx = 1 (n log n at x = 1/n) and
  max Σ x_i^0.3 s.t. 1ᵀx = 1, x ≥ 0 (n^0.7), the latter with CVXPY's PowCone3D.
"""

from __future__ import annotations

from dataclasses import dataclass

import cvxpy as cp
import networkx as nx
import numpy as np
import scipy.sparse as sp

from .sdpa import SDPAProblem, parse_sdpa


@dataclass
class Instance:
    """A problem, what a correct solver must answer, and the optimum when it is known."""

    name: str
    problem: cp.Problem
    expect: str  # "optimal" | "infeasible" | "unbounded"
    optimum: float | None = None
    psd_side: int = 0


def theta_value(n: int) -> float:
    return n * np.cos(np.pi / n) / (1 + np.cos(np.pi / n))


def lovasz_theta(graph: nx.Graph) -> cp.Problem:
    """max ⟨J, X⟩ s.t. tr X = 1, X_ij = 0 for every edge, X ⪰ 0 (nodes of any label: they
    are numbered in the graph's order first — a Kneser graph's are sets)."""
    graph = nx.convert_node_labels_to_integers(graph)
    n = graph.number_of_nodes()
    X = cp.Variable((n, n), symmetric=True, name="X")
    i, j = (
        (np.array(v, dtype=int) for v in zip(*graph.edges)) if graph.number_of_edges() else ([], [])
    )
    cons = [X >> 0, cp.trace(X) == 1]
    if len(i):
        cons.append(X[i, j] == 0)
    return cp.Problem(cp.Maximize(cp.sum(X)), cons)


def theta_sdpa(graph: nx.Graph) -> SDPAProblem:
    """Lovász theta as an SDPA file's problem: min x₀ s.t. x₀I + Σ_e x_e E_e − J ⪰ 0."""
    graph = nx.convert_node_labels_to_integers(graph)
    n = graph.number_of_nodes()
    edges = list(graph.edges)
    m = 1 + len(edges)
    rows, cols, vals = [], [], []
    for a in range(n):  # F_0 = J (all entries), F_1 = I
        for b in range(n):
            rows.append(a + n * b)
            cols.append(0)
            vals.append(1.0)
        rows.append(a * (n + 1))
        cols.append(1)
        vals.append(1.0)
    for k, (a, b) in enumerate(edges, start=2):
        rows += [a + n * b, b + n * a]
        cols += [k, k]
        vals += [1.0, 1.0]
    F = sp.csc_matrix((vals, (rows, cols)), shape=(n * n, m + 1))
    c = np.zeros(m)
    c[0] = 1.0
    return SDPAProblem(c, [n], [F], name=f"theta-{n}")


def maxcut_sdp(graph: nx.Graph) -> cp.Problem:
    """max ¼⟨L, X⟩ s.t. diag X = 1, X ⪰ 0 (Goemans–Williamson)."""
    n = graph.number_of_nodes()
    L = nx.laplacian_matrix(graph).astype(float).toarray()
    X = cp.Variable((n, n), symmetric=True, name="X")
    return cp.Problem(cp.Maximize(cp.trace(L @ X) / 4), [X >> 0, cp.diag(X) == 1])


LP_BLOCK_SDPA = """\
"min x1 + x2 s.t. x1 >= 1, x2 >= 2, [[x1, 1], [1, x2]] psd: optimum 3 at (1, 2)"
2 = mDIM
2 = nBLOCK
{2, -2}
1 1
0 1 1 2 -1
1 1 1 1 1
2 1 2 2 1
0 2 1 1 1
0 2 2 2 2
1 2 1 1 1
2 2 2 2 1
"""

PRIMAL_INFEASIBLE_SDPA = """\
"[[x, 0], [0, -1]] psd: no x"
1
1
2
1
1 1 1 1 1
0 1 2 2 1
"""

DUAL_INFEASIBLE_SDPA = """\
"min -x s.t. [[x, 0], [0, 1]] psd: unbounded along x"
1
1
2
-1
1 1 1 1 1
0 1 2 2 -1
"""


def conformance_instances() -> list[Instance]:
    """The suite every generic solver is run on: small, with known answers."""
    out = []
    for n in (5, 7, 11):
        out.append(
            Instance(f"theta-C{n}", lovasz_theta(nx.cycle_graph(n)), "optimal", theta_value(n), n)
        )
    out.append(
        Instance(
            "theta-C9-sdpa", theta_sdpa(nx.cycle_graph(9)).to_cvxpy(), "optimal", theta_value(9), 9
        )
    )
    out.append(
        Instance(
            "maxcut-C9",
            maxcut_sdp(nx.cycle_graph(9)),
            "optimal",
            9 * (1 + np.cos(np.pi / 9)) / 2,
            9,
        )
    )
    out.append(Instance("maxcut-K6", maxcut_sdp(nx.complete_graph(6)), "optimal", 9.0, 6))
    out.append(
        Instance(
            "lp-block-sdpa", parse_sdpa(LP_BLOCK_SDPA, "lp-block").to_cvxpy(), "optimal", 3.0, 2
        )
    )
    x = cp.Variable(4, name="x")
    out.append(
        Instance(
            "entropy-exp-cone",
            cp.Problem(cp.Minimize(-cp.sum(cp.log(x))), [cp.sum(x) == 1]),
            "optimal",
            4 * np.log(4),
        )
    )
    x = cp.Variable(4, name="x")
    out.append(
        Instance(
            "power-cone",
            cp.Problem(
                cp.Maximize(cp.sum(cp.power(x, 0.3, approx=False))), [cp.sum(x) == 1, x >= 0]
            ),
            "optimal",
            4**0.7,
        )
    )
    out.append(
        Instance(
            "primal-infeasible-sdpa",
            parse_sdpa(PRIMAL_INFEASIBLE_SDPA, "infeasible").to_cvxpy(),
            "infeasible",
        )
    )
    out.append(
        Instance(
            "dual-infeasible-sdpa",
            parse_sdpa(DUAL_INFEASIBLE_SDPA, "unbounded").to_cvxpy(),
            "unbounded",
        )
    )
    return out
