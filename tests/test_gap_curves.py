"""benchmarks/gap_curves.py: issue #30's gap-against-time curve, drawn from the ALM's own
progress lines (the 10⁶ hours are kept as logs) and from npkl_scale.py's side-by-side rows."""

from __future__ import annotations

import pytest
from conftest import load_benchmark, scale_row

from kernelsdp.errors import KernelSDPError

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def curves():
    return load_benchmark("gap_curves")


@pytest.fixture(scope="module")
def scale():
    return load_benchmark("npkl_scale")


def test_a_log_of_progress_lines_gives_back_each_check_s_time_gap_and_products(
    curves, scale, capsys, tmp_path
):
    """The parser reads the lines the benchmark's own progress function prints (not a copy
    of their format), and skips every other line of the log."""
    from kernelsdp.solvers import solve

    r = solve(scale.instance(300), "low-rank-alm", progress=scale._alm_progress)
    log = tmp_path / "run.log"
    log.write_text("loading the instance\n" + capsys.readouterr().err + '{"status": "optimal"}\n')
    checks = [h for h in r.history if "fw_gap" in h]
    pts = curves.read_log(str(log))
    assert [p[2] for p in pts] == [h["products"] for h in checks]
    for (t, gap, _), h in zip(pts, checks):
        assert t == pytest.approx(h["time_s"], abs=0.051)  # printed to 0.1 s
        assert gap == pytest.approx(h["estimated_gap"], rel=0.051)  # printed to 2 digits


def test_a_log_without_progress_lines_is_refused(curves, tmp_path):
    log = tmp_path / "empty.log"
    log.write_text("nothing here\n")
    with pytest.raises(KernelSDPError, match="no progress line"):
        curves.read_log(str(log))


def test_the_command_line_draws_a_png_and_refuses_bad_input_with_exit_code_2(
    curves, tmp_path, capsys
):
    log = tmp_path / "a.log"
    log.write_text(
        "  check    1     1.0 s  products      1  rank 0  estimated gap 1.1e+00  FW 1.1e+00\n"
        "  check    2     2.5 s  products     40  rank 3  estimated gap 2.0e-03  FW 1.0e-03\n"
    )
    out = tmp_path / "fig.png"
    assert curves.main([str(log), "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == PNG_MAGIC
    assert "a.log: products to an estimated gap of 1e-02 40, 3e-03 40" in capsys.readouterr().out
    bad = {
        "2 labels for 1 logs": [str(log), "--out", str(out), "--labels", "a,b"],
        "missing.log": [str(tmp_path / "missing.log"), "--out", str(out)],
        "two logs under one label": [str(log), str(log), "--out", str(out)],
        "is a folder": [str(log), "--out", str(tmp_path)],
        "its folder does not exist": [str(log), "--out", str(tmp_path / "no" / "f.png")],
    }
    for message, argv in bad.items():
        assert curves.main(argv) == 2
        assert message in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.log", "fig.png"]  # no leftovers


def test_the_side_by_side_run_draws_every_run_s_curve(scale, monkeypatch, tmp_path, capsys):
    def row(n):  # the side-by-side test's row, its curve with products
        return {**scale_row(n, 0, 10), "curve": [(0.5, 1e-1, 5), (1.0, 5e-4, 10)]}

    monkeypatch.setattr(scale, "_child", lambda solver, n, limit, seed: row(n))
    fig = tmp_path / "gap.png"
    assert scale.side_by_side((3000, 20000), ["low-rank-alm"], None, (0,), str(fig)) == 0
    assert fig.read_bytes()[:8] == PNG_MAGIC
    assert f"gap against time and products: {fig}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--plot", "/no/such/dir/g.png"], "its folder does not exist"),
        (["--plot", "/tmp"], "is a folder"),
        (["--stages", "--plot", "/tmp/g.png"], "not --stages"),
    ],
)
def test_a_plot_that_cannot_be_drawn_is_refused_before_any_run(
    scale, monkeypatch, capsys, extra, message
):
    monkeypatch.setattr(scale, "_child", lambda *a: pytest.fail("a run started"))
    monkeypatch.setattr(scale, "stages", lambda *a, **k: pytest.fail("a run started"))
    monkeypatch.setattr("sys.argv", ["npkl_scale.py", "--quick", *extra])
    assert scale.main() == 2
    assert message in capsys.readouterr().out


