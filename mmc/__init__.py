"""Maximum margin clustering with a Cython core, in the style of scikit-learn.

Public API
----------
CPM3C
    Multiclass maximum margin clustering by the cutting-plane method.
CPMMC
    Binary maximum margin clustering by the cutting-plane method.
EvoMMC, FastEvoMMC
    Least-squares maximum margin clustering by an evolutionary search, on the
    exact kernel matrix or on a Nystroem approximation of it.
MultivariateMMC
    Binary maximum margin clustering that optimises NMI, Rand index or F-beta.
ODMC
    Optimal margin distribution clustering by mirror descent over labellings.
metrics
    Clustering scores: accuracy/error after the best matching of clusters to
    classes, NMI, Rand index and pair-counting F_beta.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _metadata_version

from mmc import metrics
from mmc._cpm3c import CPM3C
from mmc._cpmmc import CPMMC
from mmc._evo import EvoMMC, FastEvoMMC
from mmc._multivariate import MultivariateMMC
from mmc._odmc import ODMC

# The version is defined once, in meson.build (project(version:)), from which
# the build writes it into the package metadata.
try:
    __version__ = _metadata_version("mmc")
except PackageNotFoundError:  # imported without being installed
    __version__ = "0+unknown"

__all__ = [
    "CPM3C",
    "CPMMC",
    "EvoMMC",
    "FastEvoMMC",
    "MultivariateMMC",
    "ODMC",
    "__version__",
    "metrics",
]
