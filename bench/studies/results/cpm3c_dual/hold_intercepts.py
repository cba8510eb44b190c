"""Coordinate descent with the intercepts of the start's SVM held at zero.

The cutting plane fits the SVM of a two-cluster start through the mean (see
:class:`mmc.CPM3C`). This runs CPM3C (defaults, coordinate descent) on the
45 digit pairs over seeds 0-2 as it is (``free``) or with the same hold
(``hold``), by the ``hold_intercepts`` argument that
``mmc._cpm3c_dual.DualMulticlassSVM`` had at commit bbd88c2 (it was removed
after this measurement, being unused). The labels score only.

Usage, from /tmp, at bbd88c2::

    python -I hold_intercepts.py free
    python -I hold_intercepts.py hold
"""

import itertools
import sys
import warnings

import numpy as np

import mmc._cpm3c_dual as dual
from mmc import CPM3C
from mmc.bench._data import digits
from mmc.metrics import clustering_error


def main():
    warnings.simplefilter("ignore")
    if sys.argv[1] == "hold":
        init = dual.DualMulticlassSVM.__init__

        def held(self, X, x_mean, n_clusters, *args, **options):
            options["hold_intercepts"] = n_clusters == 2
            init(self, X, x_mean, n_clusters, *args, **options)

        dual.DualMulticlassSVM.__init__ = held
    for seed in (0, 1, 2):
        errors = [
            100 * clustering_error(y, CPM3C(random_state=seed).fit(X).labels_)
            for X, y in (digits(p) for p in itertools.combinations(range(10), 2))
        ]
        print(sys.argv[1], seed, f"{np.mean(errors):.3f}")


if __name__ == "__main__":
    main()
