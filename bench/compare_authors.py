#!/usr/bin/env python3
"""Side by side: the MG-WFBP authors' merge planner against mgsim's `mgwfbp`.

Takes a checkout of HKBU-HPML/MG-WFBP (nothing of it is copied into this
repository) and runs, unmodified, its `_generate_groups_mgwfbp` (from
distributed_optimizer.py) with its `predict_allreduce_time_with_size` and
`check_unique` (from utils.py). Those functions are lifted out of the files
with `ast`, so horovod, torch and MPI are not needed; the optimizer object
they expect is a plain namespace holding the trace. Their cost model is
T(M) = alpha + beta * M for M bytes; mgsim's `recursive-doubling` collective
at P = 2 with gamma = 0 is the same line, log2(2) (alpha + M beta).

Each layer of the mgsim trace is one tensor for the authors' planner (its
elements summed, fp32), so the run below uses a one-tensor-per-layer copy of
the trace for both. Prints, per (alpha, beta): the group sizes of both
planners in backward order,
whether they agree, the iteration ends (the authors' "Predicted tb+tc",
mgsim's last message end, both from the start of the backward pass) and the
time each planner took.

  usage: bench/compare_authors.py CHECKOUT [--trace FILE] [--mgsim PATH]
"""
import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (alpha s, beta s/B): the authors' 10 GbE fit at 2 and 16 workers from
# distributed_optimizer.py, and the 10 GbE constants (2(P-1)alpha of a
# 2048-GPU ring as the start-up, beta = 1.2 / (9 Gbit/s in bytes)).
CASES = [
    (2.554691138304671e-06, 9.837548167872609e-11),
    (0.0009080981007148093, 7.395651186836712e-10),
    (2 * 2047 * 45.25e-6, 9.934107462565104e-10),
]


def lift(path, names):
    """The named top-level functions or methods of a Python file, as source."""
    with open(path) as f:
        tree = ast.parse(f.read())
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in names and node.name not in found:
            found[node.name] = ast.unparse(node)
    missing = set(names) - set(found)
    if missing:
        sys.exit(f"compare_authors: {path} has no {', '.join(sorted(missing))}")
    return found


def authors_planner(checkout):
    optimizer = os.path.join(checkout, "distributed_optimizer.py")
    utils_source = lift(os.path.join(checkout, "utils.py"), ["predict_allreduce_time_with_size", "check_unique"])
    utils = types.ModuleType("utils")
    for source in utils_source.values():
        exec(source, utils.__dict__)
    logged = []
    namespace = {
        "np": types.SimpleNamespace(sum=sum),  # only its log lines use numpy (np.sum of a list)
        "utils": utils, "rank": lambda: 0,
        "settings": types.SimpleNamespace(CONNECTION="10GbE", FP16=False),
        "logger": types.SimpleNamespace(info=lambda fmt, *args: logged.append((fmt, args))),
    }
    exec(lift(optimizer, ["_generate_groups_mgwfbp"])["_generate_groups_mgwfbp"], namespace)
    return namespace, logged


def run_authors(namespace, logged, names, elements, backward, alpha, beta):
    namespace["size"] = lambda: 2
    tensors = {n: types.SimpleNamespace(data=types.SimpleNamespace(numel=lambda e=e: e)) for n, e in zip(names, elements)}
    me = types.SimpleNamespace(alpha=alpha, beta=beta, size_commtime_dict=None, _named_parameters=tensors,
                               _seq_layernames=names, _layerwise_times=backward)
    logged.clear()
    start = time.perf_counter()
    groups, _ = namespace["_generate_groups_mgwfbp"](me)
    seconds = time.perf_counter() - start
    end = next(args[0] for fmt, args in logged if fmt.startswith("Predicted tb+tc"))
    return [len(g) for g in groups], end, seconds


def run_mgsim(mgsim, trace_file, forward_s, alpha, beta, folder):
    config = os.path.join(folder, "run.json")
    with open(config, "w") as f:
        json.dump({"trace": trace_file, "gpus": [2], "collective": "recursive-doubling",
                   "network": {"alpha_us": alpha * 1e6, "beta_s_per_byte": beta, "gamma_s_per_byte": 0},
                   "schedules": ["mgwfbp"]}, f)
    timeline = os.path.join(folder, "timeline.json")
    start = time.perf_counter()
    subprocess.run([mgsim, "run", "-c", config, "--timeline", timeline], check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    with open(timeline) as f:
        events = json.load(f)["traceEvents"]
    messages = [e for e in events if e.get("cat") == "allreduce"]
    groups = [len(m["args"]["layers"]) for m in messages]
    end_us = max(m["ts"] + m["dur"] for m in messages)
    return groups, end_us * 1e-6 - forward_s, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", help="a checkout of https://github.com/HKBU-HPML/MG-WFBP")
    parser.add_argument("--trace", default=os.path.join(ROOT, "traces", "googlenet-k80.json"))
    parser.add_argument("--mgsim", default=os.path.join(ROOT, "build", "src", "mgsim"))
    args = parser.parse_args()
    with open(args.trace) as f:
        trace = json.load(f)
    layers = trace["layers"]
    names = [layer["name"] for layer in layers]
    elements = [sum(layer["params"]) for layer in layers]
    backward = [layer["backward_time_s"] for layer in layers]
    namespace, logged = authors_planner(args.checkout)
    with tempfile.TemporaryDirectory() as folder:
        single = dict(trace, layers=[{"name": n, "params": [e], "dtype_bytes": 4, "backward_time_s": b}
                                     for n, e, b in zip(names, elements, backward)])
        single_file = os.path.join(folder, "trace.json")
        with open(single_file, "w") as f:
            json.dump(single, f)
        print("| alpha (s) | beta (s/B) | authors' groups | mgsim groups | same | authors' end (s) | mgsim end (s) "
              "| authors' planner (s) | mgsim run, whole process (s) |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for alpha, beta in CASES:
            theirs, their_end, their_s = run_authors(namespace, logged, names, elements, backward, alpha, beta)
            ours, our_end, our_s = run_mgsim(args.mgsim, single_file, trace["forward_time_s"], alpha, beta, folder)
            print(f"| {alpha:.6g} | {beta:.6g} | {len(theirs)}: {theirs} | {len(ours)}: {ours} | "
                  f"{'yes' if theirs == ours else 'NO'} | {their_end:.9f} | {our_end:.9f} | {their_s:.6f} | {our_s:.4f} |")


if __name__ == "__main__":
    main()
