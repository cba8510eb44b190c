"""Tests of mmc._core._common.minimize_max_affine.

``g(b) = max(0, max_k offsets[k] - slopes[k] * b)`` is minimised on
[lower, upper]; the kernel returns ``(b, g(b))`` with b the midpoint of the
set of minimisers. Its value is checked against scipy's linprog on the LP
``min t s.t. t >= offsets - slopes b, t >= 0, lower <= b <= upper``, and the
point against the breakpoint enumeration of _reference.minimize_max_affine.

The kernel widens the set of minimisers by a relative 1e-12 in value (to
absorb rounding at kinks), which moves its ends by about 1e-12 / |slope|; the
midpoint is therefore compared on instances whose non-zero slopes are not tiny.
"""

import numpy as np
import pytest
from _reference import max_affine, minimize_max_affine
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from mmc._core._common import minimize_max_affine as kernel


def _linprog_minimum(offsets, slopes, lower, upper):
    """Minimum of g on [lower, upper] as a 2-variable LP in (b, t)."""
    n_lines = len(offsets)
    result = linprog(
        c=[0.0, 1.0],
        A_ub=np.column_stack([-slopes, -np.ones(n_lines)]),
        b_ub=-offsets,
        bounds=[(lower, upper), (0.0, None)],
        method="highs",
    )
    assert result.status == 0, result.message
    return result.fun


def _check(offsets, slopes, lower, upper, check_midpoint=True):
    offsets = np.ascontiguousarray(offsets, dtype=np.float64)
    slopes = np.ascontiguousarray(slopes, dtype=np.float64)
    b, value = kernel(offsets, slopes, lower, upper)
    scale = (
        1.0 + np.abs(offsets).max() + np.abs(slopes).max() * max(abs(lower), abs(upper))
    )
    assert lower <= b <= upper
    # The reported value is g at the reported point...
    g_at_b = float(max_affine(offsets, slopes, b))
    assert value == pytest.approx(g_at_b, abs=1e-14 * scale)
    # ... and it is the minimum.
    lp = _linprog_minimum(offsets, slopes, lower, upper)
    assert value == pytest.approx(lp, abs=1e-9 * scale)
    b_ref, value_ref = minimize_max_affine(offsets, slopes, lower, upper)
    assert value == pytest.approx(value_ref, abs=1e-12 * scale)
    if check_midpoint:
        assert b == pytest.approx(b_ref, abs=1e-9 * (1.0 + abs(lower) + abs(upper)))
    return b, value


def _random_instance(rng):
    n_lines = int(rng.integers(1, 9))
    offsets = rng.normal(size=n_lines) * rng.choice([1.0, 10.0])
    slopes = rng.normal(size=n_lines) * rng.choice([1.0, 10.0])
    slopes[np.abs(slopes) < 0.1] = 0.1  # see the module docstring
    kind = rng.integers(6)
    if kind == 0:
        slopes[rng.random(n_lines) < 0.5] = 0.0  # flat lines
    elif kind == 1 and n_lines > 1:
        offsets[1] = offsets[0]  # ties: duplicated and concurrent lines
        slopes[1] = slopes[0]
    elif kind == 2:
        offsets -= 50.0  # every line below zero on much of the interval
    elif kind == 3:
        offsets[:] = offsets[0]  # all lines through one point at b = 0
    lower = float(rng.normal(scale=3.0))
    upper = lower if rng.random() < 0.1 else lower + float(rng.exponential(5.0))
    return offsets, slopes, lower, upper


def test_matches_linprog_and_reference_on_random_instances():
    rng = np.random.default_rng(0)
    values = []
    for _ in range(300):
        values.append(_check(*_random_instance(rng))[1])
    # The instances cover both a positive minimum and a flat zero minimum.
    assert 30 < sum(v == 0.0 for v in values) < 270


def test_tiny_slopes_give_the_minimum_value():
    # With slopes around 1e-3 the point may move by ~1e-9 (module docstring),
    # the value may not.
    rng = np.random.default_rng(1)
    for _ in range(100):
        offsets, slopes, lower, upper = _random_instance(rng)
        _check(offsets, slopes * 1e-2, lower, upper, check_midpoint=False)


