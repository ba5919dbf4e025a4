#!/usr/bin/env python3
"""One GPU's time against the batch (docs/fidelity.md#one-gpu-time-against-the-batch).

For each model of the shipped H100 batch curves (traces/h100-*-bs*.json,
measured by scripts/measure_batch_curve.sh), the measured forward + backward
of the largest batch scales the zoo's roofline (`mgsim zoo trace
--measured-batch ... --step-time ...`), alone and with the launch time
fitted on the smallest batch (`--launch-bound-at`); every batch in between
is predicted and compared with its own measurement. Prints a Markdown table.

    python3 scripts/batch_curve_check.py [--mgsim build/src/mgsim]
"""
import argparse
import glob
import json
import os
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZOO = {"resnet50": ("resnet50", []), "bert-base": ("bert-base", ["--seq-len", "128"])}


def measured(path):
    """Batch and forward + backward seconds without the recorder (the trace's provenance)."""
    with open(path) as f:
        t = json.load(f)
    return t["batch_size"], t["provenance"]["recording_overhead"]["unrecorded_forward_backward_s"]


def predicted(mgsim, model, batch, big, small, out):
    """Forward + backward seconds of the zoo trace at `batch` scaled to the figure at `big` (and `small`)."""
    name, extra = ZOO[model]
    command = [mgsim, "zoo", "trace", "--model", name, "--gpu", "h100", "--precision", "bf16", "--optimizer", "none",
               "--batch", str(batch), "--measured-batch", str(big[0]), "--step-time", repr(big[1]),
               "--measured-by", "traces/README.md (H100 batch curves)", "-o", out] + extra
    if small:
        command += ["--launch-bound-at", str(small[0]), repr(small[1])]
    subprocess.run(command, check=True)
    with open(out) as f:
        return sum(layer["forward_time_s"] + layer["backward_time_s"] for layer in json.load(f)["layers"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mgsim", default=os.path.join(ROOT, "build", "src", "mgsim"))
    args = parser.parse_args()
    print("| model | batch | measured, ms | scaled at the largest batch | and launches fitted at the smallest |")
    print("| --- | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "t.json")
        for model in ZOO:
            paths = glob.glob(os.path.join(ROOT, "traces", f"h100-{model}-bs*-bf16.json"))
            curve = sorted(measured(p) for p in paths if re.search(r"-bs\d+-", p))
            small, big = curve[0], curve[-1]
            for batch, seconds in curve:
                role = " (fits)" if (batch, seconds) in (small, big) else ""
                cells = []
                for fit in (None, small):
                    p = predicted(args.mgsim, model, batch, big, fit, out)
                    cells.append(f"{p * 1e3:.2f} ({100 * (p / seconds - 1):+.0f}%)")
                print(f"| {model} | {batch}{role} | {seconds * 1e3:.2f} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
