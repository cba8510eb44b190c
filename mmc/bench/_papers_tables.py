"""The published rows of the papers' tables that the digits of scikit-learn rebuild.

Every paper clustered the UCI "optical recognition of handwritten digits"
data: the 1,797 8x8 images of its test part, which is what
:func:`sklearn.datasets.load_digits` ships (the papers' table of data sets
gives 1,797 samples and 64 features). The benchmark uses ``load_digits``
with the features divided by 16; the papers do not say how they scaled
them.

Each row: the paper, its table, the data (``"3v8"`` a digit pair,
``"mean45"`` the mean over the 45 pairs, ``"0689"`` a digit subset), the
metric, the published value of the paper's method and of k-means (as the
paper printed it, ``None`` where it has none). Accuracies are turned into
errors (100 - accuracy) so that every percentage row reads the same way.

Rows that cannot be rebuilt here are in :data:`NOT_REBUILT`, with why.
"""

from collections import namedtuple

Row = namedtuple(
    "Row", ["paper", "table", "estimator", "data", "metric", "published", "kmeans"]
)

HARD_PAIRS = ("3v8", "1v7", "2v7", "8v9")

PAPERS = {
    "cpmmc": "Zhao, Wang and Zhang (2008), efficient maximum margin clustering "
    "via cutting plane algorithm (SDM)",
    "cpm3c": "Zhao, Wang and Zhang (2008), efficient multiclass maximum margin "
    "clustering (ICML)",
    "multivariate": "Zhao, Kwok and Zhang, maximum margin clustering with "
    "multivariate loss function",
    "evommc": "Gieseke, Pahikkala and Kramer (2009), fast evolutionary maximum "
    "margin clustering (ICML)",
    "odmc": "Zhang and Zhou, optimal margin distribution clustering (AAAI)",
}


def _rows(paper, table, estimator, metric, published, kmeans):
    return [
        Row(paper, table, estimator, data, metric, value, kmeans.get(data))
        for data, value in published.items()
    ]


# CPMMC paper, Table 5 "Clustering errors(%) on the various datasets"
# (columns KM and CPMMC; "UCI digits" is the mean over the 45 pairs).
_CPMMC_KM = {"3v8": 5.32, "1v7": 0.55, "2v7": 3.09, "8v9": 9.32, "mean45": 3.62}
_CPMMC = {"3v8": 3.08, "1v7": 0.0, "2v7": 0.0, "8v9": 2.26, "mean45": 0.62}

# CPM3C paper, Table 2 "Clustering accuracy(%)" and Table 3 "Rand Index"
# (UCIDig: the average over the 45 pairs; Dig 0689, Dig 1279: four digits).
_CPM3C_ACC = {
    "3v8": 96.92,
    "1v7": 100.0,
    "2v7": 100.0,
    "8v9": 97.74,
    "mean45": 99.38,
    "0689": 96.63,
    "1279": 94.01,
}
_CPM3C_KM_ACC = {
    "3v8": 94.68,
    "1v7": 94.45,
    "2v7": 96.91,
    "8v9": 90.68,
    "mean45": 96.38,
    "0689": 42.23,
    "1279": 40.42,
}
_CPM3C_RAND = {
    "3v8": 0.945,
    "1v7": 1.00,
    "2v7": 1.00,
    "8v9": 0.956,
    "mean45": 0.989,
    "0689": 0.968,
    "1279": 0.943,
}
_CPM3C_KM_RAND = {
    "3v8": 0.904,
    "1v7": 0.995,
    "2v7": 0.940,
    "8v9": 0.835,
    "mean45": 0.933,
    "0689": 0.696,
    "1279": 0.681,
}

# Multivariate-loss paper, Tables III (NMI), IV (Rand index) and V (F-measure
# with beta = 1.5), columns KM and MMC_multi.
_MULTI = {
    "nmi": ({"1v7": 1.00, "2v7": 1.00, "3v8": 0.861, "8v9": 0.860}, "III"),
    "rand": ({"1v7": 1.00, "2v7": 1.00, "3v8": 0.961, "8v9": 0.962}, "IV"),
    "fbeta": ({"1v7": 1.00, "2v7": 1.00, "3v8": 0.961, "8v9": 0.962}, "V"),
}
_MULTI_KM = {
    "nmi": {"1v7": 0.975, "2v7": 0.801, "3v8": 0.714, "8v9": 0.562},
    "rand": {"1v7": 0.995, "2v7": 0.940, "3v8": 0.904, "8v9": 0.835},
    "fbeta": {"1v7": 0.994, "2v7": 0.940, "3v8": 0.904, "8v9": 0.835},
}

# EvoMMC paper, Table 1 "Clustering errors in %" (columns KM, EvoMMC,
# FastEvoMMC; "UCI Digits" is the mean over the 45 pairs).
_EVO_KM = {"3v8": 5.32, "1v7": 0.55, "2v7": 3.09, "8v9": 9.32, "mean45": 2.62}
_EVO = {"3v8": 2.52, "1v7": 0.0, "2v7": 0.0, "8v9": 3.22, "mean45": 0.72}
_FAST_EVO = {"3v8": 2.58, "1v7": 0.0, "2v7": 0.0, "8v9": 3.78, "mean45": 0.81}


def _error(accuracies):
    return {k: round(100.0 - v, 2) for k, v in accuracies.items()}


ROWS = (
    _rows("cpmmc", "5", "CPMMC", "error", _CPMMC, _CPMMC_KM)
    + _rows("cpm3c", "2", "CPM3C", "error", _error(_CPM3C_ACC), _error(_CPM3C_KM_ACC))
    + _rows("cpm3c", "3", "CPM3C", "rand", _CPM3C_RAND, _CPM3C_KM_RAND)
    + [
        row
        for metric, (published, table) in _MULTI.items()
        for row in _rows(
            "multivariate",
            table,
            "MultivariateMMC",
            metric,
            published,
            _MULTI_KM[metric],
        )
    ]
    + _rows("evommc", "1", "EvoMMC", "error", _EVO, _EVO_KM)
    + _rows("evommc", "1", "FastEvoMMC", "error", _FAST_EVO, _EVO_KM)
)

# How far below the published value a tuned result may be and still count
# as reaching it: 1 point of error, 0.3 on the 45-pair means, 0.03 of NMI,
# and 0.02 of Rand index or F-beta (on an even pair one point of error moves
# the Rand index by about 0.02).
TOLERANCE = {"error": 1.0, "nmi": 0.03, "rand": 0.02, "fbeta": 0.02}
TOLERANCE_MEAN45 = {"error": 0.3, "rand": 0.006}

NOT_REBUILT = {
    "odmc": "Table 2 has one digit row, optdigits with 1,143 instances and 42 "
    "features: a two-class subset of the UCI digits (and of its features) the "
    "paper does not describe; the other 23 rows are UCI tabular sets not "
    "installed here.",
    "cpmmc": "Table 5 rows ionosphere, letter, satellite, Text-1/2 and MNIST: "
    "data not installed here.",
    "cpm3c": "Tables 2-3 rows letter, satellite, MNIST, Cora, WebKB, 20-news, "
    "RCV1 and the ten-class UCI digits (only its 45-pair mean is a row): data "
    "not installed here.",
    "multivariate": "Tables III-V rows ionosphere, ringnorm, letter, satellite, "
    "Text-1/2: data not installed here.",
    "evommc": "Table 1 rows ionosphere, letter, satellite and MNIST: data not "
    "installed here.",
}
