#!/usr/bin/env python3
"""Write the traces of the validation set (validation/traces/*.json).

Each trace is the model zoo's roofline-synthetic ResNet-50 (exact layer graph
and gradient sizes; per-layer split of the compute from the roofline) scaled
with `mgsim zoo trace --throughput` (scripts/validation_lib.py) so that one
GPU's iteration takes batch / throughput of the measured single-GPU number
it is named after (validation/*.json list
those numbers as calibrating rows, with their sources). Gradient dtype:
fp16 for MXNet's float16 runs (the model itself is cast), fp32 for
PyTorch and TensorFlow AMP (fp32 master weights, fp32 gradients) and for
FP32/TF32. The traces time the optimizer step of SGD with momentum (the
DeepLearningExamples ResNet-50 optimizer) on the GPU, scaled like the rest.

Usage (from the repository root, after building):

  python3 scripts/make_validation_traces.py [--mgsim build/src/mgsim] [--out validation]
"""

import sys

import validation_lib as lib

PRECISION_BYTES = {"fp16": 2, "fp32": 4, "tf32": 4}

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


def main():
    args = lib.parse_args(__doc__)
    for name, (gpu, precision, dtype_bytes, batch, throughput, source) in sorted(TRACES.items()):
        lib.zoo_trace(args.mgsim, name, "resnet50", gpu, precision, batch, throughput,
                      "the measured 1-GPU throughput of source '%s' (validation/README.md)" % source,
                      grad_bytes=dtype_bytes if dtype_bytes != PRECISION_BYTES[precision] else None,
                      optimizer="momentum")
        print("wrote %s/traces/%s.json" % (args.out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
