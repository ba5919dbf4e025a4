#!/usr/bin/env python3
"""Write the traces of the validation set (validation/traces/*.json).

Each trace is the model zoo's roofline-synthetic ResNet-50 (exact layer graph
and gradient sizes; per-layer split of the compute from the roofline) with
every time scaled so that one GPU's iteration takes batch / throughput of
the measured single-GPU number it is named after (validation/*.json list
those numbers as calibrating rows, with their sources). Gradient dtype:
fp16 for MXNet's float16 runs (the model itself is cast), fp32 for
PyTorch and TensorFlow AMP (fp32 master weights, fp32 gradients) and for
FP32/TF32. The traces time the optimizer step of SGD with momentum (the
DeepLearningExamples ResNet-50 optimizer) on the GPU, scaled like the rest.

Usage (from the repository root, after building):

  python3 scripts/make_validation_traces.py [--mgsim build/src/mgsim]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO_ROOT, "validation", "traces")

# name: (gpu, roofline precision, gradient bytes, batch per GPU, measured 1-GPU images/s, source id)
TRACES = {
    "mx-dgx1-amp": ("v100", "fp16", 2, 192, 1376, "mxnet-rn50"),
    "mx-dgx1-fp32": ("v100", "fp32", 4, 96, 384, "mxnet-rn50"),
    "tf-dgx1-amp": ("v100", "fp16", 4, 256, 1270, "tf-rn50"),
    "tf-dgx1-fp32": ("v100", "fp32", 4, 128, 412, "tf-rn50"),
    "pt-dgx1-16g-amp": ("v100", "fp16", 4, 256, 1200, "pytorch-rn50"),
    "pt-dgx1-16g-fp32": ("v100", "fp32", 4, 112, 367, "pytorch-rn50"),
    "pt-dgx1-32g-amp": ("v100", "fp16", 4, 256, 1156, "pytorch-rn50"),
    "pt-dgx1-32g-fp32": ("v100", "fp32", 4, 112, 356, "pytorch-rn50"),
    "mx-dgx2-amp": ("v100", "fp16", 2, 256, 1492, "mxnet-rn50"),
    "mx-dgx2-fp32": ("v100", "fp32", 4, 128, 417, "mxnet-rn50"),
    "tf-dgx2-amp": ("v100", "fp16", 4, 256, 1300, "tf-rn50"),
    "tf-dgx2-fp32": ("v100", "fp32", 4, 128, 432, "tf-rn50"),
    "mx-a100-amp": ("a100", "fp16", 2, 256, 2180, "mxnet-rn50"),
    "mx-a100-tf32": ("a100", "tf32", 4, 256, 1022, "mxnet-rn50"),
    "tf-a100-amp": ("a100", "fp16", 4, 256, 2375, "tf-rn50"),
    "tf-a100-tf32": ("a100", "tf32", 4, 256, 909, "tf-rn50"),
    "pt-a100-amp": ("a100", "fp16", 4, 256, 2470, "pytorch-rn50"),
    "pt-a100-tf32": ("a100", "tf32", 4, 256, 938, "pytorch-rn50"),
}


def write_atomic(path, text):
    fd, tmp = tempfile.mkstemp(prefix=".trace.", suffix=".tmp", dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "w", encoding="ascii", newline="\n") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def scaled_trace(mgsim, name, gpu, precision, dtype_bytes, batch, throughput, source):
    command = [mgsim, "zoo", "trace", "--model", "resnet50", "--gpu", gpu, "--precision", precision,
               "--batch", str(batch), "--optimizer", "momentum"]
    trace = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    layers = trace["layers"]  # version 2: every layer has its forward time
    compute = (sum(layer["forward_time_s"] + layer["backward_time_s"] for layer in layers)
               + trace["provenance"]["optimizer_step"]["roofline_step_s"])
    factor = batch / throughput / compute
    trace["optimizer_bytes_per_s"] /= factor
    for layer in layers:
        layer["forward_time_s"] *= factor
        layer["backward_time_s"] *= factor
        if "grad_ready_s" in layer:
            layer["grad_ready_s"] = [min(t * factor, layer["backward_time_s"]) for t in layer["grad_ready_s"]]
        layer["dtype_bytes"] = dtype_bytes
    trace["provenance"]["validation_scaling"] = (
        "every time multiplied (optimizer_bytes_per_s divided) by %.6g so that one GPU runs an iteration, "
        "the optimizer step included, in batch / throughput = %d / %g s, "
        "the measured 1-GPU throughput of source '%s' (validation/README.md); gradients of %d bytes"
        % (factor, batch, throughput, source, dtype_bytes))
    trace["provenance"]["validation_command"] = "python3 scripts/make_validation_traces.py (%s)" % " ".join(command[1:])
    return trace


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mgsim", default=os.path.join(REPO_ROOT, "build", "src", "mgsim"))
    args = parser.parse_args(argv)
    os.makedirs(OUT, exist_ok=True)
    for name, spec in sorted(TRACES.items()):
        trace = scaled_trace(args.mgsim, name, *spec)
        write_atomic(os.path.join(OUT, name + ".json"), json.dumps(trace, indent=1) + "\n")
        print("wrote validation/traces/%s.json" % name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
