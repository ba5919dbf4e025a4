#!/usr/bin/env python3
"""Plots a sweep CSV (`mgsim sweep`, docs/sweeps.md): scaling efficiency and
throughput against the GPU count on a log2 axis, one line per schedule, one
panel per combination of the columns that vary besides the GPU count and the
schedule (model, network, collective, GPUs per node), or per --panel column.

    python3 scripts/plot_sweep.py results/mgwfbp-study.csv docs/figures/mgwfbp-study

writes PREFIX-efficiency.png/.svg and PREFIX-throughput.png/.svg (or one pair
per --metric). Needs Debian's python3-matplotlib; when it is missing the script
installs it with apt-get (as root or through sudo) and runs again under
/usr/bin/python3, where Debian's Python packages live.
"""

import argparse
import csv
import math
import os
import shutil
import subprocess
import sys
from collections import OrderedDict

DEBIAN_PYTHON = "/usr/bin/python3"
PANEL_CANDIDATES = ["model", "trace", "network", "collective", "gpus_per_node"]
METRICS = {
    "efficiency": ("scaling_efficiency", "scaling efficiency", 1.0),
    "throughput": ("throughput_samples_per_s", "throughput (samples/s)", 1.0),
    "iteration": ("iteration_time_s", "iteration time (ms)", 1e3),
    "speedup": ("speedup", "speedup", 1.0),
    "exposed": ("exposed_comm_s", "exposed communication (ms)", 1e3),
}


def ensure_matplotlib():
    """Imports matplotlib, installing Debian's package or switching interpreters if needed."""
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    if os.environ.get("MGSIM_PLOT_REEXEC"):
        sys.exit("plot_sweep: python3-matplotlib is still not importable after installing it")
    if not _debian_has_matplotlib():
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        print("plot_sweep: installing python3-matplotlib (Debian)", file=sys.stderr)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "python3-matplotlib"], check=True, env=env)
    os.environ["MGSIM_PLOT_REEXEC"] = "1"
    os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON] + sys.argv)


def _debian_has_matplotlib():
    if not os.path.exists(DEBIAN_PYTHON) or shutil.which("dpkg") is None:
        return False
    return subprocess.run(["dpkg", "-s", "python3-matplotlib"], capture_output=True).returncode == 0


def read_rows(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_sweep: {path}: no rows")
    for key in ("schedule", "gpus"):
        if key not in rows[0]:
            sys.exit(f"plot_sweep: {path}: no column '{key}' (not a sweep or run CSV?)")
    return rows


def panel_columns(rows, wanted):
    if wanted:
        missing = [c for c in wanted if c not in rows[0]]
        if missing:
            sys.exit(f"plot_sweep: no column {', '.join(missing)}")
        return wanted
    varying = [c for c in PANEL_CANDIDATES if c in rows[0] and len({r[c] for r in rows}) > 1]
    # The trace only matters where two traces share a model name.
    if "trace" in varying and "model" in varying:
        if len({r["trace"] for r in rows}) == len({r["model"] for r in rows}):
            varying.remove("trace")
    return varying


def group(rows, panels):
    """{panel title: {schedule: [(gpus, row), ...]}}, in the CSV's order."""
    out = OrderedDict()
    for row in rows:
        title = ", ".join(f"{row[c]}" if c in ("model", "trace") else f"{c} {row[c]}" for c in panels) or "all runs"
        lines = out.setdefault(title, OrderedDict())
        lines.setdefault(row["schedule"], []).append((int(row["gpus"]), row))
    return out


def plot(groups, metric, prefix, title):
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "mgsim"  # the same SVG bytes for the same CSV
    import matplotlib.pyplot as plt

    column, label, scale = METRICS[metric]
    n = len(groups)
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.6 * rows), squeeze=False, sharex=True)
    schedules = list(OrderedDict.fromkeys(s for lines in groups.values() for s in lines))
    # Up to 10 schedules: tab10, solid; past 10 the next ten dashed, so no two lines look alike.
    colors = {s: plt.get_cmap("tab10")(i % 10) for i, s in enumerate(schedules)}
    styles = {s: "-" if i < 10 else "--" for i, s in enumerate(schedules)}
    markers = "os^vD<>ph*"
    gpus = sorted({g for lines in groups.values() for points in lines.values() for g, _ in points})
    for i, (panel, lines) in enumerate(groups.items()):
        ax = axes[i // cols][i % cols]
        for schedule, points in lines.items():
            points.sort(key=lambda p: p[0])
            xs = [p[0] for p in points]
            ys = [float(p[1][column]) * scale for p in points]
            ax.plot(xs, ys, marker=markers[schedules.index(schedule) % len(markers)], markersize=4,
                    color=colors[schedule], linestyle=styles[schedule], label=schedule)
        ax.set_xscale("log", base=2)
        ax.set_xticks(gpus)
        ax.set_xticklabels([str(g) for g in gpus], rotation=45, fontsize=8)
        ax.minorticks_off()
        ax.set_title(panel, fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
        if metric == "throughput":
            ax.set_yscale("log")
        if metric == "efficiency":
            ax.set_ylim(0, 1.05)
        if i % cols == 0:
            ax.set_ylabel(label)
        if i // cols == rows - 1 or i + cols >= n:
            ax.set_xlabel("GPUs")
            ax.xaxis.set_tick_params(labelbottom=True)
    for j in range(n, rows * cols):
        axes[j // cols][j % cols].set_visible(False)
    handles, labels = axes[0][0].get_legend_handles_labels()
    for lines_ax in axes.flat:
        for h, l in zip(*lines_ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    ncol = max(1, min(len(labels), int(4.6 * cols / (0.9 + 0.075 * max(len(l) for l in labels)))))
    legend_rows = math.ceil(len(labels) / ncol)
    fig.legend(handles, labels, loc="lower center", ncol=ncol, frameon=False)
    if title:
        fig.suptitle(title)
    fig.tight_layout(rect=(0, (0.1 + 0.28 * legend_rows) / fig.get_figheight(), 1, 1))
    written = []
    for ext in ("png", "svg"):
        path = f"{prefix}-{metric}.{ext}"
        fig.savefig(path, dpi=120, metadata={"Date": None} if ext == "svg" else {"Software": None})
        written.append(path)
    plt.close(fig)
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", help="sweep CSV (mgsim sweep) or run CSV (mgsim run --format csv)")
    parser.add_argument("prefix", help="output path prefix: PREFIX-<metric>.png and .svg")
    parser.add_argument("--metric", action="append", choices=sorted(METRICS),
                        help="what to plot (repeatable; default: efficiency and throughput)")
    parser.add_argument("--panel", action="append", help="column that splits panels (repeatable; default: "
                        "the ones among model, network, collective, gpus_per_node that vary)")
    parser.add_argument("--title", default="", help="figure title")
    args = parser.parse_args()
    ensure_matplotlib()
    rows = read_rows(args.csv)
    groups = group(rows, panel_columns(rows, args.panel))
    os.makedirs(os.path.dirname(os.path.abspath(args.prefix)), exist_ok=True)
    for metric in args.metric or ["efficiency", "throughput"]:
        for path in plot(groups, metric, args.prefix, args.title):
            print(path)


if __name__ == "__main__":
    main()
