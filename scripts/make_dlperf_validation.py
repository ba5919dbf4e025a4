#!/usr/bin/env python3
"""Write the OneFlow DLPerf cases of the validation set (validation/dlperf-*.json).

Source: OneFlow's "DLPerf Benchmark Test Report V1.0" (Oct 2020),
reports/dlperf_benchmark_test_report_v1.md of Oneflow-Inc/DLPerf at the commit
below, section "ResNet50 V1.5 throughput (img/s)": tables "FP32, batch size = 128"
and "AMP, batch size = 256" (batch 224 for NGC TensorFlow, 196 for PaddlePaddle,
as their column heads say). Eight frameworks measured by one team on the same 4
nodes (8x V100-SXM2-16GB each, NVLink, InfiniBand EDR 100 Gb/s): 1 GPU, 1 node,
2 and 4 nodes. Every number is quoted exactly.

How a run is modelled: the zoo's ResNet-50 v1.5 scaled to each framework's 1-GPU
throughput at that precision; gradients of 2 bytes where the framework casts the
model to fp16 (MXNet under AMP), 4 otherwise (fp32 master weights); the `nccl`
collective; the framework's schedule: Horovod's tensor fusion for the Horovod
runs, DistributedDataParallel buckets for PyTorch, and for the others the
nearest mgsim schedule (named in each case). The links run at their rated
bandwidths (NVLink 2.0: 150 GB/s a V100; one EDR adapter a node: 12.5 GB/s). One
case per framework fits the seconds of coordination an iteration on more than one
GPU adds (sync_overhead_s) on its own FP32 1-node and 2-node rows and predicts the
rest: FP32 on 4 nodes and every AMP row above one GPU.

Usage (repository root, after building): python3 scripts/make_dlperf_validation.py [--mgsim build/src/mgsim]
"""

import validation_lib as lib

URL = ("https://github.com/Oneflow-Inc/DLPerf/blob/c89430bac64f64caabb0445ff7eb80175641454c/"
       "reports/dlperf_benchmark_test_report_v1.md")
HARDWARE = ("4 nodes, each 8x Tesla V100-SXM2-16GB (NVLink), InfiniBand 100 Gb/s (4X EDR, Mellanox MT27700), "
            "2x Xeon Gold 5118; CUDA 10.2")
GPUS = (1, 8, 16, 32)

# Per framework: column head, software, schedule (and why), FP32 row, then AMP runs
# [(label, batch, gradient bytes: 4 for fp32 master weights, None for the fp16 model's 2,
# row)]; rows are images/s at 1, 8, 16 and 32 GPUs.
FRAMEWORKS = {
    "oneflow": dict(head="OneFlow", software="OneFlow 0.2.0, OneFlow-Benchmark v0.2.0 cnns",
                    schedule="wfbp", why="OneFlow reduces each gradient as it is ready (no bucketing modelled)",
                    fp32=(397.64, 3130.34, 6260.30, 12411.97),
                    amp=[("amp", 256, 4, (1472.72, 10629.32, 17920.40, 33141.02))]),
    "ngc-mxnet": dict(head="NGC MXNet", software="nvcr.io/nvidia/mxnet:20.03-py3 (MXNet 1.6.0), "
                      "DeepLearningExamples RN50v1.5 (e470c21), DALI, Horovod",
                      schedule="horovod", why="Horovod tensor fusion",
                      fp32=(392.24, 3006.98, 5758.49, 11331.93),
                      amp=[("amp", 256, None, (1393.87, 9621.31, 16219.03, 30713.68))]),
    "ngc-tf1": dict(head="NGC TensorFlow 1.x", software="nvcr.io/nvidia/tensorflow:20.03-tf1-py3 (TF 1.15.2), "
                    "DeepLearningExamples resnet50v1.5 (fed7ba9), DALI, Horovod; AMP with and without XLA, batch 224",
                    schedule="horovod", why="Horovod tensor fusion",
                    fp32=(362.44, 2721.98, 5099.42, 9514.64),
                    amp=[("amp-xla", 224, 4, (1198.55, 8588.45, 14931.03, 29171.69)),
                         ("amp", 224, 4, (945.18, 6903.42, 12021.09, 24734.22))]),
    "ngc-pytorch": dict(head="NGC PyTorch", software="nvcr.io/nvidia/pytorch:20.03-py3 (PyTorch 1.5.0a0), "
                        "DeepLearningExamples resnet50v1.5 (46ff370), DALI, APEX",
                        schedule="ddp", why="DistributedDataParallel buckets",
                        fp32=(367.29, 2887.65, 5716.79, 10917.09),
                        amp=[("amp", 256, 4, (802.9, 6154.66, 11991.94, 22551.16))]),
    "mxnet": dict(head="MXNet", software="MXNet 1.6.0, gluon-cv (f9a8a28) imagenet RN50 v1b, Horovod",
                  schedule="horovod", why="Horovod tensor fusion",
                  fp32=(384.19, 2556.03, 4855.34, 9579.74),
                  amp=[("amp", 256, None, (833.65, 2908.88, 5451.27, 10565.55))]),
    "tf2": dict(head="TensorFlow 2.x", software="TensorFlow 2.3.0, tensorflow/models r2.3.0 "
                "official/vision/image_classification",
                schedule="ddp", why="tf.distribute packs gradients into a few all-reduces after the backward; "
                "DDP's buckets are the nearest mgsim schedule",
                fp32=(321.80, 2458.74, 4849.68, 9418.44),
                amp=[("amp", 256, 4, (1075.27, 6898.00, 9870.15, 19314.31))]),
    "pytorch": dict(head="PyTorch", software="PyTorch 1.6.0, pytorch/examples imagenet (4b119d7)",
                    schedule="ddp", why="DistributedDataParallel buckets",
                    fp32=(348.62, 2632.93, 5115.40, 10021.29), amp=[]),
    "paddle": dict(head="PaddlePaddle", software="PaddlePaddle 1.8.3.post107, PaddleCV image_classification "
                   "(release/1.8); AMP with the DALI plug-in, batch 196",
                   schedule="ddp", why="Paddle fuses gradients into buckets before all-reducing them",
                   fp32=(352.72, 2625.38, 4895.27, 9348.17),
                   amp=[("amp", 196, 4, (887.17, 6862.17, 6018.46, 11617.57))]),
}


