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

from importlib import import_module as _import_module
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _metadata_version
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for static analysis; at run time, __getattr__ below
    from mmc import metrics
    from mmc._cpm3c import CPM3C
    from mmc._cpmmc import CPMMC
    from mmc._evo import EvoMMC, FastEvoMMC
    from mmc._multivariate import MultivariateMMC
    from mmc._odmc import ODMC

# The public names are imported when first used (PEP 562), so that importing
# a private module, as a Dask worker does for each function it is sent, does
# not import every estimator and scikit-learn with them (mmc/_rows.py).
_PUBLIC_MODULES = {
    "CPM3C": "mmc._cpm3c",
    "CPMMC": "mmc._cpmmc",
    "EvoMMC": "mmc._evo",
    "FastEvoMMC": "mmc._evo",
    "MultivariateMMC": "mmc._multivariate",
    "ODMC": "mmc._odmc",
    "metrics": "mmc.metrics",
}

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


def __getattr__(name):
    if name not in _PUBLIC_MODULES:
        raise AttributeError(f"module 'mmc' has no attribute {name!r}")
    module = _import_module(_PUBLIC_MODULES[name])
    value = module if name == "metrics" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
