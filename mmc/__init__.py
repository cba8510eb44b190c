"""Maximum margin clustering with a Cython core, in the style of scikit-learn.

Public API
----------
metrics
    Clustering scores: accuracy/error after the best matching of clusters to
    classes, NMI, Rand index and pair-counting F_beta.
"""

from mmc import metrics

# Estimators are re-exported here as they land, e.g.
#     from mmc._cpmmc import CPMMC
# and added to __all__.

# Keep equal to `version` in pyproject.toml (tests/test_package.py checks).
__version__ = "0.1.0"

__all__ = [
    "__version__",
    "metrics",
]
