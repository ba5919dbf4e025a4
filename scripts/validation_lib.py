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


# Rated bandwidths of the cases' links, bytes/s in one direction, from the hardware's
# specifications: a case sets its links from them and fits the loss that is not bytes
# (SYNC_FIT), not a bandwidth (docs/fidelity.md, "mgsim validate and the validation set").
PCIE3_X16 = 15.75e9   # PCIe 3.0 x16: 8 GT/s x 16 lanes, 128b/130b (K80 boards; Cray Aries NIC's host interface)
PCIE4_X16 = 31.5e9    # PCIe 4.0 x16: 16 GT/s x 16 lanes, 128b/130b (A100 PCIe)
ETHERNET_10G = 1.25e9  # 10 Gb Ethernet (EC2 p2.8xlarge: "10 Gigabit")
EDR = 12.5e9          # one InfiniBand EDR 4x (or Omni-Path) adapter, 100 Gb/s
HDR = 25e9            # one InfiniBand HDR adapter, 200 Gb/s
NDR = 50e9            # one InfiniBand NDR adapter, 400 Gb/s
NVLINK_P100 = 80e9    # NVLink 1.0 a P100: 4 links x 20 GB/s
NVLINK_V100 = 150e9   # NVLink 2.0 a V100: 6 links x 25 GB/s (DGX-1 hybrid cube mesh, DGX-2 NVSwitch)
NVLINK_A100 = 300e9   # NVLink 3.0 an A100: 12 links x 25 GB/s (half the 600 GB/s both ways)
NVLINK_H100 = 450e9   # NVLink 4 an H100: 18 links x 25 GB/s (half the 900 GB/s both ways)
# What every case with rated links fits: seconds of coordination an iteration on more than
# one GPU adds, the same whatever the bytes.
SYNC_FIT = "sync_overhead_s"


def link(bytes_per_s):
    """A link at `bytes_per_s`, latency 0 (or NCCL's own tables under `nccl`)."""
    return {"alpha_us": 0, "beta_s_per_byte": 1 / bytes_per_s}


def links(inter, intra=None):
    """The `network` of a case: one link, or the node's link (intra) and the one between nodes."""
    return link(inter) if intra is None else {"intra": link(intra), "inter": link(inter)}


def gbytes(bytes_per_s):
    """'15.75 GB/s'."""
    return "%g GB/s" % (bytes_per_s / 1e9)


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
