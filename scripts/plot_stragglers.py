#!/usr/bin/env python3
"""Plots the stragglers study (docs/stragglers.md) from a run CSV: per GPU
count, each schedule's mean throughput relative to the first schedule
(synchronous MG-WFBP), as grouped bars labelled with the absolute samples/s.

    python3 scripts/plot_stragglers.py results/stragglers-study.csv docs/figures/stragglers-study "title"

writes PREFIX-throughput.png and .svg. Needs python3-matplotlib (installed as
scripts/plot_sweep.py does).
"""

import os
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_sweep import ensure_matplotlib, read_rows  # noqa: E402

COLUMN = "mean_throughput_samples_per_s"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    path, prefix, title = sys.argv[1:]
    title = title.replace("\\n", "\n")
    ensure_matplotlib()
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "mgsim"
    import matplotlib.pyplot as plt

    rows = read_rows(path)
    gpus = list(OrderedDict.fromkeys(int(r["gpus"]) for r in rows))
    schedules = list(OrderedDict.fromkeys(r["schedule"] for r in rows))
    value = {(int(r["gpus"]), r["schedule"]): float(r[COLUMN]) for r in rows}
    fig, ax = plt.subplots(figsize=(10, 4.8))
    width = 0.8 / len(schedules)
    for i, schedule in enumerate(schedules):
        xs = [g + (i - (len(schedules) - 1) / 2) * width for g in range(len(gpus))]
        ys = [value[(p, schedule)] / value[(p, schedules[0])] for p in gpus]
        bars = ax.bar(xs, ys, width, label=schedule, color=plt.get_cmap("tab10")(i % 10))
        for bar, p in zip(bars, gpus):
            ax.annotate(f"{value[(p, schedule)]:.3g}", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                        ha="center", va="bottom", fontsize=6, rotation=90)
    ax.axhline(1.0, color="black", linewidth=0.6)
    ax.set_xticks(range(len(gpus)))
    ax.set_xticklabels([f"{p} GPUs" for p in gpus])
    ax.set_ylabel(f"mean samples/s relative to {schedules[0]}\n(bar labels: samples/s)")
    ax.set_ylim(0, max(value[(p, s)] / value[(p, schedules[0])] for p in gpus for s in schedules) * 1.25)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, ncol=2, loc="upper left")
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    for ext in ("png", "svg"):
        out = f"{prefix}-throughput.{ext}"
        fig.savefig(out, dpi=120, metadata={"Date": None} if ext == "svg" else {"Software": None})
        print(out)


if __name__ == "__main__":
    main()
