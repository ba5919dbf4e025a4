"""Shared pieces of the scripts that write validation cases (scripts/make_*_validation.py).

A case is validation/<name>.json (format in validation/README.md); its traces are
the model zoo's roofline traces written by `mgsim zoo trace`, scaled with
`--throughput` to a measured 1-GPU figure where the source gives one.
"""

import argparse
import json
import os
import subprocess

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VALIDATION = os.path.join(REPO_ROOT, "validation")
DEFAULT_MGSIM = os.path.join(REPO_ROOT, "build", "src", "mgsim")


def write_json(path, value):
    """Writes `value` to `path` whole or not at all."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="ascii", newline="\n") as f:
        json.dump(value, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def zoo_trace(mgsim, name, model, gpu, precision, batch, throughput=None, measured_by=None, grad_bytes=None,
              model_args=(), *, optimizer):
    """Writes validation/traces/<name>.json with `mgsim zoo trace`; returns its path relative to validation/.

    throughput: the measured 1-GPU samples/s the trace is scaled to (measured_by says where it is
    printed); None keeps the roofline. grad_bytes: bytes per gradient element when they differ from
    the roofline precision's (fp32 master weights under mixed precision: 4). model_args: more
    `mgsim zoo trace` options (--seq-len, --aux-heads). optimizer: the optimizer whose step the GPUs run
    (`mgsim zoo trace --optimizer`; "none" where a parameter server updates), which the case's config
    names too.
    """
    rel = "traces/%s.json" % name
    path = os.path.join(VALIDATION, rel)
    command = [mgsim, "zoo", "trace", "--model", model, "--gpu", gpu, "--precision", precision,
               "--batch", str(batch), "--optimizer", optimizer, "-o", path] + list(model_args)
    if throughput is not None:
        command += ["--throughput", repr(throughput), "--measured-by", measured_by]
    subprocess.run(command, check=True)
    if grad_bytes is not None:
        set_gradient_bytes(path, grad_bytes)
    return rel


def set_gradient_bytes(path, grad_bytes):
    """Sets every layer's gradient element size of the trace at `path` (fp32 master weights: 4)."""
    with open(path, encoding="ascii") as f:
        trace = json.load(f)
    for layer in trace["layers"]:
        layer["dtype_bytes"] = grad_bytes
    trace["provenance"]["gradient_bytes"] = (
        "%d bytes per gradient element, set by scripts/validation_lib.py: the run keeps fp32 master "
        "weights and reduces fp32 gradients" % grad_bytes)
    write_json(path, trace)


def row(trace, gpus, schedule, throughput, source, collective=None):
    """A measurement row: `throughput` samples/s of `gpus` GPUs running `trace`."""
    entry = {"trace": trace, "gpus": gpus, "schedule": schedule, "throughput_samples_per_s": throughput,
             "source": source}
    if collective is not None:
        entry["collective"] = collective
    return entry


def case(name, description, sources, config, fit, calibrate, predict):
    """Writes validation/<name>.json."""
    document = {"format": "mgsim-validation", "version": 1, "description": description, "sources": sources,
                "config": config, "fit": fit, "calibrate": calibrate, "predict": predict}
    write_json(os.path.join(VALIDATION, name + ".json"), document)


def parse_args(doc):
    """The scripts' command line: --mgsim BINARY, --out FOLDER (default validation/, which must hold
    traces/); returns the arguments, with the folder the writers above use set to --out."""
    global VALIDATION
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--mgsim", default=DEFAULT_MGSIM)
    parser.add_argument("--out", default=VALIDATION, help="folder to write the cases to (traces in its traces/)")
    args = parser.parse_args()
    VALIDATION = args.out
    return args


def run(doc, cases, make_case):
    """Writes every case of `cases` with make_case(mgsim, name, spec), as parse_args() says."""
    args = parse_args(doc)
    for name, spec in cases.items():
        make_case(args.mgsim, name, spec)
