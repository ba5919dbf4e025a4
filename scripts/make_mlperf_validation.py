#!/usr/bin/env python3
"""Write the MLCommons (MLPerf) training cases of the validation set (validation/mlperf-*.json).

Source: the result logs of MLPerf Training rounds v0.7 to v4.0, repositories
mlcommons/training_results_vX.Y at the commits below, closed division: ResNet-50 v1.5
(NVIDIA's MXNet implementation, Horovod) and BERT-large pre-training (NVIDIA's PyTorch
implementation), submitted by NVIDIA (DGX A100, DGX H100), Microsoft Azure (ND96amsr A100 v4)
and Dell (PowerEdge XE8545 with 4 A100 SXM4, R750xa with 4 A100 PCIe) at 1 to 540 nodes (the
DGX H100 cases also predict the same software on CoreWeave's HGX H100 cluster, submitted by
NVIDIA and CoreWeave). Each
row is one submitted configuration (a results/<system>/<benchmark> folder, 5 ResNet or 10 BERT
runs): its throughput is the median over its successful runs of samples trained / training
seconds, from the logs' MLLOG lines (scripts/mlperf_log_throughput.py computes it from the logs:
ResNet epochs x 1,281,167 images, BERT the train_samples logged at the end; training seconds are
run_stop - run_start less the evaluations the log marks, which the ResNet logs do and the BERT
logs do not, so the BERT figures include their evaluations); its batch per GPU is the logged
global_batch_size / GPUs (BERT: per optimizer step, gradient accumulation included). Each
round's configuration uses its own batch and hyperparameters: every row has its own trace.

How a run is modelled: the zoo's ResNet-50 (fp16 gradients, the `horovod` schedule) or BERT-large
with pre-training heads at sequence 512 (fp16 gradients, one all-reduce per optimizer step after
the backward: `single`), roofline traces on the zoo's A100 SXM, A100 PCIe or H100 entry, unscaled
(the logs have no 1-GPU figure); the `nccl` collective with the node's GPUs as its NVLink domain.
The links run at their rated bandwidths, from the system descriptions: NVLink half the
accelerator_interconnect figure (600 GB/s on A100 SXM, 900 on H100: 300 and 450 GB/s a
direction), PCIe 4.0 x16's 31.5 GB/s where there is no NVLink; between nodes the node's adapters
together (8 HDR on DGX A100 and ND96amsr, 8 NDR on H100 nodes, 2 HDR on XE8545, one EDR or one or
two Omni-Path 100 Gb/s on R750xa). Fitted per case, on the 1-node row and the smallest multi-node
row: the compute speed (speed_classes.0.speed) and the seconds of coordination an iteration on
more than one GPU adds (sync_overhead_s); every larger node count is predicted. Where those two
rows have the same batch per GPU (Dell), the two values trade off and validate says so.

Usage (repository root, after building): python3 scripts/make_mlperf_validation.py [--mgsim build/src/mgsim]
"""

import validation_lib as lib

REPO = "https://github.com/mlcommons/training_results_v%s/tree/%s"
SUBMITTERS = {"NVIDIA": "nvidia", "Azure": "azure", "Azure-HazyResearch": "azure", "Dell": "dell"}
HARDWARE = {
    "a100": "nodes of 8 (DGX A100, Azure ND96amsr A100 v4: NVLink 3.0 / NVSwitch, 600 GB/s) or 4 (Dell XE8545: "
            "NVLink 3.0, 600 GB/s) A100-SXM4 GPUs; InfiniBand HDR 200 Gb/s, 8 adapters a node (DGX, Azure) or 2 (Dell)",
    "h100": "nodes of 8 H100-SXM5-80GB (DGX H100, CoreWeave HGX H100: NVLink 4 / NVSwitch, 900 GB/s); "
            "InfiniBand NDR 400 Gb/s, 8 adapters a node",
    "a100-pcie": "Dell PowerEdge R750xa, 4 A100-PCIe-80GB on PCIe 4.0 x16 (no NVLink); one ConnectX-5 InfiniBand "
                 "EDR 100 Gb/s adapter a node, or (-1opa, -2opa) one or two Cornelis Omni-Path 100 Gb/s adapters",
}
SOFTWARE = {"resnet": "NVIDIA's MLPerf ResNet-50 v1.5 (MXNet, DALI, Horovod, NGC MXNet container of the round)",
            "bert": "NVIDIA's MLPerf BERT-large pre-training (PyTorch, NGC PyTorch container of the round)"}
