"""``predict`` on the training samples against ``labels_`` for EvoMMC and
FastEvoMMC with k > 2 clusters, with the fitted offsets (``intercept_``)
and without them (the largest least-squares fit alone, as before 370ed48).

On each multiclass case of ``python -m mmc.bench robustness`` (default
parameters, ``random_state=0``) it prints the share (%) of the training
samples whose predicted cluster differs from ``labels_``.

Run from the repository root with mmc installed::

    python -I bench/studies/predict_labels.py
"""

import warnings

import numpy as np

from mmc import EvoMMC, FastEvoMMC
from mmc.bench._robustness_data import multiclass_cases


def main():
    warnings.simplefilter("ignore")
    names = ("EvoMMC", "FastEvoMMC")
    print(
        "| case | n | k | "
        + " | ".join(f"{name} without / with offsets" for name in names)
        + " |"
    )
    print("|---|---:|---:|" + "---|" * len(names))
    for case in multiclass_cases():
        X, y = case.load()
        n_clusters = np.unique(y).size
        cells = []
        for Estimator in (EvoMMC, FastEvoMMC):
            fit = Estimator(n_clusters=n_clusters, random_state=0).fit(X)
            decision = fit.decision_function(X)
            without = np.argmax(decision - fit.intercept_, axis=1)
            with_offsets = fit.predict(X)
            cells.append(
                f"{100 * np.mean(without != fit.labels_):.2f} / "
                f"{100 * np.mean(with_offsets != fit.labels_):.2f}"
            )
        print(
            f"| {case.name} | {X.shape[0]} | {n_clusters} | " + " | ".join(cells) + " |"
        )


if __name__ == "__main__":
    main()
