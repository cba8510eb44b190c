import json
import sys

cur = json.load(open("/work/main/bench/robustness/current/robustness.json"))[
    "two_class"
]["cases"]
for path in sys.argv[1:]:
    rows = json.load(open(path))
    names = [
        k
        for k in next(iter(rows.values()))
        if not k.endswith("_t") and k not in ("p", "tk", "km")
    ]
    for name in names:
        new = [rows[c][name] for c in rows]
        old = [cur[c]["scores"][name]["error"] for c in rows]
        km = [cur[c]["scores"]["KMeans"]["error"] for c in rows]
        worse_new = sum(a > k + 1 for a, k in zip(new, km))
        worse_old = sum(a > k + 1 for a, k in zip(old, km))
        print(
            f"{path.split('/')[-1]:18s} {name:16s} n={len(new)}",
            f"old {sum(old) / len(old):6.2f} ({worse_old})",
            f"new {sum(new) / len(new):6.2f} ({worse_new})",
            f"KMeans {sum(km) / len(km):6.2f}",
        )
