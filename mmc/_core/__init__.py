"""Compiled kernels of mmc (Cython). Private: use the estimators."""