def runs(fw):
    """(label, roofline precision, batch, gradient bytes or None, row) of a framework."""
    return [("fp32", "fp32", 128, None, fw["fp32"])] + [(label, "fp16", b, g, r) for label, b, g, r in fw["amp"]]


def make_case(mgsim, key, fw):
    name = "dlperf-" + key
    table = "'ResNet50 V1.5 throughput (img/s)': 'FP32, batch size = 128' and 'AMP, batch size = 256', column '%s'"
    calibrate, predict = [], []
    for label, precision, batch, grad_bytes, figures in runs(fw):
        trace = lib.zoo_trace(mgsim, "%s-%s-b%d" % (name, label, batch), "resnet50", "v100", precision, batch,
                              figures[0], "%s, %s: 1 GPU, %s, batch %d" % (URL, table % fw["head"], label, batch),
                              grad_bytes, optimizer="momentum")
        for gpus, throughput in zip(GPUS, figures):
            fits = gpus == 1 or (label == "fp32" and gpus in (8, 16))
            (calibrate if fits else predict).append(lib.row(trace, gpus, fw["schedule"], throughput, "dlperf"))
    config = {"trace": calibrate[0]["trace"], "gpus": [1], "gpus_per_node": 8, "collective": "nccl",
              "optimizer": "momentum",
              "network": lib.links(lib.EDR, lib.NVLINK_V100), "sync_overhead_s": 0,
              "schedules": [fw["schedule"]]}
    sources = {"dlperf": {"url": URL, "table": table % fw["head"], "hardware": HARDWARE, "software": fw["software"],
                          "measured": "ResNet-50 v1.5 training throughput, images/s (total), 1 GPU, 1 node (8 GPUs), "
                                      "2 and 4 nodes", "note": "schedule '%s': %s" % (fw["schedule"], fw["why"])}}
    description = ("ResNet-50 v1.5, %s, 1 to 4 nodes of 8 V100 (OneFlow DLPerf): compute from each 1-GPU "
                   "throughput, NVLink and InfiniBand at their rated bandwidths (%s, %s), %s fitted on FP32 at 1 "
                   "and 2 nodes; everything else predicted (scripts/make_dlperf_validation.py)."
                   % (fw["head"], lib.gbytes(lib.NVLINK_V100), lib.gbytes(lib.EDR), lib.SYNC_FIT))
    lib.case(name, description, sources, config, [lib.SYNC_FIT], calibrate, predict)


if __name__ == "__main__":
    lib.run(__doc__, FRAMEWORKS, make_case)