INTRA_BUS_BYTES_PER_S = {"a100": lib.NVLINK_A100, "h100": lib.NVLINK_H100, "a100-pcie": lib.PCIE4_X16}


def inter_bytes_per_s(name, gpu):
    """The rated bandwidth of a node's adapters together (HARDWARE), from the case's system."""
    if gpu == "h100":
        return 8 * lib.NDR
    if "-xe8545-" in name:
        return 2 * lib.HDR
    if "-r750xa-" in name:
        return 2 * lib.EDR if "-2opa-" in name else lib.EDR
    return 8 * lib.HDR
# Per benchmark: zoo model, its options, schedule, and the optimizer whose step the GPUs run: LARS
# (momentum's state, and layer norms on top) for ResNet-50, LAMB (Adam's two moments, and norms) for BERT.
MODEL = {"resnet": ("resnet50", (), "horovod", "momentum"),
         "bert": ("bert-large", ("--seq-len", "512", "--aux-heads"), "single", "adam")}

# Per case: name, round, commit, benchmark, zoo GPU, rows [(results folder, nodes, GPUs per node,
# global batch, successful runs, samples/s: median over those runs)]; the first row (1 node) and the
# second (the smallest multi-node count) calibrate.
CASES = [
    ("mlperf-v0.7-dgxa100-resnet", "0.7", "0a8a85a209c8e45b661596c382cc20f4e32fd2fe", "resnet", "a100", [
        ("NVIDIA/results/dgxa100_ngc20.06_mxnet/resnet", 1, 8, 3264, 5, 22428.4),
        ("NVIDIA/results/dgxa100_n2_ngc20.06_mxnet/resnet", 2, 8, 3264, 5, 37203.4),
        ("NVIDIA/results/dgxa100_n96_ngc20.06_mxnet/resnet", 96, 8, 34560, 5, 1205775.4),
    ]),
    ("mlperf-v0.7-dgxa100-bert", "0.7", "0a8a85a209c8e45b661596c382cc20f4e32fd2fe", "bert", "a100", [
        ("NVIDIA/results/dgxa100_ngc20.06_pytorch/bert", 1, 8, 256, 10, 1028.6),
        ("NVIDIA/results/dgxa100_n2_ngc20.06_pytorch/bert", 2, 8, 432, 9, 1871.7),
        ("NVIDIA/results/dgxa100_n32_ngc20.06_pytorch/bert", 32, 8, 5120, 9, 23244.2),
    ]),
    ("mlperf-v1.1-dgxa100-resnet", "1.1", "ebe92f81f7a69255a3b0a907595d8be623d75ec6", "resnet", "a100", [
        ("NVIDIA/results/dgxa100_ngc21.09_mxnet/resnet", 1, 8, 3264, 5, 25875.3),
        ("NVIDIA/results/dgxa100_n8_ngc21.09_mxnet/resnet", 8, 8, 3264, 4, 165770.9),
        ("NVIDIA/results/dgxa100_n128_ngc21.09_mxnet/resnet", 128, 8, 35840, 5, 2246216.5),
        ("NVIDIA/results/dgxa100_n540_ngc21.09_mxnet/resnet", 540, 8, 64800, 5, 5478929.1),
    ]),
    ("mlperf-v1.1-dgxa100-bert", "1.1", "ebe92f81f7a69255a3b0a907595d8be623d75ec6", "bert", "a100", [
        ("NVIDIA/results/dgxa100_ngc21.09_pytorch/bert", 1, 8, 448, 10, 2300.6),
        ("NVIDIA/results/dgxa100_n8_ngc21.09_pytorch/bert", 8, 8, 3072, 10, 17493.0),
        ("NVIDIA/results/dgxa100_n128_ngc21.09_pytorch/bert", 128, 8, 3072, 10, 85202.3),
        ("NVIDIA/results/dgxa100_n540_ngc21.09_pytorch/bert", 540, 8, 12960, 10, 339875.8),
    ]),
    ("mlperf-v2.0-dgxa100-resnet", "2.0", "8437fbb78349aa3c3054aeccb1d47d2a315a80e7", "resnet", "a100", [
        ("NVIDIA/results/dgxa100_ngc22.04_mxnet/resnet", 1, 8, 3264, 4, 26334.4),
        ("NVIDIA/results/dgxa100_n8_ngc22.04_mxnet/resnet", 8, 8, 3264, 5, 166899.3),
        ("NVIDIA/results/dgxa100_n128_ngc22.04_mxnet/resnet", 128, 8, 35840, 5, 2281541.4),
        ("NVIDIA/results/dgxa100_n527_ngc22.04_mxnet/resnet", 527, 8, 67456, 5, 6033313.0),
    ]),
    ("mlperf-v2.0-dgxa100-bert", "2.0", "8437fbb78349aa3c3054aeccb1d47d2a315a80e7", "bert", "a100", [
        ("NVIDIA/results/dgxa100_ngc22.04_pytorch/bert", 1, 8, 448, 10, 2406.1),
        ("NVIDIA/results/dgxa100_n8_ngc22.04_pytorch/bert", 8, 8, 3072, 10, 18181.0),
        ("NVIDIA/results/dgxa100_n128_ngc22.04_pytorch/bert", 128, 8, 4096, 10, 109962.6),
        ("NVIDIA/results/dgxa100_n512_ngc22.04_pytorch/bert", 512, 8, 16384, 10, 442482.6),
    ]),
    ("mlperf-v3.0-dgxh100-resnet", "3.0", "63e326c400f5d8bb8c6070a9ab08332d4931152e", "resnet", "h100", [
        ("NVIDIA/results/dgxh100_ngc23.04_mxnet/resnet", 1, 8, 3200, 4, 55254.7),
        ("NVIDIA/results/dgxh100_n8_ngc23.04_mxnet/resnet", 8, 8, 3200, 4, 282183.9),
        ("NVIDIA/results/dgxh100_n64_ngc23.04_mxnet/resnet", 64, 8, 20480, 4, 2160088.6),
        ("NVIDIA/results/dgxh100_n96_ngc23.04_mxnet/resnet", 96, 8, 32256, 5, 3263971.2),
        ("NVIDIA_CoreWeave/results/coreweave_hgxh100_n448_ngc23.04_mxnet/resnet", 448, 8, 57344, 5, 9301325.6),
    ]),
    ("mlperf-v3.0-dgxh100-bert", "3.0", "63e326c400f5d8bb8c6070a9ab08332d4931152e", "bert", "h100", [
        ("NVIDIA/results/dgxh100_ngc23.04_pytorch/bert", 1, 8, 768, 10, 7759.6),
        ("NVIDIA/results/dgxh100_n8_ngc23.04_pytorch/bert", 8, 8, 4608, 9, 53184.7),
        ("NVIDIA/results/dgxh100_n64_ngc23.04_pytorch/bert", 64, 8, 3072, 9, 138668.1),
        ("NVIDIA/results/dgxh100_n96_ngc23.04_pytorch/bert", 96, 8, 4608, 10, 190724.3),
        ("NVIDIA_CoreWeave/results/coreweave_hgxh100_n384_ngc23.04_pytorch/bert", 384, 8, 12288, 10, 599076.8),
    ]),
    ("mlperf-v4.0-eos-h100-resnet", "4.0", "6fe954378efe4a1a1bd665550b18ff8f26018def", "resnet", "h100", [
        ("NVIDIA/results/eos_ngc24.04_mxnet/resnet", 1, 8, 3200, 5, 56430.3),
        ("NVIDIA/results/eos_n8_ngc24.04_mxnet/resnet", 8, 8, 3200, 4, 300117.5),
        ("NVIDIA/results/eos_n316_ngc24.04_mxnet/resnet", 316, 8, 40448, 5, 6576832.6),
    ]),
    ("mlperf-v1.1-azure-nd96amsr-bert", "1.1", "ebe92f81f7a69255a3b0a907595d8be623d75ec6", "bert", "a100", [
        ("Azure/results/nd96amsr_a100_v4_ngc21.09_pytorch/bert", 1, 8, 448, 10, 2261.5),
        ("Azure/results/nd96amsr_a100_v4_n8_ngc21.09_pytorch/bert", 8, 8, 3072, 10, 16826.3),
        ("Azure/results/nd96amsr_a100_v4_n128_ngc21.09_pytorch/bert", 128, 8, 3072, 10, 69488.6),
        ("Azure/results/nd96amsr_a100_v4_n256_ngc21.09_pytorch/bert", 256, 8, 6144, 10, 133375.4),
    ]),
    ("mlperf-v2.1-azure-hazy-bert", "2.1", "158189d4cbfbee366c10da1f0f086c85d8f15b5f", "bert", "a100", [
        ("Azure-HazyResearch/results/ND96amsr_A100_v4_n1_pytorch/bert", 1, 8, 448, 10, 2433.0),
        ("Azure-HazyResearch/results/ND96amsr_A100_v4_n8_pytorch/bert", 8, 8, 3072, 10, 16547.9),
        ("Azure-HazyResearch/results/ND96amsr_A100_v4_n16_pytorch/bert", 16, 8, 3072, 10, 23195.5),
    ]),
    ("mlperf-v2.0-dell-xe8545-resnet", "2.0", "8437fbb78349aa3c3054aeccb1d47d2a315a80e7", "resnet", "a100", [
        ("Dell/results/XE8545x4A100-SXM-40GB/resnet", 1, 4, 816, 4, 12096.3),
        ("Dell/results/2xXE8545x4A100-SXM-40GB/resnet", 2, 4, 1632, 4, 22500.9),
        ("Dell/results/4xXE8545x4A100-SXM-40GB/resnet", 4, 4, 3264, 5, 43978.1),
        ("Dell/results/8xXE8545x4A100-SXM-40GB/resnet", 8, 4, 3264, 5, 76546.1),
        ("Dell/results/16xXE8545x4A100-SXM-40GB/resnet", 16, 4, 13056, 5, 174467.7),
        ("Dell/results/32xXE8545x4A100-SXM-40GB/resnet", 32, 4, 16384, 5, 309090.5),
    ]),
    ("mlperf-v2.0-dell-xe8545-bert", "2.0", "8437fbb78349aa3c3054aeccb1d47d2a315a80e7", "bert", "a100", [
        ("Dell/results/XE8545x4A100-SXM-40GB/bert", 1, 4, 256, 10, 1086.6),
        ("Dell/results/2xXE8545x4A100-SXM-40GB/bert", 2, 4, 448, 10, 1709.2),
        ("Dell/results/4xXE8545x4A100-SXM-40GB/bert", 4, 4, 448, 10, 2469.1),
        ("Dell/results/8xXE8545x4A100-SXM-40GB/bert", 8, 4, 1536, 10, 6773.0),
        ("Dell/results/16xXE8545x4A100-SXM-40GB/bert", 16, 4, 3072, 10, 13450.5),
        ("Dell/results/32xXE8545x4A100-SXM-40GB/bert", 32, 4, 3072, 10, 19561.5),
    ]),
    ("mlperf-v2.1-dell-xe8545-bert", "2.1", "158189d4cbfbee366c10da1f0f086c85d8f15b5f", "bert", "a100", [
        ("Dell/results/XE8545x4A100-SXM-40GB/bert", 1, 4, 256, 10, 1147.3),
        ("Dell/results/2xXE8545x4A100-SXM-40GB/bert", 2, 4, 448, 10, 1722.6),
        ("Dell/results/8xXE8545x4A100-SXM-40GB/bert", 8, 4, 1536, 10, 6746.8),
        ("Dell/results/16xXE8545x4A100-SXM-40GB/bert", 16, 4, 3072, 9, 13366.9),
    ]),
    ("mlperf-v1.1-dell-r750xa-resnet", "1.1", "ebe92f81f7a69255a3b0a907595d8be623d75ec6", "resnet", "a100-pcie", [
        ("Dell/results/R750xax4A100-PCIE-80GB/resnet", 1, 4, 1632, 5, 11982.2),
        ("Dell/results/2xR750xax4A100-PCIE-80GB/resnet", 2, 4, 3264, 5, 23484.7),
        ("Dell/results/4xR750xax4A100-PCIE-80GB/resnet", 4, 4, 3264, 5, 43511.5),
        ("Dell/results/8xR750xax4A100-PCIE-80GB/resnet", 8, 4, 13056, 5, 91171.7),
    ]),
    ("mlperf-v3.0-dell-r750xa-resnet", "3.0", "63e326c400f5d8bb8c6070a9ab08332d4931152e", "resnet", "a100-pcie", [
        ("Dell/results/R750xax4A100-PCIE-80GB/resnet", 1, 4, 1632, 5, 12310.1),
        ("Dell/results/2xR750xax4A100-PCIE-80GB/resnet", 2, 4, 3264, 5, 21473.2),
        ("Dell/results/4xR750xax4A100-PCIE-80GB/resnet", 4, 4, 3264, 5, 38859.1),
        ("Dell/results/8xR750xax4A100-PCIE-80GB/resnet", 8, 4, 3264, 5, 74683.1),
    ]),
    ("mlperf-v3.0-dell-r750xa-bert", "3.0", "63e326c400f5d8bb8c6070a9ab08332d4931152e", "bert", "a100-pcie", [
        ("Dell/results/R750xax4A100-PCIE-80GB/bert", 1, 4, 448, 10, 920.7),
        ("Dell/results/2xR750xax4A100-PCIE-80GB/bert", 2, 4, 448, 10, 1320.1),
        ("Dell/results/4xR750xax4A100-PCIE-80GB/bert", 4, 4, 768, 9, 2512.3),
        ("Dell/results/8xR750xax4A100-PCIE-80GB/bert", 8, 4, 1536, 10, 4987.3),
    ]),
    ("mlperf-v3.0-dell-r750xa-1opa-resnet", "3.0", "63e326c400f5d8bb8c6070a9ab08332d4931152e", "resnet", "a100-pcie", [
        ("Dell/results/R750xax4A100-PCIE-80GB/resnet", 1, 4, 1632, 5, 12310.1),
        ("Dell/results/2xR750xax4A100-PCIE-80GB-1opa/resnet", 2, 4, 3264, 4, 20736.3),
        ("Dell/results/4xR750xax4A100-PCIE-80GB-1opa/resnet", 4, 4, 3264, 4, 36584.7),
        ("Dell/results/8xR750xax4A100-PCIE-80GB-1opa/resnet", 8, 4, 3264, 5, 72060.8),
    ]),
    ("mlperf-v3.0-dell-r750xa-1opa-bert", "3.0", "63e326c400f5d8bb8c6070a9ab08332d4931152e", "bert", "a100-pcie", [
        ("Dell/results/R750xax4A100-PCIE-80GB/bert", 1, 4, 448, 10, 920.7),
        ("Dell/results/2xR750xax4A100-PCIE-80GB-1opa/bert", 2, 4, 448, 10, 1295.1),
        ("Dell/results/4xR750xax4A100-PCIE-80GB-1opa/bert", 4, 4, 768, 9, 1955.9),
        ("Dell/results/8xR750xax4A100-PCIE-80GB-1opa/bert", 8, 4, 1536, 10, 4816.8),
    ]),
    ("mlperf-v3.0-dell-r750xa-2opa-resnet", "3.0", "63e326c400f5d8bb8c6070a9ab08332d4931152e", "resnet", "a100-pcie", [
        ("Dell/results/R750xax4A100-PCIE-80GB/resnet", 1, 4, 1632, 5, 12310.1),
        ("Dell/results/2xR750xax4A100-PCIE-80GB-2opa/resnet", 2, 4, 3264, 4, 21125.1),
        ("Dell/results/4xR750xax4A100-PCIE-80GB-2opa/resnet", 4, 4, 3264, 5, 39590.5),
        ("Dell/results/8xR750xax4A100-PCIE-80GB-2opa/resnet", 8, 4, 3264, 5, 73864.5),
    ]),
    ("mlperf-v3.0-dell-r750xa-2opa-bert", "3.0", "63e326c400f5d8bb8c6070a9ab08332d4931152e", "bert", "a100-pcie", [
        ("Dell/results/R750xax4A100-PCIE-80GB/bert", 1, 4, 448, 10, 920.7),
        ("Dell/results/2xR750xax4A100-PCIE-80GB-2opa/bert", 2, 4, 448, 10, 1461.2),
        ("Dell/results/4xR750xax4A100-PCIE-80GB-2opa/bert", 4, 4, 768, 9, 2588.7),
        ("Dell/results/8xR750xax4A100-PCIE-80GB-2opa/bert", 8, 4, 1536, 10, 5162.1),
    ]),
]


