"""A Gaussian mixture instead of k-means behind ``class_balance="auto"``.

``class_balance="auto"`` (mmc/_balance.py) admits clusters as unequal as
those k-means finds. k-means prefers even clusters: on blobs of 1000 and
111 samples rescaled to unit variance (or to [0, 1]) it splits the large
blob evenly, the estimate is even and every estimator is held to the
papers' 0.03 (errors 40-50 %, `bench/robustness/current/`). A mixture of
Gaussians with their own covariances and weights can find such clusters.
This study replaces the estimate's cluster sizes by those of scikit-learn's
``GaussianMixture(covariance_type="full", n_init=3, reg_covar=1e-4)`` on
the first 10 principal components of the rows the estimate sees (the same
sample of at most 2000 rows; sparse rows through ``TruncatedSVD``), with
the noise test and the rest of the rule unchanged:

* ``mixture``: the mixture's sizes;
* ``union``: the more uneven of the mixture's and k-means' sizes (by the
  smallest share).

It prints, for every estimator given, the two-class and multiclass
summaries of ``python -m mmc.bench robustness`` and the 45 digit pairs'
mean (``load_digits / 16``, ``random_state=0``), and writes every error to
``balance_mixture_<variant>.json`` in the working directory. Labels only
score. A probe, not a candidate as it stands: scikit-learn's mixture and
PCA round with the BLAS kernel, which mmc's estimates may not.

Run from the repository root with mmc installed::

    python -I bench/studies/balance_mixture.py mixture CPMMC ODMC ...
"""

import contextlib
import json
import sys
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.decomposition import PCA, TruncatedSVD
from sklearn.mixture import GaussianMixture

from mmc import _balance
from mmc.bench import _robustness
from mmc.bench._data import digit_pair_errors
from mmc.bench._registry import estimators as registry

KMEANS_SIZES = _balance.kmeans_cluster_sizes
COMPONENTS = 10


def mixture_sizes(X, n_clusters, seed, take_rows=None, sparse=None, kmeans_runs=None):
    """:func:`mmc._balance.kmeans_cluster_sizes` with a Gaussian mixture."""
    if sparse is None:
        sparse = sp.issparse(X)
    if sparse and X.shape[0] > _balance.SAMPLE_ROWS:
        return None
    rows = _balance.sample_rows(X.shape[0], np.random.RandomState(seed))
    if take_rows is not None:
        sample = take_rows(X, np.arange(X.shape[0]) if rows is None else rows)
    else:
        sample = X if rows is None else X[rows]
    n_components = min(COMPONENTS, sample.shape[1])
    if sp.issparse(sample):
        scores = TruncatedSVD(n_components, random_state=0).fit_transform(sample)
    else:
        scores = PCA(n_components, random_state=0).fit_transform(sample)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mixture = GaussianMixture(
            n_clusters,
            covariance_type="full",
            n_init=3,
            random_state=seed,
            reg_covar=1e-4,
        ).fit(scores)
    return np.bincount(mixture.predict(scores), minlength=n_clusters)


def union_sizes(X, n_clusters, seed, **sample):
    """The more uneven of the k-means and the mixture sizes."""
    kmeans = KMEANS_SIZES(X, n_clusters, seed, **sample)
    mixture = mixture_sizes(X, n_clusters, seed, **sample)
    if kmeans is None or mixture is None:
        return kmeans
    smaller = kmeans.min() / kmeans.sum() <= mixture.min() / mixture.sum()
    return kmeans if smaller else mixture


VARIANTS = {"mixture": mixture_sizes, "union": union_sizes}


@contextlib.contextmanager
def estimated_by(sizes):
    _balance.kmeans_cluster_sizes = sizes
    try:
        yield
    finally:
        _balance.kmeans_cluster_sizes = KMEANS_SIZES


def main(variant, names):
    entries = registry()
    record = {}
    for name in names:
        with estimated_by(VARIANTS[variant]):
            suite = _robustness.run({name: entries[name]})
            pairs = digit_pair_errors(name)
        print(_robustness.study_row(name, variant, suite, pairs), flush=True)
        record[name] = {
            "errors": {
                case: entry["scores"][name]["error"]
                for group in ("two_class", "multiclass")
                for case, entry in suite[group]["cases"].items()
                if name in entry["scores"]
            },
            "pairs": pairs,
        }
    with open(f"balance_mixture_{variant}.json", "w") as f:
        json.dump(record, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
