"""Benchmarks of mmc: ``python -m mmc.bench``.

The command clusters real and synthetic data with the estimators of mmc and
with the baselines a user would otherwise pick, and writes what it measured
to an output directory: ``results.json`` (every measurement and the
environment), ``report.md`` (tables) and PNG figures. Times are reported with
ratios against a baseline timed in the same process on the same data.

Run ``python -m mmc.bench --help`` for the options.
"""
