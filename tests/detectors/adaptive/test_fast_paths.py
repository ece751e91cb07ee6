"""Adaptive's shortcuts give exactly what the whole computation gives.

A newest-point check of thousands of groups skips work whose result it would throw away: rows
without a repeated value have no run to count, a window or a running extreme is gathered only
for the cells judged, a t inverse is computed once per distinct (tail heaviness, count) pair;
and numpy's per-column loops and chains of temporaries are compiled (the young floor).
Each law below compares a shortcut with the plain computation it replaced, bit for bit, on
random matrices with NaN, repeats, constant runs and extreme values
(``bench/adaptive_speed.py`` compares whole verdicts with another revision's).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.lib.stride_tricks import sliding_window_view
from scipy import signal, special

from detectors.adaptive import persistence, recurrence, stuck, tails
from detectors.adaptive.kernels import at_least_before, standardised
from detectors.adaptive.kernels.decay import decayed_sums
from detectors.adaptive.kernels.extremes import extremes_through
from detectors.adaptive.kernels.peer_floor import faded_floor
from detectors.adaptive.kernels.quantiles import positive_quantiles

LAWS = settings(max_examples=60, deadline=None, derandomize=True)


@st.composite
def matrices(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Values (groups x time), which points are learnt and which are judged."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    groups, steps = draw(st.integers(1, 12)), draw(st.integers(2, 60))
    kind = draw(st.sampled_from(["normal", "counts", "frozen", "extreme"]))
    values = rng.normal(100, 10, (groups, steps))
    if kind == "counts":
        values = rng.poisson(2, (groups, steps)).astype(float)
    elif kind == "frozen":
        values = values.round(1)
        stop = rng.integers(0, steps, groups)
        for g in range(groups):
            values[g, stop[g] :] = values[g, stop[g]]
    elif kind == "extreme":
        values[rng.random(values.shape) < 0.05] = draw(st.sampled_from([1e300, -1e300, np.inf]))
    values[rng.random(values.shape) < draw(st.sampled_from([0.0, 0.1, 0.4]))] = np.nan
    learn = rng.random(values.shape) < draw(st.sampled_from([1.0, 0.8]))
    if draw(st.booleans()):  # a newest-point check: the last column only
        needed = np.zeros(values.shape, bool)
        needed[:, -1] = True
    else:
        needed = rng.random(values.shape) < 0.5
    return values, learn, needed


def equal(a: np.ndarray, b: np.ndarray) -> bool:
    return np.array_equal(a, b, equal_nan=True) and a.dtype == b.dtype


@LAWS
@given(matrices(), st.sampled_from([0.001, 0.05, 1.0]))
def test_stale_points_skip_rows_without_repeats_and_change_nothing(
    case: tuple[np.ndarray, np.ndarray, np.ndarray], rate: float
) -> None:
    values, learn, judged = case
    stale, p, length = stuck.stale_points(values, learn, judged, rate)
    found = stuck.runs(values, learn, stuck.SHARE * rate)  # every row, as before the shortcut
    asked = judged.any(axis=1, keepdims=True)
    expected_stale = found.first & judged
    assert equal(stale, expected_stale)
    assert equal(p, np.where(expected_stale, found.p_value, 1.0))
    assert equal(length, np.where(asked, found.length, 0))


@LAWS
@given(matrices(), st.sampled_from([1e-6, 1e-4, 0.001]), st.sampled_from(["both", "upper"]))
def test_windows_gathered_for_the_judged_cells_only_change_nothing(
    case: tuple[np.ndarray, np.ndarray, np.ndarray], rate: float, side: str
) -> None:
    values, learn, needed = case
    rows, cols = np.nonzero(needed)
    seen = np.where(learn & np.isfinite(values), values, np.nan)
    padded = np.concatenate([np.full((len(values), recurrence.WINDOW), np.nan), seen], axis=1)
    every = sliding_window_view(padded, recurrence.WINDOW, axis=1)  # each cell's, as before
    assert equal(recurrence._windows(values, learn, rows, cols), every[rows, cols])
    with np.errstate(all="ignore"):
        low, high, _ = recurrence.window_floor(values, learn, needed, rate, side)
    widened = (np.full(values.shape, 1.0), np.full(values.shape, 2.0))
    at = np.nonzero(needed)
    recurrence.widen_at(widened, at, (low[at], high[at]), (0.0, np.inf))
    stretched = np.isfinite(low) | np.isfinite(high)
    assert equal(widened[0], np.where(stretched, np.clip(np.fmin(1.0, low), 0.0, np.inf), 1.0))
    assert equal(widened[1], np.where(stretched, np.clip(np.fmax(2.0, high), 0.0, np.inf), 2.0))


@LAWS
@given(matrices())
def test_running_extremes_per_judged_cell_change_nothing(
    case: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    values, learn, needed = case
    seen = np.where(learn & np.isfinite(values), values, np.nan)
    rows, cols = np.nonzero(needed[:, 1:])
    below, above = extremes_through(values, learn, rows, cols)
    with np.errstate(invalid="ignore"):
        assert equal(below, np.fmin.accumulate(seen, axis=1)[rows, cols])
        assert equal(above, np.fmax.accumulate(seen, axis=1)[rows, cols])


@LAWS
@given(matrices())
def test_lasting_change_p_values_of_the_needed_cells_only_change_nothing(
    case: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    values, learn, needed = case
    z = (values - 100.0) / 10.0
    sums = persistence.lasting_sums(z, learn, "both", 0.001)
    p = np.full(z.shape, np.nan)
    p[needed] = persistence.lasting_p(sums, needed, "both")
    height = np.maximum(sums.below, sums.above)
    assert equal(p, np.where(needed, persistence.p_value(height) * 2, np.nan))


@LAWS
@given(st.integers(0, 2**32 - 1), st.sampled_from([1e-7, 1e-3, 0.05]))
def test_the_t_inverse_once_per_pair_changes_nothing(seed: int, rate: float) -> None:
    rng = np.random.default_rng(seed)
    cells = int(rng.integers(1, 3000))
    nu = rng.integers(0, len(tails.NU), cells)
    count = rng.choice([0, 1, 5, 30, 365, tails.COUNT_CAP, 9000], cells)
    df, _, _, _, m = tails._tables(4.0, 0.97)
    index = np.minimum(count, tails.COUNT_CAP)
    expected = special.stdtrit(df[nu, index], 1.0 - rate) / m[nu]
    assert equal(tails.quantile(rate, nu, count, 4.0, 0.97), expected)


@LAWS
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from(["scales", "ties", "extreme"]),
    st.sampled_from([(0.5, 0.75), (0.0, 1.0), (0.1, 0.1), (0.999, 0.3)]),
    st.integers(0, 8),
)
def test_compiled_column_quantiles_equal_numpys(
    seed: int, kind: str, quantiles: tuple[float, float], min_values: int
) -> None:
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(1, 80)), int(rng.integers(1, 9)))
    scale = rng.lognormal(0, 2, shape)
    if kind == "ties":  # a few values, many times over (and zeros, which are left out)
        scale = rng.integers(0, 4, shape).astype(float)
    elif kind == "extreme":
        picked = rng.random(shape) < 0.1
        scale[picked] = rng.choice([np.inf, -np.inf, 1e300, 5e-324, -1.0], picked.sum())
    scale[rng.random(shape) < rng.choice([0.0, 0.3, 0.9])] = np.nan
    count = rng.integers(0, 6, shape)
    usable = np.isfinite(scale) & (scale > 0) & (count >= 3)  # the young floor's, plainly
    enough = usable.sum(axis=0) >= min_values
    expected = np.full((2, shape[1]), np.nan)
    enough &= usable.any(axis=0)  # (numpy warns of a column with none, and gives NaN)
    if enough.any():
        chosen = np.where(usable, scale, np.nan)[:, enough]
        expected[:, enough] = np.nanquantile(chosen, quantiles, axis=0)
    assert equal(positive_quantiles(scale, count, 3, min_values, quantiles), expected)


@LAWS
@given(st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_compiled_faded_floor_equals_the_numpy_expression(
    seed: int, one_line: bool, some_rows: bool
) -> None:
    rng = np.random.default_rng(seed)
    groups, width = int(rng.integers(1, 12)), int(rng.integers(1, 40))
    scale = rng.choice([0.0, np.nan, np.inf, 1e-300, 0.3, 2.0, 1e300], (groups, width))
    count = rng.integers(0, 30, (groups, width))
    rows = np.flatnonzero(rng.random(groups) < 0.5) if some_rows else np.arange(groups)
    lines = 1 if one_line else len(rows)
    typical, wide = (rng.choice([np.nan, 0.0, 0.5, 3.0, 1e308], (lines, width)) for _ in "tw")
    floor = np.zeros((groups, width))
    faded_floor(floor, rows, scale, count, typical, wide, 0.25, 7.0)
    expected = np.zeros((groups, width))
    fade = 0.25 * np.minimum(1.0, 7.0 / np.maximum(count[rows], 1))  # young.py's, plainly
    with np.errstate(over="ignore", invalid="ignore"):
        peers = np.where(scale[rows] == 0, wide, typical * fade)
    expected[rows] = np.where(np.isfinite(peers), peers, 0.0)
    assert equal(floor, expected)


@LAWS
@given(matrices(), st.integers(0, 2**32 - 1))
def test_compiled_errors_and_history_equal_the_numpy_expressions(
    case: tuple[np.ndarray, np.ndarray, np.ndarray], seed: int
) -> None:
    values, learn, _ = case
    rng = np.random.default_rng(seed)
    shape = values.shape
    with np.errstate(invalid="ignore"):  # (inf - inf: a NaN forecast)
        forecast = values + rng.choice([0.0, -0.0, 1.0, np.nan, -np.inf], shape)
    error = np.where(rng.random(shape) < 0.2, np.nan, 0.5)
    scale = rng.choice([0.0, 1e-300, 0.5, 3.0, np.inf, np.nan], shape)
    lowest = rng.choice([-np.inf, 0.0, 100.0, np.nan], len(values))
    floor = rng.choice([0.0, 0.25, 2.0], shape)
    *fields, z = standardised(values, forecast, error, scale, lowest, floor)
    raised = np.maximum(forecast, lowest[:, None])  # detector.py's, plainly
    scales = np.where(np.isfinite(scale), np.fmax(scale, floor), scale)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        errors = np.where(np.isnan(error), np.nan, values - raised)
        expected = np.where(errors == 0, 0.0, errors / scales)
    for found, plain in zip([*fields, z], [raised, errors, scales, expected], strict=True):
        assert equal(found, plain)
    least = int(rng.integers(0, 8))
    assert equal(at_least_before(learn, least), np.cumsum(learn, axis=1) - learn >= least)


@LAWS
@given(
    st.integers(0, 2**32 - 1), st.integers(1, 12), st.integers(1, 60), st.sampled_from([0.9, 0.98])
)
def test_decayed_sums_equal_scipys_filter(seed: int, rows: int, steps: int, memory: float) -> None:
    # The evidence for a scale (scale_choice.py) was lfilter's: the kernel gives the same bits.
    gain = np.random.default_rng(seed).normal(0, 5, (rows, steps)).clip(-20, 20)
    expected = signal.lfilter([1.0], [1.0, -memory], gain, axis=1)
    assert equal(decayed_sums(gain, memory), expected)