def make_case(mgsim, name, rnd, commit, bench, gpu, rows):
    model, model_args, schedule, optimizer = MODEL[bench]
    submitter = rows[0][0].split("/")[0]
    source = "mlperf-" + SUBMITTERS[submitter]
    calibrate, predict = [], []
    for i, (_, nodes, per_node, global_batch, _, throughput) in enumerate(rows):
        batch = global_batch // (nodes * per_node)
        trace = lib.zoo_trace(mgsim, "mlperf-%s-%s-b%d" % (model, gpu, batch), model, gpu, "fp16", batch,
                              model_args=model_args, optimizer=optimizer)
        (calibrate if i < 2 else predict).append(lib.row(trace, nodes * per_node, schedule, throughput, source))
    per_node = rows[0][2]
    # NCCL's NVLS tree (NVSwitch nodes with NVLS, NCCL 2.18.1 or later) runs in the H100
    # submissions of NGC 24.xx containers (NCCL 2.21); the 23.04 ones ship NCCL 2.17.1,
    # which has none: a fact of the hardware and software, not a fit.
    nvls = gpu == "h100" and "_ngc24." in rows[0][0]
    collective = {"name": "nccl", "nvls_tree": 1} if nvls else "nccl"
    config = {"trace": calibrate[0]["trace"], "gpus": [per_node], "gpus_per_node": per_node, "collective": collective,
              "optimizer": optimizer,
              "speed_classes": [{"fraction": 1, "speed": 1}],
              "network": lib.links(inter_bytes_per_s(name, gpu), INTRA_BUS_BYTES_PER_S[gpu]), "sync_overhead_s": 0,
              "schedules": [schedule]}
    sources = {source: {
        "url": REPO % (rnd, commit),
        "table": "result logs (result_*.txt) of " + ", ".join("%s (%d nodes, %d runs)" % (f, n, r)
                                                              for f, n, _, _, r, _ in rows),
        "hardware": HARDWARE[gpu], "software": SOFTWARE[bench],
        "measured": "samples trained / (run_stop - run_start%s), median over the successful runs "
                    "(scripts/mlperf_log_throughput.py); batch per GPU = global_batch_size / GPUs"
                    % (" less the logged evaluations, eval_start to eval_stop" if bench == "resnet"
                       else "; the logs mark no evaluation, so it is included")}}
    description = ("MLPerf Training v%s, %s, %s, %s nodes: links at their rated bandwidths (%s a GPU inside a node, "
                   "%s a node between nodes), compute speed and %s fitted on 1 and %d nodes; larger node counts "
                   "predicted (scripts/make_mlperf_validation.py)."
                   % (rnd, submitter, model, "-".join(str(r[1]) for r in rows), lib.gbytes(INTRA_BUS_BYTES_PER_S[gpu]),
                      lib.gbytes(inter_bytes_per_s(name, gpu)), lib.SYNC_FIT, rows[1][1]))
    lib.case(name, description, sources, config, ["speed_classes.0.speed", lib.SYNC_FIT], calibrate, predict)


if __name__ == "__main__":
    lib.run(__doc__, {c[0]: c[1:] for c in CASES}, lambda mgsim, name, spec: make_case(mgsim, name, *spec))
