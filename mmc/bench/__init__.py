"""Benchmarks of mmc: ``python -m mmc.bench``.

The command clusters real and synthetic data with the estimators of mmc and
with the baselines a user would otherwise pick, and writes what it measured
to an output directory: ``results.json`` (every measurement and the
environment), ``report.md`` (tables) and PNG figures. Times are reported with
ratios against a baseline timed in the same process on the same data.

Run ``python -m mmc.bench --help`` for the options.

:func:`tune_by_labels` is the papers' protocol (a grid search scored with
the true labels), for comparing an estimator with a published number on
labelled data; ``python -m mmc.bench papers`` runs it on every row of the
papers' tables that the digits rebuild.
"""

from mmc.bench._tuning import tune_by_labels

__all__ = ["tune_by_labels"]