@pytest.mark.parametrize(
    ("log", "checks", "products", "gap"),
    [
        ("28-rows-swept.log", 48, 4915, 1.4e-3),
        ("30-refined.log", 42, 3422, 5.4e-3),
        ("31-pockets.log", 36, 3293, 6.8e-3),
        ("32-extended.log", 57, 5743, 2.4e-3),
    ],
)
def test_the_kept_hours_read_back_as_the_measurements_report_them(
    curves, log, checks, products, gap
):
    """benchmarks/data/npkl_1m/: the 10⁶ hours' logs give the checks, products and last
    estimate that docs/measurements.md quotes."""
    from conftest import BENCH

    pts = curves.read_log(str(BENCH / "data" / "npkl_1m" / log))
    assert len(pts) == checks
    assert pts[-1][2] == products and pts[-1][1] == pytest.approx(gap)


def test_a_run_s_phases_are_the_products_at_the_first_check_below_each_milestone(curves):
    """A hub's pocket sends the estimate back above a milestone (the spikes of the 10⁶ hours);
    the milestone counts from the first check below it, and one never reached reads None."""
    curve = [(1.0, 0.5, 10), (2.0, 8e-3, 200), (3.0, 1.3, 260), (4.0, 2e-3, 500), (5.0, 9e-4, 640)]
    assert curves.MILESTONES == (1e-2, 3e-3)
    assert curves.phases(curve) == [200, 500, 640]
    assert curves.phases(curve[:3]) == [200, None, 260]
    assert curves.phases(curve, (1e-2, 3e-3, 5e-4)) == [200, 500, None, 640]
    assert curves.phases([(1.0, 1e-2, 7), (2.0, 3e-3, 9)]) == [7, 9, 9]  # "at most": equal counts
    line = curves.phases_line("run", curve[:3])
    marks = "1e-02 200, 3e-03 never"
    assert line == f"run: products to an estimated gap of {marks}; 260 at the last check"


def test_the_side_by_side_run_prints_the_body_and_the_tail_across_n(scale, monkeypatch, capsys):
    """npkl_scale's diagnostic beside the products bar: the products to an estimated 3e-3 and
    the rest to the certified gap, per n, and the body's ratio across n."""
    curves = {  # n -> (curve, final products)
        3000: ([(0.1, 5e-2, 400), (0.2, 2.9e-3, 1200), (0.3, 6e-4, 1500)], 1500),
        20000: ([(1.0, 5e-2, 700), (2.0, 2e-3, 2400), (3.0, 7e-4, 3300)], 3300),
    }

    def row(solver, n, limit, seed):
        curve, products = curves[n]
        return {**scale_row(n, seed, products), "curve": curve}

    monkeypatch.setattr(scale, "_child", row)
    assert scale.side_by_side((3000, 20000), ["low-rank-alm"], None, (0,)) == 0
    out = capsys.readouterr().out
    assert "2.20x -> missed" in out  # the bar: 3,300 / 1,500
    parts = "3,000: 1200 + 300  20,000: 2400 + 900"
    assert f"products to an estimated 3e-03, then to certified: {parts}; body 2.00x" in out
    curves[20000] = ([(1.0, 5e-2, 700), (3.0, 9e-4, 3300)], 3300)  # one check spans the body
    assert scale.side_by_side((3000, 20000), ["low-rank-alm"], None, (0,)) == 0
    assert "20,000: 3300 + 0; body 2.75x" in capsys.readouterr().out
    curves[20000] = ([(1.0, 5e-2, 700), (3.0, 4e-3, 3300)], 3300)  # a curve short of 3e-3
    assert scale.side_by_side((3000, 20000), ["low-rank-alm"], None, (0,)) == 0
    assert "3,000: 1200 + 300  20,000: never; body n/a" in capsys.readouterr().out
