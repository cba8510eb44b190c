"""How ``random_state`` reaches the stages of a fit.

``check_random_state(random_state)``, called once in ``fit``, gives the
fit's generator. Stages that need randomness of their own (a restart, the
landmarks of a kernel map, a mutation loop in Cython) get an integer seed
drawn from it, ``seed_of(...)``: Cython kernels take it as the state of their
xorshift generator, Python stages make their generator with
``np.random.RandomState(seed)``. Seeds are drawn before the stages run, so
that the result does not depend on how many threads run them.
"""

import copy

import numpy as np

# Seeds are drawn in [0, MAX_SEED), as scikit-learn does for its Cython code.
MAX_SEED = np.iinfo(np.int32).max


def draw_seeds(random_state, size=None):
    """Seeds for ``size`` stages (one seed if None) from a fit's generator."""
    return random_state.randint(MAX_SEED, size=size)


def starting_random_state(random_state):
    """``random_state`` as a fit starts from it, for a second fit that must
    draw what the first drew (the refit of :mod:`mmc._balance_cut`): a
    ``RandomState`` instance is copied before the fit draws from it (a
    clone taken after the fit would copy the state the fit left), an
    integer or None is itself."""
    if isinstance(random_state, np.random.RandomState):
        return copy.deepcopy(random_state)
    return random_state
