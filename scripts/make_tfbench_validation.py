#!/usr/bin/env python3
"""Write the TensorFlow benchmarks cases of the validation set (validation/tfbench-*.json).

Source: the TensorFlow team's published benchmarks (tf_cnn_benchmarks, TensorFlow
b1e174e, CUDA 8 / cuDNN 5.1, May 2017), tensorflow/docs_src/performance/benchmarks.md
at the commit below; every number is quoted exactly from its "Training synthetic
data" tables (synthetic data: no input pipeline). Real-data tables are left out:
mgsim does not model reading and decoding images.

How a run is modelled. The trace is the model zoo's network (tf_cnn_benchmarks'
ResNet-50 is v1, the zoo's v1.5: same tensors; AlexNet and VGG16 as torchvision's;
Inception-v3 without its auxiliary head), scaled to the table's 1-GPU throughput.
TensorFlow 1.x reduces each gradient when it is ready (schedule `wfbp`, one
message per tensor). How it reduces follows the page's configuration table for
each model, as each row's own collective:

- variable_update parameter_server, local_parameter_device cpu: the CPU holds the
  variables, every GPU pushes and pulls through it: `ps` with one dedicated server;
- parameter_server on gpu, and replicated without NCCL: variables spread over the
  GPUs, each aggregating its share: `ps-colocated` (every GPU serves);
- replicated with NCCL: `nccl`;
- distributed_replicated over several p2.8xlarge (each machine aggregates its 8
  GPUs, then machines exchange through parameter servers running on the same
  machines, as many as machines): `hierarchical` (its inter-node traffic, 2(n-1)/n
  of the gradients per machine, is a colocated PS's with one server per machine;
  the page's exceptions at 8 machines, 4 or 6 servers, are not followed).

Each link the case uses runs at its rated bandwidth (PCIe 3.0 x16 between a K80 and
the host or its peers, NVLink 1.0 between DGX-1 P100s, 10 Gb Ethernet between
p2.8xlarge instances); latencies are 0. Fitted per case, on the named rows: the
seconds of coordination an iteration on more than one GPU adds (sync_overhead_s).

Usage (repository root, after building): python3 scripts/make_tfbench_validation.py [--mgsim build/src/mgsim]
"""

import validation_lib as lib

URL = ("https://github.com/tensorflow/tensorflow/blob/5984ffefd320c5d71b801ee06079a51b91ea42c0/"
       "tensorflow/docs_src/performance/benchmarks.md")
SOFTWARE = ("TensorFlow (GitHub hash b1e174e), tf_cnn_benchmarks (hash 9165a70), CUDA 8.0 / cuDNN 5.1, sgd; "
            "10 warm-up steps, then 100 steps averaged, each test run 5 times")
ZOO = {"InceptionV3": "inception-v3", "ResNet-50": "resnet50", "ResNet-152": "resnet152", "AlexNet": "alexnet",
       "VGG16": "vgg16"}
PS_CPU = {"name": "ps", "servers": 1}
PS_GPU = "ps-colocated"

