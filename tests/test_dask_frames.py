"""Dask DataFrames: fitted partition by partition as the Dask array of their
values (never gathered on the client), their column names kept as
``feature_names_in_``, and clear errors for what is not a table of numbers."""

import numpy as np
import pandas as pd
import pytest
from _dask_cluster import local_client
from sklearn.datasets import make_blobs

from mmc import CPM3C, CPMMC, ODMC, EvoMMC, FastEvoMMC, MultivariateMMC

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

DASK_ESTIMATORS = [
    CPMMC,
    MultivariateMMC,
    lambda **params: CPM3C(n_clusters=3, **params),
]
PARTITION_ROWS = 100


def _frame(dtype=np.float64, columns=("a", "b", "c", "d")):
    X, _ = make_blobs(n_samples=400, centers=3, n_features=len(columns), random_state=0)
    return pd.DataFrame(X.astype(dtype), columns=list(columns))


def _partitioned(frame):
    return dd.from_pandas(frame, chunksize=PARTITION_ROWS, sort=False)


@pytest.fixture
def never_gathered(monkeypatch):
    """A Dask DataFrame converted whole by ``numpy.asarray`` (scikit-learn's
    validation does that) fails the test."""

    def gathered(self, *args, **kwargs):
        raise AssertionError("the Dask DataFrame was gathered on the client")

    monkeypatch.setattr(type(_partitioned(_frame())), "__array__", gathered)


@pytest.mark.parametrize("Estimator", DASK_ESTIMATORS, ids=["CPMMC", "MMMC", "CPM3C"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_frame_fit_equals_the_fit_of_its_values(
    sync_scheduler, never_gathered, Estimator, dtype
):
    frame = _frame(dtype)
    values = da.from_array(frame.to_numpy(), chunks=(PARTITION_ROWS, -1))
    on_frame = Estimator(random_state=0).fit(_partitioned(frame))
    on_values = Estimator(random_state=0).fit(values)
    np.testing.assert_array_equal(on_frame.labels_, on_values.labels_)
    np.testing.assert_array_equal(on_frame.coef_, on_values.coef_)
    np.testing.assert_array_equal(on_frame.feature_names_in_, ["a", "b", "c", "d"])
    assert not hasattr(on_values, "feature_names_in_")
    # predict and decision_function: lazy Dask arrays, partition by partition.
    labels = on_frame.predict(_partitioned(frame))
    assert isinstance(labels, da.Array)
    np.testing.assert_array_equal(labels.compute(), on_frame.labels_)
    np.testing.assert_array_equal(
        on_frame.decision_function(_partitioned(frame)).compute(),
        on_frame.decision_function(frame),
    )


def test_frame_fit_on_a_local_cluster(never_gathered):
    frame = _frame()
    with local_client():
        est = CPMMC(random_state=0).fit(_partitioned(frame))
        labels = est.predict(_partitioned(frame)).compute()
    np.testing.assert_array_equal(labels, est.labels_)
    np.testing.assert_array_equal(est.labels_, CPMMC(random_state=0).fit(frame).labels_)


def test_frame_columns_of_other_numbers_are_float64(sync_scheduler):
    frame = _frame().round().astype({"a": "int64", "b": "Int64"})
    frame["c"] = frame["c"] > 0
    est = CPMMC(random_state=0).fit(_partitioned(frame))
    expected = CPMMC(random_state=0).fit(frame.to_numpy(dtype=np.float64))
    np.testing.assert_array_equal(est.labels_, expected.labels_)


@pytest.mark.parametrize(
    "dtypes", [{"b": "bool"}, {"b": "int8"}, {"b": "Int64"}], ids=str
)
def test_frame_values_take_the_dtype_of_the_in_memory_fit(sync_scheduler, dtypes):
    """float32 columns with booleans or small integers are fitted in
    float32, as scikit-learn's validation gives them in memory (not in a
    float64 copy); nullable integers make float64."""
    from sklearn.utils.validation import check_array

    from mmc._dask import RowBlocks
    from mmc._dask_api import frame_values

    frame = _frame(np.float32)
    frame["b"] = frame["b"].round()
    frame = frame.astype(dtypes)
    in_memory = check_array(frame, dtype=[np.float64, np.float32])
    values, _ = frame_values(_partitioned(frame))
    assert RowBlocks(values).dtype == in_memory.dtype
    on_frame = CPMMC(random_state=0).fit(_partitioned(frame))
    np.testing.assert_array_equal(
        on_frame.labels_, CPMMC(random_state=0).fit(frame).labels_
    )


def test_frame_feature_names(sync_scheduler):
    est = CPMMC(random_state=0).fit(_partitioned(_frame()))
    renamed = _partitioned(_frame().rename(columns={"a": "z"}))
    # Checked when predict is called, not when its result is computed.
    with pytest.raises(ValueError, match="Feature names unseen at fit time"):
        est.predict(renamed)
    unnamed = CPMMC(random_state=0).fit(_partitioned(_frame(columns=range(4))))
    assert not hasattr(unnamed, "feature_names_in_")
    with pytest.raises(TypeError, match="all input features have string names"):
        CPMMC().fit(_partitioned(_frame(columns=("a", 1, 2, 3))))


def test_bad_frames(sync_scheduler):
    frame = _frame()
    with pytest.raises(ValueError, match="got a Dask Series"):
        CPMMC().fit(_partitioned(frame)["a"])
    with pytest.raises(ValueError, match=r"columns \['e'\] .* not numbers"):
        CPMMC().fit(_partitioned(frame.assign(e="x")))
    est = CPMMC(random_state=0).fit(frame)
    with pytest.raises(ValueError, match=r"columns \['e'\] .* not numbers"):
        est.predict(_partitioned(frame.assign(e="x")))
    missing = frame.astype({"a": "Float64"})
    missing.loc[3, "a"] = pd.NA
    with pytest.raises(ValueError, match="NaN"):
        CPMMC().fit(_partitioned(missing))


@pytest.mark.parametrize(
    "Estimator", [ODMC, EvoMMC, FastEvoMMC], ids=lambda e: e.__name__
)
def test_other_estimators_refuse_frames(never_gathered, Estimator):
    with pytest.raises(TypeError, match="Dask arrays or DataFrames.*CPMMC, CPM3C"):
        Estimator().fit(_partitioned(_frame()))
