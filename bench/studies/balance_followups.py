"""Two more label-free rules for the class balance, measured (not adopted).

``class_balance="auto"`` bounds the cluster sizes by those of k-means
(mmc/_balance.py), and the estimators that bound the counts of their
labels (EvoMMC, FastEvoMMC, CPM3C's floors) end at that bound. Two rules
that would let the margin, not k-means, set the proportions:

* ``cascade``: the bound of a count-bounded estimator from the proportions
  of CPMMC's clustering (its balance constraint is on the mean decision
  value, which lets the cut follow the margin), ``|n_1 - n_2| / n + 0.03``,
  without the noise test;
* ``density``: after the default fit, the cut along the estimator's own
  decision values moves to the lowest Gaussian kernel density (Silverman's
  width) among the cuts whose share of positives is within half the noise
  test's spread (``1.5 / sqrt(n)``) of the fit's: the minimum-density
  hyperplane's criterion, the direction kept.

Each estimator is fitted with its defaults and with the rule
(``random_state=0``) on the three groups of ``mmc.bench._study_cases``
(the robustness suite's 57 two-class cases, the 45 digit pairs, 128
``make_classification`` cases), KMeans(n_init=10) in the same run. It
prints the mean error of each group, the count of cases the rule made
better / worse by more than a point, and the count worse than KMeans + 1,
then the cases whose error the rule moved by more than a point. Labels
only score the results.

Run from the repository root with mmc installed::

    python -I bench/studies/balance_followups.py cascade FastEvoMMC CPM3C EvoMMC
    python -I bench/studies/balance_followups.py density FastEvoMMC CPM3C CPMMC
"""

import sys
import warnings

import numpy as np
from sklearn.cluster import KMeans

from mmc import CPM3C, CPMMC, ODMC, EvoMMC, FastEvoMMC, MultivariateMMC
from mmc._balance import PAPER_CLASS_BALANCE, noise_spread, size_balance
from mmc.bench._study_cases import STUDY_GROUPS, two_class_study_cases
from mmc.metrics import clustering_error

ESTIMATORS = {
    "CPMMC": CPMMC,
    "CPM3C": lambda **params: CPM3C(n_clusters=2, **params),
    "MultivariateMMC": MultivariateMMC,
    "EvoMMC": EvoMMC,
    "FastEvoMMC": FastEvoMMC,
    "ODMC": ODMC,
}


def cascade_bound(X, kernel_params):
    """The ``cascade`` bound: CPMMC's imbalance plus the papers' 0.03."""
    labels = CPMMC(random_state=0, **kernel_params).fit(X).labels_
    proportions = np.bincount(labels, minlength=2) / labels.size
    return min(size_balance(proportions) + PAPER_CLASS_BALANCE, 1.0)


def density_cut(decision, labels):
    """Labels of the ``density`` rule from a fit's decision values."""
    n_samples = decision.size
    values = np.sort(decision)
    quartiles = np.subtract(*np.percentile(values, [75, 25]))
    spread = min(values.std(), quartiles / 1.34) if quartiles > 0 else values.std()
    width = 0.9 * spread * n_samples**-0.2
    half_window = noise_spread(n_samples) / 2.0
    share = labels.mean()
    low = max(1, int(np.ceil((share - half_window) * n_samples)))
    high = min(n_samples - 1, int(np.floor((share + half_window) * n_samples)))
    positives = np.arange(low, high + 1)
    cuts = (values[n_samples - positives - 1] + values[n_samples - positives]) / 2.0
    density = np.exp(-0.5 * ((cuts[:, None] - values[None, :]) / width) ** 2).sum(1)
    return (decision > cuts[np.argmin(density)]).astype(int)


def default_and_rule(rule, name, X, kernel_params):
    """Labels of the default fit and of the rule."""
    Estimator = ESTIMATORS[name]
    fit = Estimator(random_state=0, **kernel_params).fit(X)
    if rule == "cascade":
        bound = cascade_bound(X, kernel_params)
        variant = Estimator(random_state=0, class_balance=bound, **kernel_params)
        return fit.labels_, variant.fit(X).labels_
    decision = fit.decision_function(X)
    if decision.ndim == 2:
        decision = decision[:, 1] - decision[:, 0]
    # Positive decision values on the side of cluster 1.
    if decision[fit.labels_ == 1].mean() < decision[fit.labels_ == 0].mean():
        decision = -decision
    return fit.labels_, density_cut(decision, fit.labels_)


def main(rule, names):
    warnings.simplefilter("ignore")
    errors = {group: {"KMeans": []} for group in STUDY_GROUPS}
    moved = {name: [] for name in names}
    for group, case, X, y, kernel in two_class_study_cases():
        kernel_params = {} if kernel == "linear" else {"kernel": kernel}
        kmeans = KMeans(2, n_init=10, random_state=0).fit(X).labels_
        errors[group]["KMeans"].append(100.0 * clustering_error(y, kmeans))
        for name in names:
            labels = default_and_rule(rule, name, X, kernel_params)
            default, variant = (100.0 * clustering_error(y, f) for f in labels)
            errors[group].setdefault(name, []).append([default, variant])
            if abs(variant - default) > 1.0:
                moved[name].append(
                    f"{group} {case}: {default:.2f} -> {variant:.2f} "
                    f"({errors[group]['KMeans'][-1]:.2f})"
                )
        print(f"  {group} {case}", file=sys.stderr, flush=True)
    print(f"### Rule `{rule}`\n")
    print(
        "| group (cases) | KMeans | estimator | default: mean (worse than "
        "KMeans + 1) | rule: mean (worse than KMeans + 1) | rule better / "
        "worse by > 1 |"
    )
    print("|---|---|---|---|---|---|")
    for group in STUDY_GROUPS:
        kmeans = np.array(errors[group]["KMeans"])
        for name in names:
            default, variant = np.array(errors[group][name]).T
            print(
                f"| {group} ({kmeans.size}) | {kmeans.mean():.2f} | {name} | "
                f"{default.mean():.2f} ({np.sum(default > kmeans + 1)}) | "
                f"{variant.mean():.2f} ({np.sum(variant > kmeans + 1)}) | "
                f"{np.sum(variant < default - 1)} / {np.sum(variant > default + 1)} |"
            )
    print("\nCases moved by more than a point (default -> rule; KMeans):\n")
    for name in names:
        print(f"* {name}: " + "; ".join(moved[name]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
