#!/usr/bin/env python3
"""Writes a synthetic mgsim trace of N layers for the loading benchmarks
(docs/performance.md), laid out like the shipped traces (json.dumps, indent 1).

Each layer has a weight of 1e3..4e6 and a bias of 16..4096 fp32 elements, a
backward time of 20 us..2 ms and per-tensor ready offsets; the values come
from Python's random.Random(seed), so a given N and seed give the same file.

  usage: bench/make_trace.py LAYERS OUT.json [--seed S]
"""
import argparse
import json
import random


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("layers", type=int)
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    layers = []
    for l in range(args.layers):
        backward = rng.randint(20_000, 2_000_000) * 1e-9
        layers.append({
            "name": f"layer{l}",
            "params": [rng.randint(1_000, 4_000_000), rng.randint(16, 4_096)],
            "dtype_bytes": 4,
            "backward_time_s": backward,
            "grad_ready_s": [backward, round(backward * rng.uniform(0.1, 0.9), 9)],
        })
    trace = {
        "format": "mgsim-trace",
        "version": 1,
        "model": f"synthetic-{args.layers}",
        "batch_size": 64,
        "forward_time_s": round(sum(layer["backward_time_s"] for layer in layers) / 2, 9),
        "provenance": {"kind": "synthetic", "generator": "bench/make_trace.py", "seed": args.seed},
        "layers": layers,
    }
    with open(args.out, "w") as out:
        out.write(json.dumps(trace, indent=1) + "\n")


if __name__ == "__main__":
    main()
