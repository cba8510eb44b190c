"""MultivariateMMC in memory at growing n: the time of its searches for the
most violated relabelling against the whole fit.

Two Gaussian clusters in 50 float32 features (the data of
``python -m mmc.bench dask``), ``MultivariateMMC(random_state=0)`` with its
defaults (NMI loss), for n = 3e5, 1e6, 3e6 and 1e7. The search of each
cutting-plane iteration (``_most_violated_relabelling``: the sort of each
side by |f| and ``most_violated_table``) is timed by wrapping it. Prints a
Markdown table and the log-log slopes of the fit and of the search time
against n.

    python -I bench/studies/multivariate_search.py
"""

import time

import numpy as np

import mmc._multivariate as multivariate
from mmc import MultivariateMMC

SIZES = (300_000, 1_000_000, 3_000_000, 10_000_000)


def timed_fit(n_samples):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(n_samples, 50)).astype(np.float32)
    X[: n_samples // 2, 0] += 4.0
    spent = {"search": 0.0, "table": 0.0, "calls": 0}
    search = multivariate._RelabellingConstraints._most_violated_relabelling
    table = multivariate.most_violated_table

    def timed_search(*args):
        start = time.perf_counter()
        result = search(*args)
        spent["search"] += time.perf_counter() - start
        spent["calls"] += 1
        return result

    def timed_table(*args):
        start = time.perf_counter()
        result = table(*args)
        spent["table"] += time.perf_counter() - start
        return result

    multivariate._RelabellingConstraints._most_violated_relabelling = timed_search
    multivariate.most_violated_table = timed_table
    try:
        start = time.perf_counter()
        MultivariateMMC(random_state=0).fit(X)
        spent["fit"] = time.perf_counter() - start
    finally:
        multivariate._RelabellingConstraints._most_violated_relabelling = search
        multivariate.most_violated_table = table
    return spent


def main():
    print(
        "| n | fit (s) | searches (s) | of which most_violated_table (s) | searches |"
    )
    print("|---:|---:|---:|---:|---:|")
    rows = []
    for n in SIZES:
        spent = timed_fit(n)
        rows.append(spent)
        print(
            f"| {n:,} | {spent['fit']:.2f} | {spent['search']:.2f} | "
            f"{spent['table']:.2f} | {spent['calls']} |",
            flush=True,
        )
    logs = np.log(SIZES[1:])
    for key in ("fit", "search", "table"):
        values = np.log([r[key] for r in rows[1:]])
        slope = np.polyfit(logs, values, 1)[0]
        print(f"\nlog-log slope of {key} from n = 1e6: {slope:.2f}")


if __name__ == "__main__":
    main()
