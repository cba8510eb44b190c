"""The tolerance of class_balance="auto": the papers' 0.03 or the estimate's
own sampling noise.

``class_balance="auto"`` (mmc/_balance.py) admits clusters as unequal as
those of k-means on (a sample of) the data when their sizes are uneven
beyond sampling noise, plus a tolerance: the papers' 0.03 on the balance
term (``auto_class_balance``) and ``0.03 j / k`` on the share of the j
smallest clusters (``size_floors``, CPM3C's coordinate descent). A fixed
0.03 ignores how well the proportions are known: from m counted rows the
smallest proportion p has a standard error ``sqrt(p (1 - p) / m)``, 0.036
for p = 0.23 and m = 1250 (the blobs 1:4), so its lower confidence limit
at the level of the noise test (3 standard errors) lies 0.11 below p and
the papers' tolerance admits 0.015 of it.

The variant ``interval`` admits every proportion within that confidence
interval: the balance term at the interval's end (the smallest proportion
lowered and the largest raised by 3 standard errors), when that is more
than the papers' 0.03 above the estimate's; the floors likewise, each
cumulative share s_j of the j smallest clusters lowered by
``max(0.03 j / k, 3 sqrt(s_j (1 - s_j) / m))``. Even estimates keep the
papers' bound (or ODMC's noise bound). This script fits every estimator
(or those named) with its defaults, once with the rule as it is and once
with the variant, on every case of ``python -m mmc.bench robustness``
(57 two-class, 16 multiclass) and on the 45 digit pairs (``load_digits /
16``), ``random_state=0``, and prints the summaries and every case that
moved. Labels only score the results.

Run from the repository root with mmc installed::

    python -I bench/studies/balance_interval.py CPMMC CPM3C ODMC
    python -I bench/studies/balance_interval.py MultivariateMMC EvoMMC FastEvoMMC
"""

import contextlib
import sys
import time

import numpy as np

from mmc import _balance
from mmc.bench import _robustness
from mmc.bench._data import digit_pair_errors
from mmc.bench._registry import estimators as registry

ESTIMATORS = ("CPMMC", "CPM3C", "MultivariateMMC", "EvoMMC", "FastEvoMMC", "ODMC")


def _standard_errors(proportions, n_counted):
    return np.sqrt(proportions * (1.0 - proportions) / n_counted)


def interval_class_balance(sizes, balance_of, admit_noise=False):
    """:func:`mmc._balance.auto_class_balance` with the tolerance of the
    estimate's confidence interval."""
    proportions = _balance.uneven_proportions(sizes)
    if proportions is None:
        return ORIGINAL["auto_class_balance"](sizes, balance_of, admit_noise)
    z = _balance.NOISE_STANDARD_ERRORS
    errors = _standard_errors(proportions, float(np.sum(sizes)))
    widest = proportions.copy()
    low, high = int(np.argmin(proportions)), int(np.argmax(proportions))
    widest[low] = max(proportions[low] - z * errors[low], 0.0)
    widest[high] = min(proportions[high] + z * errors[high], 1.0)
    estimate = balance_of(proportions)
    tolerance = max(_balance.PAPER_CLASS_BALANCE, balance_of(widest) - estimate)
    class_balance = estimate + tolerance
    if balance_of is _balance.size_balance:
        class_balance = min(class_balance, 1.0)
    return class_balance


def interval_size_floors(
    sizes, n_samples, n_clusters, class_balance, admit_noise=False
):
    """:func:`mmc._balance.size_floors` with the same tolerance."""
    proportions = None
    if class_balance == "auto":
        proportions = _balance.uneven_proportions(sizes)
    if proportions is None:
        return ORIGINAL["size_floors"](
            sizes, n_samples, n_clusters, class_balance, admit_noise
        )
    steps = np.arange(1, n_clusters)
    shares = np.cumsum(np.sort(proportions))[:-1]
    errors = _standard_errors(shares, float(np.sum(sizes)))
    tolerance = np.maximum(
        _balance.PAPER_CLASS_BALANCE * steps / n_clusters,
        _balance.NOISE_STANDARD_ERRORS * errors,
    )
    return np.maximum(shares - tolerance, 0.0) * n_samples


ORIGINAL = {
    "auto_class_balance": _balance.auto_class_balance,
    "size_floors": _balance.size_floors,
}
VARIANT = {
    "auto_class_balance": interval_class_balance,
    "size_floors": interval_size_floors,
}


@contextlib.contextmanager
def rule(functions):
    for name, function in functions.items():
        setattr(_balance, name, function)
    try:
        yield
    finally:
        for name, function in ORIGINAL.items():
            setattr(_balance, name, function)


def main(names):
    start = time.perf_counter()
    entries = registry()
    results = {}
    for name in names:
        for label, functions in (("0.03", ORIGINAL), ("interval", VARIANT)):
            with rule(functions):
                suite = _robustness.run({name: entries[name]})
                pairs = digit_pair_errors(name)
            results[name, label] = (suite, pairs)
            print(name, label, f"{time.perf_counter() - start:.0f} s", file=sys.stderr)

    print(
        "| estimator | tolerance | two-class mean (57) | worse than KMeans + 1 "
        "| multiclass mean (16) | worse than KMeans + 1 | 45 digit pairs, mean |"
    )
    print("|---|---|---|---|---|---|---|")
    for (name, label), (suite, pairs) in results.items():
        print(_robustness.study_row(name, label, suite, pairs))
    print("\nCases that moved by more than 0.05 points (0.03 -> interval; KMeans):\n")
    for name in names:
        off, off_pairs = results[name, "0.03"]
        on, on_pairs = results[name, "interval"]
        print(f"* {name}:")
        for line in _robustness.moved_lines(name, off, on, off_pairs, on_pairs):
            print(f"  {line}")
    print(f"\nThe script took {time.perf_counter() - start:.0f} s.")


if __name__ == "__main__":
    main(sys.argv[1:] or list(ESTIMATORS))
