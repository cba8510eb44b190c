"""Two-class cases of the studies that measure a rule on data of many kinds.

Three groups (``STUDY_GROUPS``), built from what is installed:

* ``"suite"``: the 60 two-class cases of ``python -m mmc.bench robustness``;
* ``"pairs"``: the 45 digit pairs of ``load_digits / 16``;
* ``"generated"``: 128 tabular cases from scikit-learn's
  ``make_classification`` (20 features of which 4 or 10 informative and 2
  redundant, one or two Gaussian clusters per class, class weights 0.5 to
  0.92, class separation 1 or 2, 300 or 1200 samples; min-max scaled and
  standardised), data none of the defaults was chosen on.

Every generator has a fixed seed, so the cases do not change with the
estimators' seed.
"""

import numpy as np
from sklearn.datasets import load_digits, make_classification
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from mmc.bench._robustness import MARGIN
from mmc.bench._robustness_data import two_class_cases

STUDY_GROUPS = ("suite", "pairs", "generated")


def generated_cases():
    """The ``generated`` group: ``(name, X, y)`` for each of the 128 cases."""
    seed = 0
    for per_class in (1, 2):
        for n_samples in (300, 1200):
            for weight in (0.5, 0.7, 0.85, 0.92):
                for separation in (1.0, 2.0):
                    for informative in (4, 10):
                        X, y = make_classification(
                            n_samples,
                            20,
                            n_informative=informative,
                            n_redundant=2,
                            n_clusters_per_class=per_class,
                            weights=[weight],
                            class_sep=separation,
                            flip_y=0.0,
                            random_state=seed,
                        )
                        seed += 1
                        name = (
                            f"c{per_class} n{n_samples} w{weight} "
                            f"sep{separation:g} inf{informative}"
                        )
                        for short, scaler in (
                            ("minmax", MinMaxScaler()),
                            ("std", StandardScaler()),
                        ):
                            yield f"{name} {short}", scaler.fit_transform(X), y


def two_class_study_cases():
    """``(group, name, X, y, kernel)`` for every case of the three groups,
    in order; ``kernel`` is ``"rbf"`` on the suite's non-linear cases."""
    for case in two_class_cases():
        X, y = case.load()
        yield "suite", case.name, X, y, "rbf" if case.nonlinear else "linear"
    X_digits, y_digits = load_digits(return_X_y=True)
    X_digits = X_digits / 16.0
    for a in range(10):
        for b in range(a + 1, 10):
            rows = (y_digits == a) | (y_digits == b)
            pair = (y_digits[rows] == b).astype(int)
            yield "pairs", f"{a}v{b}", X_digits[rows], pair, "linear"
    for name, X, y in generated_cases():
        yield "generated", name, X, y, "linear"


def case_line(group, name, row):
    """A study's progress line for one case: the group, the case's name and
    every float of ``row`` (an error or a ratio) rounded to 2 decimals."""
    values = {key: round(v, 2) for key, v in row.items() if isinstance(v, float)}
    return f"{group} {name} {values}"


def group_table(rows, keys, headers=None):
    """A study's table: for each group of ``rows``, then all of them, the
    mean of each of ``keys`` and, in parentheses, the cases where it is
    more than ``MARGIN`` above KMeans's.

    ``rows`` are dicts with ``"group"``, ``"kmeans"`` and an error (%) per
    key; ``headers`` names the columns of the keys (the keys themselves by
    default). Returns the markdown lines.
    """
    headers = list(keys) if headers is None else list(headers)
    lines = [
        "| group (cases) | KMeans | " + " | ".join(headers) + " |",
        "|---|" + "---|" * (len(keys) + 1),
    ]
    for group in [*dict.fromkeys(row["group"] for row in rows), "all"]:
        chosen = [row for row in rows if group == "all" or row["group"] == group]
        kmeans = np.array([row["kmeans"] for row in chosen])
        cells = []
        for key in keys:
            errors = np.array([row[key] for row in chosen])
            worse = int(np.sum(errors > kmeans + MARGIN))
            cells.append(f"{errors.mean():.2f} ({worse})")
        lines.append(
            f"| {group} ({len(chosen)}) | {kmeans.mean():.2f} | "
            + " | ".join(cells)
            + " |"
        )
    return lines
