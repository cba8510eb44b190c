"""CPM3C's Dask series size by size: ``python -m mmc.bench dask
--estimators CPM3C`` for one size at a time (each in a LocalCluster of its
own), every size's result written as it ends, then the report, JSON and
figure of the whole series, as ``mmc.bench dask`` writes them.

    python -I bench/dask/cpm3c_sizes.py OUT_DIR [MAX_ROWS]
"""

import json
import os
import sys

from mmc.bench import _dask as dask_bench


def main(out, max_rows=None):
    os.makedirs(out, exist_ok=True)
    rows = []
    for n_samples in dask_bench.SIZES:
        if max_rows is not None and n_samples > max_rows:
            break
        part = os.path.join(out, f"size_{n_samples}.json")
        if not os.path.exists(part):
            dask_bench.SIZES = (n_samples,)
            result = dask_bench.run(estimators=["CPM3C"])
            with open(part, "w") as f:
                json.dump(result["estimators"]["CPM3C"]["rows"][0], f, indent=1)
        with open(part) as f:
            rows.append(json.load(f))
        print(n_samples, rows[-1]["dask_zarr"]["time"], flush=True)
    result = {
        "n_features": dask_bench.N_FEATURES,
        "block_rows": dask_bench.BLOCK_ROWS,
        "workers": 2,
        "worker_memory_limit": dask_bench.WORKER_MEMORY,
        "estimators": {
            "CPM3C": {"rows": rows, "zarr_slope_from_1e6": dask_bench._zarr_slope(rows)}
        },
    }
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(result, f, indent=1)
    dask_bench.plot(result, os.path.join(out, "dask_scaling.png"))
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(dask_bench.markdown(result, "dask_scaling.png"))
    print("\n".join(dask_bench.summary_lines(result)))


if __name__ == "__main__":
    main(sys.argv[1], int(float(sys.argv[2])) if len(sys.argv) > 2 else None)
