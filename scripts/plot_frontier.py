#!/usr/bin/env python3
"""Plots plan frontiers (`mgsim plan --format csv`, docs/plan.md): memory per
GPU against iteration time, one staircase per (model, GPU count), with
horizontal lines at the given memory limits.

    python3 scripts/plot_frontier.py results/plan-bert-large-*.csv -o docs/figures/plan-bert-large --limit 40 --limit 80

writes PREFIX.png and PREFIX.svg. Needs Debian's python3-matplotlib (installed
on demand as plot_sweep.py does).
"""

import argparse
import csv
import sys
from collections import OrderedDict

from plot_sweep import ensure_matplotlib

GIB = 1024.0 ** 3


def read_frontiers(paths):
    """{(model, gpus): ([(time_ms, memory_gib), ...] of the frontier, the same of pure data parallelism)}
    in file order."""
    frontiers = OrderedDict()
    for path in paths:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        if not rows or "memory_bytes" not in rows[0] or "kind" not in rows[0]:
            sys.exit(f"plot_frontier: {path}: not a `mgsim plan --format csv` file")
        for r in rows:
            key = (r["model"], int(r["gpus"]))
            point = (float(r["time_s"]) * 1e3, int(r["memory_bytes"]) / GIB)
            frontiers.setdefault(key, ([], []))[0 if r["kind"] == "frontier" else 1].append(point)
    return frontiers


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="+", help="frontier CSV files")
    parser.add_argument("-o", "--output", required=True, help="output prefix (PREFIX.png, PREFIX.svg)")
    parser.add_argument("--limit", type=float, action="append", default=[], help="memory limit line, GiB (repeatable)")
    args = parser.parse_args()
    frontiers = read_frontiers(args.csv)

    ensure_matplotlib()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (model, gpus), (points, data_parallel) in frontiers.items():
        points.sort()
        line, = ax.step([p[0] for p in points], [p[1] for p in points], where="post", marker="o", markersize=3,
                        label=f"{model}, {gpus} GPUs")
        ax.plot([p[0] for p in data_parallel], [p[1] for p in data_parallel], linestyle="none", marker="x",
                color=line.get_color(), label=f"  pure data parallelism, {gpus} GPUs")
    for limit in args.limit:
        ax.axhline(limit, color="grey", linestyle="--", linewidth=0.8)
        ax.annotate(f"{limit:g} GiB", (1.0, limit), xycoords=("axes fraction", "data"), ha="right", va="bottom",
                    fontsize=8, color="grey")
    ax.set_xscale("log")
    ax.set_xlabel("iteration time (ms, simulated)")
    ax.set_ylabel("memory per GPU (GiB)")
    ax.set_title("Pareto frontiers of parallelization plans (roofline-simulated)")
    ax.grid(True, which="both", linewidth=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{args.output}.{ext}", dpi=120)
    print(f"plot_frontier: wrote {args.output}.png and {args.output}.svg")


if __name__ == "__main__":
    main()
