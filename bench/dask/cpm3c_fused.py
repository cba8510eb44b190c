"""CPM3C on a LocalCluster: where the time of the Dask fit goes, and a
chain with the steps on one worker fused into one task (tried, not adopted).

Run with ``python -I bench/dask/cpm3c_fused.py COMMAND`` (needs mmc[dask])
on the data of ``python -m mmc.bench dask`` (1e6 x 50 float32, two
clusters), persisted in blocks of whole segments on the benchmark's
LocalCluster (two single-threaded workers of 1 GB):

* ``busy [fused]``: one fit of ``CPM3C(n_clusters=2, random_state=0)``; the
  blocks' workers, the fit time and each worker's compute time by task
  kind (``get_task_stream``);
* ``one``: the fit with one restart (``n_init=1``) in memory and on the
  cluster, with the chain as it is and fused;
* ``ab``: the default fit three times with each chain, alternately, in
  one cluster.

The fused chain (:func:`fused_chain`, patched over
``mmc._dask.RowBlocks.chain``) groups the consecutive steps of a chain
(block, round) whose block state lives on the same worker into one task
that carries the weights from step to step itself, and passes the
weights (with every step's result) to the next group by one ``getitem``;
the states of a group stay in its output, which the next passes unwrap.
It makes the same steps in the same order: the same objective each time.
"""

import os
import sys
import time
from collections import defaultdict

from distributed import Client, get_task_stream, wait

from mmc import CPM3C, _dask
from mmc._cpm3c_dual import SEGMENT_ROWS
from mmc._dask import (
    _distributed_client,
    _guarded,
    align_to_segments,
    compute,
    prepare_block,
)
from mmc.bench._dask import dask_data, local_cluster

PLAIN_CHAIN = _dask.RowBlocks.chain
PLAIN_ON_BLOCK = _dask._on_block


class GroupStates(dict):
    """The states of the blocks of a fused group, by block index."""


def _unwrap(state):
    if isinstance(state, tuple) and len(state) == 2:
        if isinstance(state[0], GroupStates):
            return state[0][state[1]]
    return state


def _on_block(function, block, dtype, sparse, state, shared):
    return PLAIN_ON_BLOCK(function, block, dtype, sparse, _unwrap(state), shared)


def _group_blocks(steps):
    return list(dict.fromkeys(index for _, index in steps))


def _run_group(function, dtype, sparse, steps, blocks, states, carried, shared):
    carry, results = carried
    results = list(results)
    indices = _group_blocks(steps)
    current = {i: _unwrap(s) for i, s in zip(indices, states)}
    blocks = dict(zip(indices, blocks))
    for round_, i in steps:
        block = prepare_block(blocks[i], dtype, sparse)
        current[i], carry, result = function(block, current[i], carry, shared, round_)
        results.append(result)
    return GroupStates(current), (carry, results)


def _key(state):
    return (state[0] if isinstance(state, tuple) else state).key


def fused_chain(self, function, states, carry, *shared, n_rounds=1):
    """:meth:`mmc._dask.RowBlocks.chain` with the steps on one worker fused."""
    dask = self.dask
    shared = dask.delayed(shared, traverse=False)
    client = _distributed_client(dask)
    if client is not None:
        who = client.who_has([_key(s) for s in states])
        where = [tuple(who.get(_key(s), ())) or None for s in states]
    else:
        where = [None] * self.n_blocks
    groups = []
    for round_ in range(n_rounds):
        for i in range(self.n_blocks):
            last = groups[-1][-1][1] if groups else None
            if last is not None and where[i] is not None and where[last] == where[i]:
                groups[-1].append((round_, i))
            else:
                groups.append([(round_, i)])
    call = dask.delayed(_run_group, pure=False, nout=2)
    carried = (carry, [])
    states = list(states)
    for steps in groups:
        indices = _group_blocks(steps)
        task = call(
            function,
            self.dtype,
            self.sparse,
            steps,
            [self.blocks[i] for i in indices],
            [states[i] for i in indices],
            carried,
            shared,
        )
        for i in indices:
            states[i] = (task[0], i)
        carried = task[1]
    outputs = {s[0].key: s[0] for s in states}
    outputs, carried = _guarded(dask.persist, list(outputs.values()), carried)
    by_key = {o.key: o for o in outputs}
    states = [(by_key[s[0].key], s[1]) for s in states]
    carry, results = compute(dask, carried)
    return states, carry, list(results)


def use_chain(fused):
    _dask.RowBlocks.chain = fused_chain if fused else PLAIN_CHAIN
    _dask._on_block = _on_block if fused else PLAIN_ON_BLOCK


def timed_fit(X, **params):
    start = time.perf_counter()
    estimator = CPM3C(n_clusters=2, random_state=0, **params).fit(X)
    return estimator, time.perf_counter() - start


def busy(client, X, fused):
    use_chain(fused)
    placement = sorted((k[1], v[0]) for k, v in client.who_has(X).items())
    print("blocks", X.chunks[0], "on", placement)
    with get_task_stream() as stream:
        estimator, seconds = timed_fit(X)
    by_worker = defaultdict(lambda: defaultdict(float))
    for record in stream.data:
        key = record["key"]
        kind = (key[0] if isinstance(key, tuple) else key).split("-")[0]
        for part in record["startstops"]:
            if part["action"] == "compute":
                by_worker[record["worker"]][kind] += part["stop"] - part["start"]
    print(f"fused={fused}: {seconds:.2f} s, objective {estimator.objective_!r}")
    for worker, kinds in by_worker.items():
        total = sum(kinds.values())
        top = {k: round(v, 1) for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])}
        print(f"  {worker}: busy {total:.1f} s", top)


if __name__ == "__main__":
    command = sys.argv[1]
    with local_cluster() as cluster, Client(cluster) as client:
        lazy = dask_data(1_000_000, 0)
        aligned = align_to_segments(lazy, SEGMENT_ROWS).persist()
        wait([aligned])
        print("load average", os.getloadavg(), flush=True)
        if command == "busy":
            busy(client, aligned, fused=sys.argv[2:] == ["fused"])
        elif command == "one":
            reference, in_memory = timed_fit(lazy.compute(), n_init=1)
            for fused in (False, True):
                use_chain(fused)
                estimator, seconds = timed_fit(aligned, n_init=1)
                same = estimator.objective_ == reference.objective_
                print(
                    f"n_init=1, fused={fused}: in memory {in_memory:.2f} s, "
                    f"Dask {seconds:.2f} s (ratio {seconds / in_memory:.2f}), "
                    f"objective as in memory: {same}",
                    flush=True,
                )
        elif command == "ab":
            for repeat in range(3):
                for fused in (False, True):
                    use_chain(fused)
                    estimator, seconds = timed_fit(aligned)
                    print(
                        f"round {repeat}, fused={fused}: {seconds:.2f} s, objective "
                        f"{estimator.objective_!r}, load {os.getloadavg()[0]:.2f}",
                        flush=True,
                    )
        else:
            raise SystemExit(f"unknown command {command!r}")