def test_flat_zero_region_gives_its_midpoint():
    # 1 - 2b <= 0 for b >= 0.5 and b - 3 <= 0 for b <= 3: g = 0 on [0.5, 3].
    b, value = _check([1.0, -3.0], [2.0, -1.0], -10.0, 10.0)
    assert value == 0.0
    assert b == pytest.approx(1.75, rel=1e-12)
    # The interval cuts the zero region: the midpoint of [0.5, 2].
    b, value = _check([1.0, -3.0], [2.0, -1.0], -10.0, 2.0)
    assert (b, value) == (pytest.approx(1.25, rel=1e-12), 0.0)


def test_all_lines_below_zero_give_the_middle_of_the_interval():
    b, value = _check([-5.0, -1.0, -2.0], [1.0, -0.5, 0.0], -1.0, 0.5)
    assert (b, value) == (pytest.approx(-0.25, rel=1e-12), 0.0)


def test_unique_minimiser_at_a_kink():
    # max(2 - b, 2b - 1) is smallest, 1, at b = 1.
    b, value = _check([2.0, -1.0], [1.0, -2.0], -4.0, 4.0)
    assert b == pytest.approx(1.0, rel=1e-12)
    assert value == pytest.approx(1.0, rel=1e-12)


def test_one_line():
    # 3 - 2b: zero for b >= 1.5, the minimiser set is [1.5, 4].
    assert _check([3.0], [2.0], -2.0, 4.0) == (pytest.approx(2.75), 0.0)
    # Decreasing but positive on the interval: the minimum is at its end.
    assert _check([3.0], [2.0], -2.0, 1.0) == (pytest.approx(1.0), pytest.approx(1.0))
    # Increasing line: the minimum is at the lower end.
    assert _check([3.0], [-2.0], -1.0, 1.0) == (pytest.approx(-1.0), pytest.approx(1.0))


def test_zero_slopes_give_a_constant():
    b, value = _check([0.5, 2.0, -1.0], [0.0, 0.0, 0.0], -3.0, 1.0)
    assert (b, value) == (pytest.approx(-1.0), 2.0)
    # A flat line above the minimum of the others widens the set of minimisers.
    b, value = _check([2.0, 1.0, 1.0], [0.0, 1.0, -1.0], -5.0, 5.0)
    assert (b, value) == (pytest.approx(0.0, abs=1e-12), 2.0)


def test_degenerate_interval():
    for offsets, slopes in (([1.0, 2.0], [3.0, -1.0]), ([-4.0], [1.0])):
        b, value = _check(offsets, slopes, 0.75, 0.75)
        assert b == 0.75
        assert value == max_affine(offsets, slopes, 0.75)


def test_no_lines():
    assert kernel(np.empty(0), np.empty(0), -1.0, 3.0) == (1.0, 0.0)


def test_read_only_input():
    offsets, slopes = np.array([1.0, -3.0]), np.array([2.0, -1.0])
    offsets.flags.writeable = False
    slopes.flags.writeable = False
    assert kernel(offsets, slopes, -10.0, 10.0) == (pytest.approx(1.75), 0.0)


def test_large_interval_and_values():
    b, value = _check([1e6, -1e6], [1e3, -1e3], -1e9, 1e9)
    assert b == pytest.approx(1000.0, rel=1e-12) and value == 0.0


_grid = st.integers(-16, 16).map(lambda k: k / 4)


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    lines=st.lists(st.tuples(_grid, _grid), min_size=1, max_size=7),
    lower=_grid,
    width=st.integers(0, 24).map(lambda k: k / 4),
)
def test_property_on_a_grid(lines, lower, width):
    # Values on a grid of quarters: ties, parallel and concurrent lines,
    # zero slopes and flat minima come up often.
    offsets, slopes = np.array(lines).T
    _check(offsets, slopes, lower, lower + width)


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(
    n_lines=st.integers(1, 12),
    seed=st.integers(0, 2**32 - 1),
    scale=st.sampled_from([1e-3, 1.0, 1e3]),
)
def test_property_random_scales(n_lines, seed, scale):
    rng = np.random.default_rng(seed)
    offsets = rng.normal(size=n_lines) * scale
    slopes = rng.normal(size=n_lines)
    slopes[np.abs(slopes) < 0.1] = 0.0
    lower = float(rng.normal(scale=scale))
    upper = lower + float(rng.exponential(scale))
    _check(offsets, slopes, lower, upper)