# Per case: GPU, GPUs per node, table, hardware, runs [(model, batch per GPU, collective,
# {GPUs: images/s})], the rated bandwidths of the links (between nodes, inside one: None for one
# link), what they are, and the runs (model, batch, GPUs) that calibrate sync_overhead_s.
CASES = {
    "tfbench-dgx1-p100": dict(
        gpu="p100", per_node=8,
        table="'Details for NVIDIA DGX-1 (NVIDIA Tesla P100)': 'Training synthetic data' and "
              "'Other Results' (batch size 32) 'Training synthetic data'",
        hardware="NVIDIA DGX-1, 8x Tesla P100 (NVLink); local SSD",
        runs=[("InceptionV3", 64, PS_CPU, {1: 142, 2: 284, 4: 569, 8: 1131}),
              ("ResNet-50", 64, PS_CPU, {1: 219, 2: 422, 4: 852, 8: 1734}),
              ("ResNet-152", 64, PS_CPU, {1: 91.8, 2: 181, 4: 356, 8: 716}),
              ("AlexNet", 512, "nccl", {1: 2987, 2: 5658, 4: 10509, 8: 17822}),
              ("VGG16", 64, "nccl", {1: 154, 2: 295, 4: 584, 8: 1081}),
              ("InceptionV3", 32, PS_CPU, {1: 128, 2: 259, 4: 520, 8: 995}),
              ("ResNet-50", 32, PS_CPU, {1: 195, 2: 368, 4: 768, 8: 1485}),
              ("ResNet-152", 32, PS_CPU, {1: 82.7, 2: 160, 4: 317, 8: 632}),
              ("VGG16", 32, "nccl", {1: 144, 2: 281, 4: 549, 8: 820})],
        links=(lib.PCIE3_X16, lib.NVLINK_P100),
        rated="NVLink 1.0 between the GPUs, PCIe 3.0 x16 to the CPU's parameter server",
        calibrating=[("VGG16", 64, 8), ("ResNet-50", 64, 8)],
        note="variable_update per model from the page: parameter_server on the CPU for InceptionV3, ResNet-50 and "
             "ResNet-152, replicated with NCCL for AlexNet and VGG16; the batch-32 runs are taken to use the same"),
    "tfbench-gce-k80": dict(
        gpu="k80", per_node=8,
        table="'Details for Google Compute Engine (NVIDIA Tesla K80)': 'Training synthetic data' and "
              "'Other Results' 'Training synthetic data'",
        hardware="Google Compute Engine n1-standard-32-k80x8 (8 K80 GPUs, i.e. four K80 boards); 1.7 TB shared SSD",
        runs=[("InceptionV3", 64, PS_CPU, {1: 30.5, 2: 57.8, 4: 116, 8: 227}),
              ("ResNet-50", 64, PS_CPU, {1: 51.9, 2: 99.0, 4: 195, 8: 387}),
              ("ResNet-152", 32, PS_CPU, {1: 20.0, 2: 38.2, 4: 75.8, 8: 148}),
              ("AlexNet", 512, PS_CPU, {1: 656, 2: 1209, 4: 2328, 8: 4640}),
              ("VGG16", 32, PS_CPU, {1: 35.4, 2: 64.8, 4: 120, 8: 234}),
              ("InceptionV3", 32, PS_CPU, {1: 29.3, 2: 55.0, 4: 109, 8: 216}),
              ("ResNet-50", 32, PS_CPU, {1: 49.5, 2: 95.4, 4: 183, 8: 362})],
        links=(lib.PCIE3_X16, None), rated="PCIe 3.0 x16",
        calibrating=[("ResNet-50", 64, 8)],
        note="variable_update parameter_server, local_parameter_device cpu for every model"),
    "tfbench-aws-k80": dict(
        gpu="k80", per_node=8,
        table="'Details for Amazon EC2 (NVIDIA Tesla K80)': 'Training synthetic data' and 'Other Results' "
              "'Training synthetic data'",
        hardware="Amazon EC2 p2.8xlarge (8 K80 GPUs, i.e. four K80 boards); 1 TB Amazon EFS",
        runs=[("InceptionV3", 64, PS_CPU, {1: 30.8, 2: 58.7, 4: 117, 8: 230}),
              ("ResNet-50", 64, PS_GPU, {1: 51.5, 2: 98.0, 4: 195, 8: 384}),
              ("ResNet-152", 32, PS_GPU, {1: 19.7, 2: 37.6, 4: 74.9, 8: 149}),
              ("AlexNet", 512, PS_GPU, {1: 684, 2: 1244, 4: 2479, 8: 4853}),
              ("VGG16", 32, PS_GPU, {1: 36.3, 2: 69.4, 4: 141, 8: 260}),
              ("InceptionV3", 32, PS_CPU, {1: 29.9, 2: 57.5, 4: 114, 8: 216}),
              ("ResNet-50", 32, PS_GPU, {1: 49.0, 2: 94.1, 4: 184, 8: 355})],
        links=(lib.PCIE3_X16, None), rated="PCIe 3.0 x16",
        calibrating=[("ResNet-50", 64, 8)],
        note="variable_update per model from the page: parameter_server on the CPU for InceptionV3, replicated "
             "without NCCL (variables on the GPUs) for ResNet-50 and ResNet-152, parameter_server on the GPUs for "
             "AlexNet and VGG16"),
    "tfbench-aws-k80-distributed": dict(
        gpu="k80", per_node=8,
        table="'Details for Amazon EC2 Distributed (NVIDIA Tesla K80)': 'Training synthetic data' and 'Other "
              "Results' 'Training synthetic data' (batch size 32)",
        hardware="1 to 8 Amazon EC2 p2.8xlarge instances (8 K80 GPUs each); parameter servers on the worker "
                 "instances, as many as instances except at 8 instances: InceptionV3 6, ResNet-50 (batch 32) 4, "
                 "ResNet-152 4",
        runs=[("InceptionV3", 64, None, {1: 29.7, 8: 229, 16: 459, 32: 902, 64: 1783}),
              ("ResNet-50", 64, None, {1: 52.4, 8: 378, 16: 751, 32: 1388, 64: 2744}),
              ("ResNet-152", 32, None, {1: 19.4, 8: 146, 16: 291, 32: 565, 64: 981}),
              ("InceptionV3", 32, None, {1: 29.2, 8: 219, 16: 427, 32: 820, 64: 1608}),
              ("ResNet-50", 32, None, {1: 48.4, 8: 333, 16: 667, 32: 1180, 64: 2315})],
        links=(lib.ETHERNET_10G, lib.PCIE3_X16),
        rated="PCIe 3.0 x16 inside an instance, 10 Gb Ethernet between instances",
        collective="hierarchical",
        calibrating=[("ResNet-50", 64, 8), ("ResNet-50", 64, 16)],
        note="variable_update distributed_replicated, cross_replica_sync True"),
}


