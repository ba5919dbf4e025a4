#!/usr/bin/env python3
"""Plots the priority study of scripts/schedules_beyond.sh: the speedup of
ByteScheduler and P3 (each at its best partition) and of the optimal merge
over WFBP against the network bandwidth, one panel per model.

    python3 scripts/plot_priority_gain.py results/schedules-beyond/priority.csv docs/figures/schedules-beyond-priority

writes PREFIX.png and PREFIX.svg. Needs Debian's python3-matplotlib (installed
as scripts/plot_sweep.py does when it is missing).
"""

import csv
import os
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_sweep import ensure_matplotlib  # noqa: E402  (installs Debian's package or re-runs under it)


def main():
    ensure_matplotlib()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    source, prefix = sys.argv[1], sys.argv[2]
    by_model = OrderedDict()
    with open(source, newline="") as f:
        for row in csv.DictReader(f):
            by_model.setdefault(row["model"], []).append(row)
    fig, axes = plt.subplots(1, len(by_model), figsize=(5 * len(by_model), 4), sharey=True, squeeze=False)
    for ax, (model, rows) in zip(axes[0], by_model.items()):
        gbps = [float(r["gbps"]) for r in rows]
        wfbp = [float(r["wfbp_s"]) for r in rows]
        for column, label, marker in [("bytescheduler_s", "ByteScheduler (best partition)", "o"),
                                      ("p3_s", "P3 (best slice)", "s"),
                                      ("optimal_s", "optimal merge (no priority)", "^")]:
            ax.plot(gbps, [w / float(r[column]) for w, r in zip(wfbp, rows)], marker=marker, label=label)
        ax.set_xscale("log")
        ax.set_title(f"{model}, 16 GPUs, colocated PS")
        ax.set_xlabel("network bandwidth (Gb/s)")
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("speedup over WFBP")
    axes[0][-1].legend(loc="best", fontsize=8)
    fig.suptitle("Priority scheduling against bandwidth\nsimulated by mgsim from roofline-synthetic V100 fp16 zoo traces "
                 "(not measured)", fontsize=10)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{prefix}.{ext}", dpi=110)


if __name__ == "__main__":
    main()
