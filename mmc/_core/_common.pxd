"""Declarations shared by the mmc._core kernels.

The random numbers of the kernels: a 32-bit xorshift generator (Marsaglia,
2003) whose state is seeded from an integer drawn in Python from the
estimator's ``random_state``, so that a run is reproducible whatever the
number of threads running restarts.
"""

from libc.stdint cimport uint32_t, uint64_t


cdef inline uint32_t _xorshift(uint32_t *state) noexcept nogil:
    """Next value of Marsaglia's xorshift32 generator (state never 0)."""
    state[0] ^= state[0] << 13
    state[0] ^= state[0] >> 17
    state[0] ^= state[0] << 5
    return state[0]


cdef inline Py_ssize_t _rand_below(uint32_t *state, Py_ssize_t n) noexcept nogil:
    """Uniform integer in [0, n), n < 2**32, from the high bits (no modulo bias
    worth mentioning: at most n / 2**32)."""
    return <Py_ssize_t> ((<uint64_t> _xorshift(state) * <uint64_t> n) >> 32)


cdef inline uint32_t _seed_state(uint32_t seed) noexcept nogil:
    # xorshift has the fixed point 0; any other state has period 2**32 - 1.
    return seed if seed != 0 else 2463534242u
