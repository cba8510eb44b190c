"""Labels of fits on Dask arrays against the in-memory fit, on the digit pairs.

Run from the repository root with ``python -I bench/dask/agreement.py``
(needs mmc[dask]); it prints the pairs whose labels differ and, per
estimator, storage and dtype, the smallest agreement after the best
matching and the number of pairs with identical labels. The Dask arrays
have blocks of 100 rows and run on the single-threaded local scheduler
(the result does not depend on the scheduler: tests/test_dask.py).
"""

import itertools

import dask
import dask.array as da
import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_digits

from mmc import CPMMC, MultivariateMMC
from mmc.metrics import clustering_error

digits = load_digits()
agreements = {}
with dask.config.set(scheduler="sync"):
    for pair in itertools.combinations(range(10), 2):
        mask = np.isin(digits.target, pair)
        for dtype in (np.float64, np.float32):
            X = (digits.data[mask] / 16).astype(dtype)
            for Estimator in (CPMMC, MultivariateMMC):
                expected = Estimator(random_state=0).fit(X).labels_
                for storage in ("dense", "csr"):
                    data = X if storage == "dense" else sp.csr_matrix(X)
                    chunked = da.from_array(
                        data, chunks=(100, -1), asarray=storage == "dense"
                    )
                    labels = Estimator(random_state=0).fit(chunked).labels_
                    agreement = 1 - clustering_error(expected, labels)
                    key = (Estimator.__name__, storage, np.dtype(dtype).name)
                    agreements.setdefault(key, []).append(agreement)
                    if agreement < 1:
                        print(pair, key, agreement)
for key, values in agreements.items():
    identical = sum(value == 1 for value in values)
    print(key, f"min {min(values):.4f}", f"identical {identical} / {len(values)}")
