"""The papers' balance bound where its clustering cuts the data better.

ODMC's ``class_balance="auto"`` sets its bound from the clusters of
k-means: where k-means finds them uneven, a bound that admits as uneven a
split, and an offset; where they are even within the sampling noise (with
the linear kernel), the noise itself plus 0.03. The looser bound can lead
the fit astray: on the digit pair 5v9 (k-means 206:156, 16 % error, even
within the noise) ODMC at the bound 0.188 ends on a balanced split of 21 %
error, even started from the classes; at the papers' 0.03 it errs 1.4 %.
Both fits are
maximum-margin answers to different questions; which one to keep is asked
of the data, by the measure of the graph start (:mod:`mmc._graph_start`):
the normalised cut of the rows' 10-nearest-neighbour graph, low where a
split runs through sparse regions (the density argument of
minimum-density hyperplanes). Where the bound set from the data is looser
than the papers', the fit is repeated at the papers' bound and kept if its
labels cut the graph strictly better. No constant is fitted
(``bench/studies/balance_cut.md``).

The rule applies to data of at most ``SAMPLE_ROWS`` rows, whose graph holds
every row: the refit costs a fit of the whole data, which at a million
dense rows doubled ODMC's time (4.6 -> 9.4 s in the full benchmark), where
the graph would see a sample and, with the noise of ``"auto"``'s estimate
about 0.003, the two bounds barely differ. With a kernel, the graph is
that of the rows themselves (the rbf kernel's distances order neighbours
as the Euclidean ones do).
"""

from sklearn.base import clone

from mmc._balance import PAPER_CLASS_BALANCE, SAMPLE_ROWS
from mmc._graph_start import SampleDistances, neighbour_graph, normalised_cut


def keep_the_better_cut(estimator, X):
    """Refit ``estimator`` (fitted on the validated X) at the papers' bound
    and keep that fit if its labels cut the nearest-neighbour graph
    better; sets ``paper_bound_cut_``.

    Only for a bound set from the data (``"auto"``, or ``"stable"`` where
    it keeps ``"auto"``) looser than the papers', initial labels named by a
    method, and X of at most ``SAMPLE_ROWS`` rows.
    """
    estimator.paper_bound_cut_ = False
    if (
        estimator._class_balance_setting != "auto"
        or estimator.class_balance_ <= PAPER_CLASS_BALANCE
        or not isinstance(estimator.init, str)
        or X.shape[0] > SAMPLE_ROWS
    ):
        return
    paper = clone(estimator).set_params(class_balance=PAPER_CLASS_BALANCE).fit(X)
    affinity = neighbour_graph(SampleDistances(X))
    if normalised_cut(affinity, paper.labels_, 2) < normalised_cut(
        affinity, estimator.labels_, 2
    ):
        # Every fitted attribute but the stability of the bound set from
        # the data (what "stable" measured); the parameters stay the user's.
        kept = set(estimator.get_params(deep=False)) | {"balance_stability_"}
        estimator.__dict__.update(
            (name, value) for name, value in paper.__dict__.items() if name not in kept
        )
        estimator.paper_bound_cut_ = True
