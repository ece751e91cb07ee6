"""The smoothing recursion: every candidate model over every point of one series.

The model is robust additive exponential smoothing in error-correction form (Gelper, Fried and
Croux, "Robust forecasting with exponential and Holt-Winters smoothing", Journal of
Forecasting, 2010), with seasonal components given as ``(stride, size)`` pairs: a point at
calendar slot ``t`` is in phase ``(t // stride) % size`` of each (``((1, 7),)``: day of week on
daily points; ``((1, 24), (24, 7))``: hour of day plus day of week on hourly points).

:func:`detectors.adaptive.smoother.smooth` says what the recursion does; this module is its
arithmetic, a dozen numbers of state per model and series.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from detectors.adaptive.kernels import BoolMatrix, FloatArray, FloatMatrix, IntArray, IntMatrix

PHASE_MEMORY = 0.96
FIT_CLIP = 10.0
"""Model choice weighs an error up to this many scales: an outlier the model explains away as
a shift still counts against it (a level model sees every weekend as one), a broken load does
not decide the season."""
TINY = 1e-300


def grain_state(x: FloatMatrix, usable: BoolMatrix) -> tuple[FloatMatrix, FloatMatrix, IntMatrix]:
    """Per cell, before the point: the last usable value, the smallest step the series made
    away from a value it had just repeated, and how many repeats it has made (the rows split
    across threads)."""
    from detectors.adaptive.kernels import by_rows

    last, step_away, repeats = np.empty(x.shape), np.empty(x.shape), np.empty(x.shape, np.int64)

    def rows(part: slice) -> None:
        _grain_state(x[part], usable[part], last[part], step_away[part], repeats[part])

    by_rows(rows, len(x), x.size)
    return last, step_away, repeats


@njit(cache=True, nogil=True)
def _grain_state(
    x: FloatMatrix, usable: BoolMatrix, last: FloatMatrix, step_away: FloatMatrix,
    repeats: IntMatrix,
) -> None:  # fmt: skip
    groups, steps = x.shape
    for g in range(groups):
        previous, smallest, count, repeated = np.nan, np.inf, 0, False
        for t in range(steps):
            last[g, t], step_away[g, t], repeats[g, t] = previous, smallest, count
            if not usable[g, t]:
                continue
            value = x[g, t]
            if repeated and value != previous:
                smallest = min(smallest, abs(value - previous))
            repeated = value == previous
            if repeated:
                count += 1
            previous = value


@njit(cache=True, nogil=True)
def smooth_rows(
    y: FloatMatrix,
    usable: BoolMatrix,
    slots: IntMatrix,
    floor: FloatMatrix,
    strides: IntMatrix,
    sizes: IntMatrix,
    components: IntArray,
    periods: IntArray,
    season_rates: FloatMatrix,
    constants: FloatArray,
    forecast: FloatMatrix,
    error: FloatMatrix,
    scale: FloatMatrix,
    count: IntMatrix,
    outlier: BoolMatrix,
    ready: BoolMatrix,
    period: IntMatrix,
    settled: BoolMatrix,
) -> None:
    """Run every candidate over each row of ``y`` and write the chosen one's view of each
    cell into the output matrices (the arguments after ``constants``).

    ``strides``/``sizes``/``season_rates`` are candidates x components (``components`` used
    per candidate, the first candidate has none); ``constants`` are the settings: limit,
    decay, min_errors, point_level_rate, point_return_window, regime_run, season_margin.
    """
    limit, decay, min_errors, level_rate = constants[0], constants[1], constants[2], constants[3]
    return_window, regime_run, margin = constants[4], constants[5], constants[6]
    groups, steps = y.shape
    n, width = strides.shape
    most = max(1, sizes.max())
    # One row's state, reset for each row (allocated once: ten thousand rows would otherwise
    # allocate two hundred thousand small arrays).
    level, pending, old_level = np.empty(n), np.empty(n), np.empty(n)
    values, old_values = np.empty((n, width, most)), np.empty((n, width, most))
    sums, counts = np.empty((n, width, most)), np.empty((n, width, most))
    ratio, recurring = np.empty((n, most)), np.empty((n, most))
    seen, first_slot, timer = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64)
    errors, run = np.empty(n, np.int64), np.empty(n, np.int64)
    total, scale_sum, scale_weight = np.empty(n), np.empty(n), np.empty(n)
    fit_sum, fit_weight = np.empty(n), np.empty(n)
    burnt = np.empty(n, dtype=np.bool_)
    phase = np.zeros(width, dtype=np.int64)
    fits = np.zeros(n)
    readies = np.zeros(n, dtype=np.bool_)
    outs = np.zeros((n, 4))  # forecast, error, scale, errors seen
    outliers = np.zeros(n, dtype=np.bool_)
    for g in range(groups):
        level[:], pending[:], old_level[:] = np.nan, np.nan, np.nan
        values[:], old_values[:], sums[:], counts[:], ratio[:] = 0.0, 0.0, 0.0, 0.0, 1.0
        recurring[:] = np.nan
        seen[:], first_slot[:], timer[:], errors[:], run[:] = 0, -1, 0, 0, 0
        total[:], scale_sum[:], scale_weight[:], fit_sum[:], fit_weight[:] = 0.0, 0.0, 0.0, 0.0, 0.0
        burnt[:] = periods == 0
        for t in range(steps):
            yv, use, slot, low = y[g, t], usable[g, t], slots[g, t], floor[g, t]
            for c in range(n):
                seasonal = 0.0
                old_seasonal = 0.0
                for k in range(components[c]):
                    phase[k] = (slot // strides[c, k]) % sizes[c, k]
                    seasonal += values[c, k, phase[k]]
                    old_seasonal += old_values[c, k, phase[k]]
                burning = not burnt[c]
                f = level[c] + seasonal
                e = yv - f
                phase_ratio = ratio[c, phase[0]] if components[c] > 0 else 1.0
                overall = scale_sum[c] / max(scale_weight[c], TINY)
                s = np.nan
                if scale_weight[c] > 0:
                    s = overall * phase_ratio
                    s = s if math.isnan(s) or s >= low else low
                bound = limit * s
                big = abs(e) > bound
                shifted = e - pending[c]
                accept = big and math.isfinite(pending[c]) and abs(shifted) <= bound
                back = yv - (old_level[c] + old_seasonal)
                # Back nearer the old model than the shifted one (a rebound after a drop): over.
                fresh = timer[c] >= return_window  # the shift was accepted on the point before
                nearer = abs(back) <= bound or (fresh and abs(back) < abs(e))
                restore = big and not accept and timer[c] > 0 and nearer
                # The same outlier a cycle after the last on this day: the day has changed.
                again = recurring[c, phase[0]] if components[c] > 0 else np.nan
                recur = big and not accept and not restore and abs(e - again) <= bound
                e_eff = shifted if accept else (back if restore else (e - again if recur else e))
                is_outlier = abs(e_eff) > bound
                started = not burning and math.isfinite(level[c])
                judged = started and errors[c] >= min_errors
                outs[c, 0] = yv - e_eff if math.isfinite(yv) else f
                outs[c, 1] = e_eff if judged else np.nan
                outs[c, 2] = s
                outs[c, 3] = errors[c]
                outliers[c] = is_outlier and judged
                readies[c] = judged
                fits[c] = fit_sum[c] / max(fit_weight[c], TINY) if fit_weight[c] > 0 else np.nan
                if use and judged:
                    clip = FIT_CLIP * s
                    fit_sum[c] = decay * fit_sum[c] + (abs(e) if abs(e) < clip else clip)
                    fit_weight[c] = decay * fit_weight[c] + 1.0
                if use and burning:  # collect the first cycle, then start from its phase means
                    if seen[c] == 0:
                        first_slot[c] = slot
                    total[c] += yv
                    seen[c] += 1
                    level[c] = total[c] / seen[c]
                    for k in range(components[c]):
                        sums[c, k, phase[k]] += yv
                        counts[c, k, phase[k]] += 1
                    if seen[c] >= periods[c] or slot - first_slot[c] + 1 >= periods[c]:
                        burnt[c] = True
                        for k in range(components[c]):
                            for j in range(sizes[c, k]):
                                inner = counts[c, k, j] > 0
                                mean = sums[c, k, j] / counts[c, k, j] if inner else 0.0
                                values[c, k, j] = mean - level[c] if inner else 0.0
                if use and judged and accept:  # a confirmed shift: keep the old model
                    old_level[c] = level[c]
                    old_values[c] = values[c]
                    level[c] += pending[c]
                    timer[c] = return_window + 1
                if use and judged and recur:
                    values[c, 0, phase[0]] += again
                if use and judged and restore:
                    level[c] = old_level[c]
                    values[c] = old_values[c]
                    timer[c] = 0
                learning = use and not burning
                if learning and not math.isfinite(level[c]):
                    level[c] = yv
                    warm = False
                else:
                    warm = learning and started and not judged
                if (learning and judged and not is_outlier) or warm:
                    rate = max(level_rate, 1.0 / (errors[c] + 2 + periods[c]))
                    rest = e if warm else e_eff
                    level[c] += rate * rest
                    rest = rest * (1 - rate)
                    for k in range(components[c]):
                        values[c, k, phase[k]] += season_rates[c, k] * rest
                        rest = rest * (1 - season_rates[c, k])
                if (learning and judged) or warm:
                    clipped = abs(e) if warm else min(abs(e_eff), bound)
                    if components[c] > 0:
                        now = overall  # (the scale's sums have not moved since)
                        seen_ratio = clipped / now if now > 0 else 1.0
                        ratio[c, phase[0]] = (
                            PHASE_MEMORY * ratio[c, phase[0]] + (1 - PHASE_MEMORY) * seen_ratio
                        )
                        clipped = clipped / phase_ratio
                    scale_sum[c] = decay * scale_sum[c] + clipped
                    scale_weight[c] = decay * scale_weight[c] + 1.0
                    errors[c] += 1
                if learning:
                    pending[c] = e_eff if judged and is_outlier else np.nan
                    if components[c] > 0:
                        recurring[c, phase[0]] = pending[c]
                if use:
                    timer[c] = max(timer[c] - 1, 0)
                if use and judged:  # a run of outliers: a new regime, restart level and scale
                    run[c] = run[c] + 1 if is_outlier else 0
                    if run[c] >= regime_run:
                        level[c] = yv - seasonal
                        scale_sum[c] = 0.0
                        scale_weight[c] = 0.0
                        errors[c] = 0
                        pending[c] = np.nan
                        timer[c] = 0
                        run[c] = 0
            plain = fits[0] if not math.isnan(fits[0]) else np.inf
            best, best_fit = 0, np.inf
            for c in range(1, n):
                if readies[c] and not math.isnan(fits[c]) and fits[c] < best_fit:
                    best, best_fit = c, fits[c]
            chosen = best if best_fit < margin * plain else 0
            forecast[g, t], error[g, t] = outs[chosen, 0], outs[chosen, 1]
            scale[g, t] = outs[chosen, 2]
            count[g, t] = np.int64(outs[chosen, 3])
            outlier[g, t], ready[g, t] = outliers[chosen], readies[chosen]
            period[g, t] = periods[chosen]
            settled[g, t] = readies.all()
