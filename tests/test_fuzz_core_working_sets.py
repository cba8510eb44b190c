"""Hypothesis runs of the reference comparisons of the estimators' kernels.

The kernel tests of CPMMC's working-set updates and of CPM3C compare each
Cython kernel with its NumPy twin on a few fixed shapes, with data seeded
from the shape. Here Hypothesis draws the shape (n = 1 and d = 1
included), the number of clusters, the dtype and dense or CSR storage, and
runs the same comparisons on them: the assertions are those of the kernel
tests, called as functions (the modules are imported as modules, so pytest
does not collect their tests twice).
"""

import numpy as np
import test_core_cpm3c as cpm3c_tests
import test_core_cpmmc as cpmmc_tests
from hypothesis import given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, database=None)

shapes = st.tuples(st.integers(1, 60), st.integers(1, 15))
dtypes = st.sampled_from([np.float32, np.float64])


@SETTINGS
@given(shape=shapes, dtype=dtypes, sparse=st.booleans())
def test_cpmmc_apply_flips(shape, dtype, sparse):
    cpmmc_tests.test_apply_flips_one_call_matches_reference(shape, dtype, sparse)


@SETTINGS
@given(shape=shapes, dtype=dtypes, sparse=st.booleans())
def test_cpmmc_most_violated(shape, dtype, sparse):
    cpmmc_tests.test_most_violated_matches_reference(shape, dtype, sparse)


@SETTINGS
@given(shape=shapes, dtype=dtypes, sparse=st.booleans(), k=st.integers(2, 8))
def test_cpm3c_assign(shape, dtype, sparse, k):
    cpm3c_tests.test_assign_matches_reference(dtype, sparse, shape, k)


@SETTINGS
@given(shape=shapes, dtype=dtypes, sparse=st.booleans(), k=st.integers(2, 8))
def test_cpm3c_most_violated(shape, dtype, sparse, k):
    cpm3c_tests.test_most_violated_matches_reference(dtype, sparse, shape, k)


@SETTINGS
@given(shape=shapes, dtype=dtypes, sparse=st.booleans(), k=st.integers(2, 8))
def test_cpm3c_apply_changes(shape, dtype, sparse, k):
    cpm3c_tests.test_apply_changes_matches_recomputation(dtype, sparse, shape, k)
