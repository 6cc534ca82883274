"""Stress test of the certificate (issue #26's bar): hundreds of deliberately loose SCS runs
(eps ≥ 1e-3, few iterations) on SDPs with known optima, and how many of them a certificate
got wrong.

Two counts, each of which must be 0:

- "certified" verdicts whose interval excludes the optimum;
- proven ends on the wrong side of the optimum (a lower end labelled proof above it, or an
  upper end labelled proof below it) — whatever the verdict.

Instances (optima in closed form, Lovász 1979 and the odd-cycle MaxCut SDP): Lovász θ of the
odd cycles C₅ … C₁₉ (n·cos(π/n)/(1 + cos(π/n))), of the Petersen graph (4) and of Kneser
graphs K(n, 2) (θ = n − 1), and the MaxCut SDP of odd cycles (n(1 + cos(π/n))/2) and of
complete graphs (n²/4).  Each is run under every SCS setting in ``SETTINGS`` (eps_abs =
eps_rel, max_iters).

    python benchmarks/loose_scs_stress.py            # 400 runs, a few minutes
    python benchmarks/loose_scs_stress.py --quick    # 40 runs
"""

from __future__ import annotations

import argparse
import itertools
import time

import networkx as nx
import numpy as np

from kernelsdp import tolerances as tol
from kernelsdp.certificate import PROOF, conic_certificate, solve_canonical
from kernelsdp.data.sdp_instances import lovasz_theta, maxcut_sdp, theta_value

SETTINGS = [(eps, iters) for eps in (1e-3, 3e-3, 1e-2, 3e-2) for iters in (10, 25, 50, 100, 400)]


def instances(quick: bool):
    """(name, problem maker, optimum)."""
    out = [
        (f"theta-C{n}", lambda n=n: lovasz_theta(nx.cycle_graph(n)), theta_value(n))
        for n in range(5, 21, 2)
    ]
    out.append(("theta-petersen", lambda: lovasz_theta(nx.petersen_graph()), 4.0))
    out += [
        (
            f"theta-kneser-{n}-2",
            lambda n=n: lovasz_theta(nx.convert_node_labels_to_integers(nx.kneser_graph(n, 2))),
            float(n - 1),
        )
        for n in (5, 6, 7)
    ]
    out += [
        (f"maxcut-C{n}", lambda n=n: maxcut_sdp(nx.cycle_graph(n)), n * (1 + np.cos(np.pi / n)) / 2)
        for n in (5, 7, 9, 11)
    ]
    out += [
        (f"maxcut-K{n}", lambda n=n: maxcut_sdp(nx.complete_graph(n)), n * n / 4.0) for n in (4, 6)
    ]
    return out[:4] if quick else out


def run(quick: bool) -> dict:
    counts = {
        "runs": 0,
        "certified": 0,
        "certified_excluding": 0,
        "wrong_proofs": 0,
        "lower_proofs": 0,
        "upper_proofs": 0,
    }
    wrong = []
    t0 = time.perf_counter()
    settings = SETTINGS[::2] if quick else SETTINGS
    for (name, make, opt), (eps, iters) in itertools.product(instances(quick), settings):
        sol = solve_canonical(make(), "SCS", eps_abs=eps, eps_rel=eps, max_iters=iters)
        if sol.x is None or sol.y is None:
            continue
        c = conic_certificate(sol, tol.CERTIFY_TOL)
        counts["runs"] += 1
        slack = 0.0  # the proofs hold exactly: no tolerance on the wrong side
        lo_bad = c.lower_label == PROOF and c.lower is not None and c.lower > opt + slack
        up_bad = c.upper_label == PROOF and c.upper is not None and c.upper < opt - slack
        counts["lower_proofs"] += c.lower_label == PROOF
        counts["upper_proofs"] += c.upper_label == PROOF
        if c.passed:
            counts["certified"] += 1
            if not (c.lower <= opt <= c.upper):
                counts["certified_excluding"] += 1
        if lo_bad or up_bad:
            counts["wrong_proofs"] += 1
            wrong.append((name, eps, iters, c.lower, c.upper, opt))
    counts["seconds"] = time.perf_counter() - t0
    counts["wrong"] = wrong
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    c = run(args.quick)
    print(
        f"{c['runs']} loose SCS runs in {c['seconds']:.0f} s: {c['certified']} certified, "
        f"{c['lower_proofs']} lower ends and {c['upper_proofs']} upper ends proven"
    )
    print(f"certified verdicts whose interval excludes the optimum: {c['certified_excluding']}")
    print(f"proven ends on the wrong side of the optimum: {c['wrong_proofs']}")
    for w in c["wrong"][:10]:
        print("   ", w)
    return 0 if c["certified_excluding"] == 0 and c["wrong_proofs"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
