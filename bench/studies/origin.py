"""Clusterings of data moved away from the origin, against the data as they are.

Recorded in bench/studies/origin.md. Standardised wine (178 samples, 13
features; two clusters, three for CPM3C and the rbf EvoMMC) and the same
data plus a constant c in every feature: the share (%) of the labels that
differ from those of the unmoved data after the best matching of the
clusters, for each estimator with ``random_state=0``; "error" when the fit
raised. Labels are compared with labels only (no classes are used).

    python -I bench/studies/origin.py
"""

import warnings

from sklearn.datasets import load_wine
from sklearn.preprocessing import StandardScaler

from mmc import CPM3C, CPMMC, ODMC, EvoMMC, FastEvoMMC, MultivariateMMC
from mmc.metrics import clustering_error

OFFSETS = (1.0, 1e2, 1e4, 1e6, 1e8, 1e10)
FITS = (
    (CPMMC, {}),
    (CPMMC, {"kernel": "rbf"}),
    (MultivariateMMC, {}),
    (ODMC, {}),
    (CPM3C, {"n_clusters": 3}),
    (EvoMMC, {"kernel": "rbf", "n_clusters": 3}),
    (FastEvoMMC, {"kernel": "rbf"}),
    (EvoMMC, {"kernel": "linear"}),
    (FastEvoMMC, {"kernel": "linear"}),
    (EvoMMC, {"kernel": "poly"}),
)


def main():
    warnings.simplefilter("ignore")
    X = StandardScaler().fit_transform(load_wine(return_X_y=True)[0])
    print("| estimator | " + " | ".join(f"c = {c:.0e}" for c in OFFSETS) + " |")
    print("|---|" + "---:|" * len(OFFSETS))
    for Estimator, kwargs in FITS:
        reference = Estimator(random_state=0, **kwargs).fit(X).labels_
        cells = []
        for offset in OFFSETS:
            try:
                labels = Estimator(random_state=0, **kwargs).fit(X + offset).labels_
                cells.append(f"{100 * clustering_error(reference, labels):.1f}")
            except Exception as exc:  # a crash is a result here
                cells.append(f"error ({type(exc).__name__})")
        name = Estimator.__name__ + "".join(f", {k}={v}" for k, v in kwargs.items())
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
