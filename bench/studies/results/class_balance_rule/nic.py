"""CPMMC / MultivariateMMC with the early stop of CPM3C (n_iter_no_change=10)."""

import json
import sys
import time
import warnings

import mmc
from mmc import _cpmmc_constraints
from mmc.bench._robustness_data import two_class_cases
from mmc.metrics import clustering_error

WS = _cpmmc_constraints._SubsetConstraints
WS.free = property(lambda self: self.size > 0)


def snapshot(self):
    return (self.coef.copy(), self.intercept, self.signs.copy(), self.decision.copy())


def restore(self, snap):
    self.coef, self.intercept, s, d = snap
    self.signs[:] = s
    self.decision[:] = d


WS.snapshot = snapshot
WS.restore = restore
nic = None if sys.argv[1] == "none" else int(sys.argv[1])
for cls in (mmc.CPMMC, mmc.MultivariateMMC):
    cls._n_iter_no_change = lambda self: nic
rows = {}
for case in two_class_cases():
    X, y = case.load()
    row = {}
    for name in ("CPMMC", "MultivariateMMC"):
        params = {"random_state": 0}
        if case.nonlinear:
            params["kernel"] = "rbf"
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            t = time.perf_counter()
            est = getattr(mmc, name)(**params).fit(X)
            row[name] = 100 * clustering_error(y, est.labels_)
            row[name + "_t"] = time.perf_counter() - t
            row[name + "_w"] = any("converge" in str(x.message) for x in w)
    rows[case.name] = row
    print(case.name, {k: round(v, 2) for k, v in row.items()}, flush=True)
json.dump(rows, open(sys.argv[2], "w"), indent=1)
