"""Whether a change keeps every label: fit every estimator on the
robustness suite's two-class and multiclass cases (defaults,
``random_state=0``, ``kernel="rbf"`` on the non-linear cases as in the
suite) and save the labels, then compare two such files.

To compare a commit with the one before, check the earlier one out into a
worktree, copy the compiled kernels next to its sources (the editable
install's ``build/cp311/mmc/_core/*.so``), and point ``BASE`` at it: the
script then imports that tree instead of the installed mmc::

    git worktree add /tmp/base HEAD~1
    cp build/cp311/mmc/_core/*.so /tmp/base/mmc/_core/
    BASE=/tmp/base python -I bench/studies/same_labels.py save /tmp/before.npz
    python -I bench/studies/same_labels.py save /tmp/after.npz
    python -I bench/studies/same_labels.py compare /tmp/before.npz /tmp/after.npz

(The kernels must be those of both commits: only for changes outside
``mmc/_core``.) Labels only; nothing is scored.
"""

import os
import sys
import warnings

if __name__ == "__main__" and os.environ.get("BASE"):
    # The editable install's finder would import the installed tree first.
    sys.meta_path[:] = [f for f in sys.meta_path if "Mesonpy" not in type(f).__name__]
    sys.path.insert(0, os.environ["BASE"])

import numpy as np  # noqa: E402

ESTIMATORS = ("CPMMC", "MultivariateMMC", "CPM3C", "EvoMMC", "FastEvoMMC", "ODMC")


def save(path):
    """Labels of every estimator on every case, keyed ``group|case|name``."""
    import mmc
    from mmc.bench._registry import estimators
    from mmc.bench._robustness_data import multiclass_cases, two_class_cases

    warnings.simplefilter("ignore")
    print(f"mmc from {os.path.dirname(mmc.__file__)}", file=sys.stderr)
    entries = estimators()
    labels = {}
    for group, cases in (("two", two_class_cases()), ("multi", multiclass_cases())):
        for case in cases:
            X, y = case.load()
            k = np.unique(y).size
            for name in ESTIMATORS:
                entry = entries[name]
                if k > 2 and entry.two_clusters_only:
                    continue
                rbf = {"kernel": "rbf"} if case.nonlinear and entry.kernel else {}
                estimator = entry.make(k, 0, **rbf).fit(X)
                labels[f"{group}|{case.name}|{name}"] = estimator.labels_
            print(case.name, file=sys.stderr, flush=True)
    np.savez(path, **labels)


def compare(before, after):
    """Print the fits whose labels differ."""
    first, second = np.load(before), np.load(after)
    if sorted(first.files) != sorted(second.files):
        raise SystemExit("the files hold different fits")
    differ = [k for k in first.files if not np.array_equal(first[k], second[k])]
    print(f"{len(first.files)} fits, {len(differ)} with other labels")
    for key in differ:
        print(f"  {key}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["save"] and len(sys.argv) == 3:
        save(sys.argv[2])
    elif sys.argv[1:2] == ["compare"] and len(sys.argv) == 4:
        compare(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)
