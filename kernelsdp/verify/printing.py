"""A verify report as text: the one table that ``print(report)`` and ``kernelsdp verify``
both show (issue #26 §5).  Each interval end is printed to 12 significant digits with its
label (proof, probable or estimate) and, for anything but a proof, the reason."""

from __future__ import annotations

import math

#: significant digits of an interval end
DIGITS = 12


def end_text(value, label: str) -> str:
    """One end: 12 significant digits and its label."""
    if value is None:
        return "-"
    if isinstance(value, float) and math.isinf(value):
        text = "+inf" if value > 0 else "-inf"
    else:
        text = f"{value:.{DIGITS}g}"
    return f"{text} ({label or 'estimate'})"


def check_lines(c) -> list[str]:
    """One solver's rows: status, objective, interval with its labels, verdict, measures."""
    obj = f"{c.objective:.{DIGITS}g}" if c.objective is not None else "-"
    width = "-" if c.width is None else f"{c.width:.1e}"
    lines = [
        f"{c.solver:<14} {c.status:<16} objective {obj:<20} {c.solve_time_s:9.3f}s  "
        f"{c.verdict}  (tol {c.kkt_tol:.0e})",
        f"    interval [{end_text(c.lower, c.lower_label)}, "
        f"{end_text(c.upper, c.upper_label)}]  width {width}",
    ]
    for side, why in (("lower", c.lower_why), ("upper", c.upper_why)):
        if why:
            lines.append(f"    {side} end not a proof: {why}")
    if c.message:
        lines.append(f"    {c.message}")
    if c.note and c.note not in (c.lower_why, c.upper_why):
        lines.append(f"    ({c.note})")
    shown = [f"{k} {v:.2e}" for k, v in c.residuals.items() if isinstance(v, float)]
    if shown:
        lines.append("    " + "  ".join(shown))
    worst = sorted(c.per_constraint.items(), key=lambda kv: -kv[1])[:3]
    if worst and worst[0][1] > c.kkt_tol:
        lines.append(
            "    most violated constraints: " + ", ".join(f"{k} {v:.2e}" for k, v in worst)
        )
    return lines


def report_text(report) -> str:
    """The whole report: every solver's rows, the comparisons, the verdict."""
    lines = ["problem: " + ", ".join(f"{k}={v}" for k, v in report.problem.items())]
    for c in report.checks:
        lines += check_lines(c)
    for cmp in report.comparisons:
        lines.append(
            f"  {cmp.relation}: {cmp.a} vs {cmp.b}: separation {cmp.separation:.2e}, "
            f"objectives differ by {cmp.relative_difference:.2e} (tol {cmp.tol:.0e}) "
            f"{'ok' if cmp.passed else 'FAIL'}"
        )
    lines.append(f"verify: {'PASSED' if report.passed else 'FAILED'}")
    return "\n".join(lines)
