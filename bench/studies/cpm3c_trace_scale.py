"""CPM3C's C relative to the total variance of the data instead of the top one.

CPM3C's objective is ``s/2 |W|^2 + C loss`` with ``s`` the variance of the
data along its principal direction, so that C does not depend on the
scale of X. On data whose variance is spread over many directions (tf-idf
text: the total variance is 40-500 times the top one, against 1-10 on
tabular data and digits) the same C weighs the loss far more against the
margin. This study fits CPM3C with C given relative to the total variance
``t`` (the mean squared distance of the samples to their mean): a value
C' is passed as ``C = C' s / t``, on

* ``suite``, ``pairs``, ``generated``: the groups of
  :mod:`mmc.bench._study_cases` (two clusters);
* ``multiclass``: the robustness suite's 16 multiclass cases and the 25 of
  ``bench/studies/cpm3c_starts.py``;
* ``topics``: the 22 tf-idf corpora of :mod:`mmc.bench._text_corpus`.

``default`` is the library's C (20, relative to s). Labels only score.
Run from /tmp with mmc installed::

    python -I bench/studies/cpm3c_trace_scale.py OUT.json default,35,70,140

then ``python -I bench/studies/cpm3c_trace_scale.py report OUT.json``.
"""

import importlib.util
import json
import os
import sys
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans

from mmc import CPM3C
from mmc._rows import column_means
from mmc._starts import principal_component
from mmc.bench._robustness_data import multiclass_cases
from mmc.bench._study_cases import (
    case_line,
    group_table,
    two_class_study_cases,
)
from mmc.bench._text_corpus import topic_corpus_cases
from mmc.metrics import clustering_error


def _starts_cases():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cpm3c_starts.py")
    spec = importlib.util.spec_from_file_location("cpm3c_starts", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.cases()


def cases():
    for group, name, X, y, kernel in two_class_study_cases():
        if kernel == "linear":
            yield group, name, X, y
    for case in multiclass_cases():
        X, y = case.load()
        yield "multiclass", case.name, X, y
    for name, X, y in _starts_cases():
        yield "multiclass", name, X, y
    for name, X, y in topic_corpus_cases():
        yield "topics", name, X, y


def variance_ratio(X):
    """Total variance over the top one (as CPM3C estimates the top one)."""
    X = (
        sp.csr_matrix(X, dtype=np.float64)
        if sp.issparse(X)
        else np.asarray(X, dtype=np.float64)
    )
    mean = column_means(X)
    if sp.issparse(X):
        total = X.multiply(X).sum() / X.shape[0] - mean @ mean
    else:
        total = ((X - mean) ** 2).sum() / X.shape[0]
    _, top = principal_component(X, mean, np.random.RandomState(0))
    return float(total / top)


def collect(out, settings):
    rows = []
    for group, name, X, y in cases():
        k = len(np.unique(y))
        ratio = variance_ratio(X)
        km = KMeans(k, n_init=10, random_state=0).fit(X)
        row = {
            "group": group,
            "case": name,
            "ratio": ratio,
            "kmeans": 100 * clustering_error(y, km.labels_),
        }
        for setting in settings:
            C = 20.0 if setting == "default" else float(setting) / ratio
            est = CPM3C(n_clusters=k, C=C, random_state=0).fit(X)
            row[setting] = 100 * clustering_error(y, est.labels_)
        rows.append(row)
        print(case_line(group, name, row), flush=True)
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)


def report(path):
    rows = json.load(open(path))
    fixed = ("group", "case", "ratio", "kmeans")
    settings = [key for key in rows[0] if key not in fixed]
    headers = ["C = 20 (default)" if s == "default" else f"C' = {s}" for s in settings]
    print("\n".join(group_table(rows, settings, headers)))


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    if sys.argv[1] == "report":
        report(sys.argv[2])
    else:
        collect(sys.argv[1], sys.argv[2].split(","))
