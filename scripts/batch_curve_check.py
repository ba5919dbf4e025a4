#!/usr/bin/env python3
"""One GPU's time against the batch (docs/fidelity.md#one-gpu-time-against-the-batch).

Curves of forward + backward against the batch, measured on one H100: the
shipped traces (traces/h100-*-bs*.json, eager, scripts/measure_batch_curve.sh)
and traces/h100-eager-vs-cuda-graph.json and -more-models.json (eager and one
CUDA graph, scripts/launch_floor_check.py). For each, the largest batch scales the
zoo's roofline (`mgsim zoo trace --measured-batch ... --step-time ...`),
alone, then with a per-pass term fitted on the smallest batch
(`--second-figure`, `--fit-per-pass launch` or `overhead`); every batch in
between is predicted and compared with its own measurement. Prints a
Markdown table.

    python3 scripts/batch_curve_check.py [--mgsim build/src/mgsim]
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZOO = {"resnet50": ("resnet50", []), "bert-base": ("bert-base", ["--seq-len", "128"]),
       "bert-base-uncased": ("bert-base", ["--seq-len", "128"]), "vgg16": ("vgg16", []),
       "densenet121": ("densenet121", []), "vit_b_16": ("vit-b16", []), "gpt2": ("gpt2", ["--seq-len", "128"])}
FIRST = ("resnet50", "bert-base", "bert-base-uncased")  # the per-pass forms were worked out on these; the rest check them


def measured(path):
    """Batch and forward + backward seconds without the recorder (the trace's provenance)."""
    with open(path) as f:
        t = json.load(f)
    return t["batch_size"], t["provenance"]["recording_overhead"]["unrecorded_forward_backward_s"]


def predicted(mgsim, model, batch, big, small, term, out):
    """Forward + backward seconds of the zoo trace at `batch` scaled to the figure at `big` (and `small`)."""
    name, extra = ZOO[model]
    command = [mgsim, "zoo", "trace", "--model", name, "--gpu", "h100", "--precision", "bf16", "--optimizer", "none",
               "--batch", str(batch), "--measured-batch", str(big[0]), "--step-time", repr(big[1]),
               "--measured-by", "traces/README.md (H100 batch curves)", "-o", out] + extra
    if small:
        command += ["--second-figure", str(small[0]), repr(small[1]), "--fit-per-pass", term]
    subprocess.run(command, check=True)
    with open(out) as f:
        return sum(layer["forward_time_s"] + layer["backward_time_s"] for layer in json.load(f)["layers"])


def curves():
    """(model, how it ran, [(batch, seconds)]) for every measured curve."""
    for model in ("resnet50", "bert-base"):
        paths = glob.glob(os.path.join(ROOT, "traces", f"h100-{model}-bs*-bf16.json"))
        yield model, "eager (profile layers)", sorted(measured(p) for p in paths if re.search(r"-bs\d+-", p))
    rows = []
    for name in ("h100-eager-vs-cuda-graph.json", "h100-eager-vs-cuda-graph-more-models.json"):
        with open(os.path.join(ROOT, "traces", name)) as f:
            rows += json.load(f)["rows"]
    for model in dict.fromkeys(r["model"] for r in rows):
        for key, how in (("eager_forward_backward_s", "eager"), ("cuda_graph_forward_backward_s", "CUDA graph")):
            yield model, how, sorted((r["batch"], r[key]) for r in rows if r["model"] == model)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mgsim", default=os.path.join(ROOT, "build", "src", "mgsim"))
    args = parser.parse_args()
    print("| model | run | batch | measured, ms | scaled at the largest batch | + launch time | + overhead per pass |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    errors = {}  # (eager or CUDA graph, column) -> |error| of every predicted batch
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "t.json")
        for model, how, curve in curves():
            small, big = curve[0], curve[-1]
            for batch, seconds in curve:
                role = " (fits)" if (batch, seconds) in (small, big) else ""
                cells = []
                for column, (fit, term) in enumerate(((None, None), (small, "launch"), (small, "overhead"))):
                    p = predicted(args.mgsim, model, batch, big, fit, term, out)
                    cells.append(f"{p * 1e3:.2f} ({100 * (p / seconds - 1):+.0f}%)")
                    if not role:
                        kind = ("CUDA graph" if how == "CUDA graph" else "eager",
                                "ResNet-50, BERT-base" if model in FIRST else "four more models")
                        errors.setdefault((kind, column), []).append(abs(100 * (p / seconds - 1)))
                print(f"| {ZOO[model][0]} | {how} | {batch}{role} | {seconds * 1e3:.2f} | " + " | ".join(cells) + " |")
    print()
    print("| run | models | predicted | scaled alone: median, max | + launch time | + overhead per pass |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for kind in sorted({k for k, _ in errors}, key=lambda k: (k[1] != "ResNet-50, BERT-base", k[0] != "eager")):
        cells = [f"{statistics.median(errors[kind, c]):.1f}%, {max(errors[kind, c]):.1f}%" for c in range(3)]
        print(f"| {kind[0]} | {kind[1]} | {len(errors[kind, 0])} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
