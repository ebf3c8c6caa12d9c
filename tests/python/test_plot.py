"""mixgraph.plot with the Agg backend: the data drawn equals the results', unreachable pairs are masked,
rcParams apply, the Axes given is used and returned, plt.show() is never called, and matplotlib is imported
only when a plot function runs."""

import subprocess
import sys

import numpy as np
import pytest

import mixgraph

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

pd = pytest.importorskip("pandas")
U = mixgraph.UNREACHABLE


@pytest.fixture(autouse=True)
def no_show(monkeypatch):
    def show(*a, **k):
        raise AssertionError("plt.show() was called")

    monkeypatch.setattr(plt, "show", show)
    yield
    plt.close("all")


def test_import_mixgraph_does_not_import_matplotlib():
    code = "import sys, mixgraph; assert 'matplotlib' not in sys.modules; mixgraph.plot; print('ok')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr


def test_heatmap_masks_unreachable_pairs():
    r = mixgraph.distances("offsets:3,5", 40, matrix=True)
    fig, ax = plt.subplots()
    assert mixgraph.plot.heatmap(r, ax=ax) is ax
    img = ax.images[0].get_array()
    assert np.array_equal(np.ma.getmaskarray(img), r.matrix == U)
    ok = r.matrix != U
    assert np.array_equal(img.data[ok], r.matrix[ok].astype(float))
    assert (r.matrix == U).sum() > 40 * 39 // 2  # the upper triangle and some pairs below it
    assert len(fig.axes) == 2  # the colour bar
    ax2 = mixgraph.plot.heatmap(r.matrix, colorbar=False)
    assert ax2 is not ax and len(ax2.figure.axes) == 1


def test_rcparams_are_respected():
    with plt.rc_context({"figure.figsize": (3.3, 2.2), "axes.prop_cycle": matplotlib.cycler(color=["#123456"])}):
        ax = mixgraph.plot.profile(mixgraph.Pattern("pow2+cache", 64))
        assert tuple(ax.figure.get_size_inches()) == pytest.approx((3.3, 2.2))
        assert matplotlib.colors.to_hex(ax.lines[0].get_color()) == "#123456"
    with plt.rc_context({"image.cmap": "magma", "font.size": 5, "axes.labelsize": "medium"}):
        ax = mixgraph.plot.heatmap(mixgraph.distances("pow2", 16, matrix=True))
        assert ax.images[0].get_cmap().name == "magma"
        assert ax.xaxis.label.get_fontsize() == pytest.approx(5)  # axes.labelsize 'medium' of font.size


def test_profile_draws_the_pattern_values():
    ps = [mixgraph.Pattern("pow2+cache", 128), mixgraph.Pattern("sq1+cache", 128)]
    ax = mixgraph.plot.profile(ps + [mixgraph.stack("stack:ssm,window:4", 128, profile=True)])
    for line, p in zip(ax.lines, ps):
        assert np.array_equal(line.get_ydata(), p.cache_sizes()) and line.get_label() == p.spec
    s = mixgraph.stack("stack:ssm,window:4", 128, profile=True)
    assert np.array_equal(ax.lines[2].get_ydata(), s.cache_size)
    ax = mixgraph.plot.profile(ps[0], quantity="decode")
    assert np.array_equal(ax.lines[0].get_ydata(), ps[0].decode_cost())
    with pytest.raises(mixgraph.UsageError):
        mixgraph.plot.profile(ps[0], quantity="nope")


@pytest.fixture(scope="module")
def gallery():
    return mixgraph.gallery(["ssm", "pow2", "sq1+cache", "offsets:4,6"], 130, cuts=4)  # N = 65: odd


def test_congestion_bounds_per_design(gallery):
    ax = mixgraph.plot.congestion(gallery)
    lo, hi = ax.lines[0].get_ydata(), ax.lines[1].get_ydata()
    want_lo = gallery["copy_congestion_lower"].to_numpy(dtype="float64", na_value=np.nan)
    want_hi = gallery["copy_congestion_upper"].to_numpy(dtype="float64", na_value=np.nan)
    assert np.array_equal(lo, want_lo, equal_nan=True) and np.array_equal(hi, want_hi, equal_nan=True)
    assert np.isnan(lo[3])  # offsets 4 and 6 cannot copy the odd shift N = 65
    assert "impossible" in ax.get_xticklabels()[3].get_text()
    cs = [mixgraph.congestion(s, 64) for s in ("pow2", "sq1")]
    ax = mixgraph.plot.congestion(cs)
    assert list(ax.lines[0].get_ydata()) == [c.lower_bound for c in cs]


def test_cut_ranks_and_gallery_bars(gallery):
    r = mixgraph.rank("pow2+cache", 64)
    s = mixgraph.rank("stack:ssm,window:4", 64, method="flow", cuts=8)
    ax = mixgraph.plot.cut_ranks([r, s])
    assert np.array_equal(ax.lines[0].get_ydata(), r.cut_rank_flow)
    assert np.array_equal(ax.lines[1].get_ydata(), s.flow)
    assert np.array_equal(ax.lines[2].get_ydata(), r.cache_at_cut) and ax.lines[2].get_linestyle() == "--"
    ax = mixgraph.plot.gallery_bars(gallery, "copy_distance")
    heights = [p.get_height() for p in ax.patches]
    want = gallery["copy_distance"].to_numpy(dtype="float64", na_value=0)
    assert heights == list(want) and "n/a" in ax.get_xticklabels()[3].get_text()
    with pytest.raises(mixgraph.UsageError):
        mixgraph.plot.gallery_bars(gallery, "nope")


def test_figures_save(tmp_path, gallery):
    ax = mixgraph.plot.gallery_bars(gallery, "max_cache", log=True)
    ax.figure.savefig(tmp_path / "bars.pdf")
    assert (tmp_path / "bars.pdf").stat().st_size > 1000
