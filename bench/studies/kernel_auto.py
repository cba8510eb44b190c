"""The measure of ``kernel="auto"`` on every case of the robustness suite.

    python -I bench/studies/kernel_auto.py

Prints, per case (two-class and multiclass), the relative spread of the
squared distances between samples (``mmc.kernels.distance_spread``), the
effective dimension ``2 / spread**2`` and the kernel that ``"auto"``
takes; then the range of the spread on the text-like cases and on the
others. Labels are not used.
"""

from mmc.bench._robustness_data import multiclass_cases, two_class_cases
from mmc.kernels import distance_spread, resolve_kernel


def main():
    spreads = {"text": [], "other": []}
    print("| case | kind | spread | effective dimension | auto |")
    print("|---|---|---|---|---|")
    for case in two_class_cases() + multiclass_cases():
        X, _ = case.load()
        spread = distance_spread(X)
        kernel = resolve_kernel(X, "auto")
        spreads["text" if case.kind == "text" else "other"].append(spread)
        print(
            f"| {case.name} | {case.kind} | {spread:.3f} | {2 / spread**2:.0f} "
            f"| {kernel} |"
        )
    for group, values in spreads.items():
        low, high = min(values), max(values)
        print(f"\n{group}: {len(values)} cases, spread {low:.3f}-{high:.3f}")


if __name__ == "__main__":
    main()