def make_case(mgsim, name, spec):
    source = "tfbench"
    calibrate, predict = [], []
    for model, batch, collective, figures in spec["runs"]:
        # Replicated variables (NCCL): every GPU applies plain SGD to its copy; parameter servers update
        # on their own device, which mgsim does not time (docs/schedules.md#the-optimizer-step).
        trace = lib.zoo_trace(mgsim, "%s-%s-b%d" % (name, ZOO[model], batch), ZOO[model], spec["gpu"], "fp32",
                              batch, figures[1], "%s, %s: %s, 1 GPU, batch %d" % (URL, spec["table"], model, batch),
                              optimizer="sgd" if collective == "nccl" else "none")
        for gpus, throughput in sorted(figures.items()):
            fits = gpus == 1 or (model, batch, gpus) in spec["calibrating"]
            (calibrate if fits else predict).append(lib.row(trace, gpus, "wfbp", throughput, source, collective))
    config = {"trace": calibrate[0]["trace"], "gpus": [1], "gpus_per_node": spec["per_node"], "optimizer": "sgd",
              "collective": spec.get("collective", PS_CPU), "network": lib.links(*spec["links"]),
              "sync_overhead_s": 0, "schedules": ["wfbp"]}
    sources = {source: {"url": URL, "table": spec["table"], "hardware": spec["hardware"], "software": SOFTWARE,
                        "measured": "training throughput on synthetic data, images/s (total over all GPUs)",
                        "note": spec["note"]}}
    description = ("tf_cnn_benchmarks (TensorFlow, May 2017) on %s: compute from each 1-GPU throughput, links at "
                   "their rated bandwidths (%s: %s), %s fitted on %s; everything else predicted "
                   "(scripts/make_tfbench_validation.py)."
                   % (spec["hardware"].split(";")[0], spec["rated"],
                      ", ".join(lib.gbytes(b) for b in spec["links"][::-1] if b is not None), lib.SYNC_FIT,
                      ", ".join("%s batch %d at %d GPUs" % c for c in spec["calibrating"])))
    lib.case(name, description, sources, config, [lib.SYNC_FIT], calibrate, predict)


if __name__ == "__main__":
    lib.run(__doc__, CASES, make_case)
