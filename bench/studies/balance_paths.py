"""The size floors of CPM3C's assignment step: the auction and the shortest
augmenting paths that finish it (mmc/_balance_paths.py).

Every call of ``mmc._balance.bound_prices`` in CPM3C's fits (defaults,
``random_state=0``) on the robustness suite's multiclass and topic cases,
and on three clusters of blobs (300:60:40) at ``class_balance=0.1``, is
recorded; for each, the auction run to its end (up to 10^6 rounds), the
auction at its cap of 50 rounds per cluster alone, and ``bound_prices``
(the cap, then the paths where floors are left): the rounds, whether the
floors hold, whether the assignment equals that of the auction run to its
end, and the time. Labels play no part. Run from /tmp with mmc installed::

    python -I bench/studies/balance_paths.py
"""

import time
import warnings

import numpy as np
from sklearn.datasets import make_blobs

import mmc._cpm3c_dual as dual
from mmc import CPM3C
from mmc._balance import bound_prices
from mmc._core._balance import bound_prices as auction
from mmc.bench._robustness_data import multiclass_cases, topic_cases


def calls_of(fit):
    """The (scores, lower) of every bound_prices call in ``fit()``."""
    calls = []

    def recorded(scores, lower, upper):
        calls.append((np.array(scores, dtype=np.float64), float(lower)))
        return bound_prices(scores, lower, upper)

    dual.bound_prices = recorded
    try:
        fit()
    finally:
        dual.bound_prices = bound_prices
    return calls


def measure(scores, lower):
    n, k = scores.shape
    end = np.zeros(k)
    rounds = auction(scores, lower, float(n), end, 10**6)
    best = np.argmax(scores + end, axis=1)
    capped = np.zeros(k)
    auction(scores, lower, float(n), capped, 50 * k)
    start = time.perf_counter()
    prices = bound_prices(scores, lower, float(n))
    seconds = time.perf_counter() - start
    filled = np.argmax(scores + prices, axis=1)
    return {
        "rounds": rounds,
        "capped_holds": bool(
            np.bincount(np.argmax(scores + capped, axis=1), minlength=k).min() >= lower
        ),
        "holds": bool(np.bincount(filled, minlength=k).min() >= lower),
        "same": bool(np.array_equal(filled, best)),
        "seconds": seconds,
    }


def main():
    warnings.simplefilter("ignore")
    fits = []
    for case in [*multiclass_cases(), *topic_cases()]:
        X, y = case.load()
        k = len(np.unique(y))
        if k > 2:
            fits.append((case.name, X, CPM3C(n_clusters=k, random_state=0)))
    X, _ = make_blobs([300, 60, 40], centers=[[0, 0], [3, 0], [0, 3]], random_state=1)
    fits.append(
        (
            "blobs 300:60:40, class_balance=0.1",
            X,
            CPM3C(n_clusters=3, class_balance=0.1, n_init=2, random_state=0),
        )
    )
    print(
        "| fit | calls | most rounds to the end | calls past the cap | "
        "floors unmet at the cap | bound_prices: floors hold, same as the end | "
        "its longest call (ms) |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, X, estimator in fits:
        calls = calls_of(lambda: estimator.fit(X))
        if not calls:
            continue
        rows = [measure(scores, lower) for scores, lower in calls]
        k = calls[0][0].shape[1]
        print(
            f"| {name} | {len(rows)} | {max(r['rounds'] for r in rows)} | "
            f"{sum(r['rounds'] > 50 * k for r in rows)} | "
            f"{sum(not r['capped_holds'] for r in rows)} | "
            f"{sum(r['holds'] and r['same'] for r in rows)} of {len(rows)} | "
            f"{1000 * max(r['seconds'] for r in rows):.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
