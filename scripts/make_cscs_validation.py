#!/usr/bin/env python3
"""Write the Piz Daint / Amazon EC2 cases of the validation set (validation/cscs-*.json).

Source: E. Bugliarello et al., "Distributed TensorFlow" report (ETH Zurich / CSCS,
August 2017 tests), repository e-bug/distributed-tensorflow-benchmarks, file
report/source/benchmarks.tex at the commit below: tables "Parameters achieving
peak performance" on Piz Daint (tab:peak-perf-daint), on p2.xlarge
(tab:peak-perf-p2) and on p2.8xlarge (tab:peak-perf-p28). Every number is quoted
exactly; only the synthetic-data rows (Real Data FALSE) are used, as mgsim does
not model reading images. All runs: InceptionV3, batch 64 per GPU, TensorFlow
1.1.0, tf_cnn_benchmarks, local parameter device CPU, parameter servers on the
worker nodes; each row is the best of several PS counts, and the table gives
that count.

How a run is modelled: the zoo's Inception-v3 (no auxiliary head) scaled to the
table's 1-GPU throughput, schedule `wfbp` (one message per tensor, as gradients
are ready). One GPU per node (Piz Daint, p2.xlarge): every GPU is a worker on its
own link and S of them also serve (`ps-colocated` with the row's S, as the row's
own collective). Eight GPUs per node (p2.8xlarge, distributed_replicated: each
machine aggregates its GPUs first, then pushes to the servers): `hierarchical`,
whose inter-node traffic equals a colocated PS's with one server per machine,
the table's count at 8 and 16 machines (fewer servers at 2 and 4 machines).
Links at their rated bandwidths, latencies 0: PCIe 3.0 x16 between a K80 and its
peers inside a p2.8xlarge, 10 Gb Ethernet between p2.8xlarge instances, PCIe 3.0 x16
into Piz Daint's Aries NIC (its host interface); fitted on the named rows: the seconds
of coordination an iteration on more than one GPU adds (sync_overhead_s). EC2 rates a
p2.xlarge's network only as "High", no figure: that case fits its link bandwidth
(network.beta_s_per_byte) instead. On one GPU a node (Piz Daint, p2.xlarge) the
throughput falls below linear at 64 and 128 nodes, where every node's traffic shares
the fabric between them (Aries' global links, EC2's network): those cases also fit
the fabric's seconds per byte (network.fabric_s_per_byte, docs/collectives.md "A
shared fabric") at 64 GPUs and predict 128 with it.

Usage (repository root, after building): python3 scripts/make_cscs_validation.py [--mgsim build/src/mgsim]
"""

import validation_lib as lib

URL = ("https://github.com/e-bug/distributed-tensorflow-benchmarks/blob/097e9d738a715cdb8a90d20f39dabef26d5ab960/"
       "report/source/benchmarks.tex")
SOFTWARE = ("TensorFlow 1.1.0, tf_cnn_benchmarks, CUDA 8.0 / cuDNN 5.1, sgd, NCHW; 10 warm-up steps, then 100 "
            "steps averaged, each test run 5 times")

# Per case: GPU, GPUs per node, table label, hardware, rows (parameter servers, GPUs, images/s,
# variable_update), the rated bandwidths of the links (between nodes, inside one: None for one
# link) and what they are, or (p2.xlarge, unrated) the link and the fitted path, the GPU counts
# that calibrate the fit, and the collective of the config (None: each row's ps-colocated with its S).
CASES = {
    "cscs-daint-p100": dict(
        gpu="p100", per_node=1, table="tab:peak-perf-daint ('Parameters achieving peak performance on Piz Daint')",
        hardware="Piz Daint (Cray XC50, CSCS): one NVIDIA Tesla P100 per node, Aries interconnect (dragonfly)",
        rows=[(1, 1, 138.23, "parameter_server"), (1, 2, 264.57, "parameter_server"),
              (3, 4, 523.38, "distributed_replicated"), (2, 8, 1018.18, "parameter_server"),
              (4, 16, 2001.00, "parameter_server"), (12, 32, 3840.35, "parameter_server"),
              (40, 64, 7118.31, "parameter_server"), (116, 128, 9219.70, "parameter_server")],
        links=(lib.PCIE3_X16, None), rated="PCIe 3.0 x16 into the Aries NIC", calibrating=[2, 64], collective=None),
    "cscs-aws-p2-xlarge": dict(
        gpu="k80", per_node=1, table="tab:peak-perf-p2 ('Parameters achieving peak performance on p2.xlarge systems')",
        hardware="Amazon EC2 p2.xlarge instances: one K80 GPU (half a K80 board) each, local SSD",
        rows=[(1, 1, 30.55, "parameter_server"), (2, 2, 57.45, "distributed_replicated"),
              (4, 4, 114.57, "distributed_replicated"), (8, 8, 228.41, "distributed_replicated"),
              (12, 16, 431.64, "distributed_replicated"), (32, 32, 825.64, "parameter_server"),
              (64, 64, 996.32, "parameter_server"), (128, 128, 1077.59, "parameter_server")],
        network={"alpha_us": 0, "beta_s_per_byte": 1e-9, "fabric_s_per_byte": 0},
        fit=["network.beta_s_per_byte", "network.fabric_s_per_byte"], calibrating=[2, 64],
        collective=None),
    "cscs-aws-p2-8xlarge": dict(
        gpu="k80", per_node=8,
        table="tab:peak-perf-p28 ('Parameters achieving peak performance on p2.8xlarge systems')",
        hardware="Amazon EC2 p2.8xlarge instances: 8 K80 GPUs (four K80 boards) each, local SSD",
        rows=[(1, 1, 30.55, "parameter_server"), (1, 2, 58.38, "distributed_replicated"),
              (1, 4, 116.34, "distributed_replicated"), (1, 8, 230.75, "distributed_replicated"),
              (1, 16, 448.57, "distributed_replicated"), (3, 32, 863.72, "distributed_replicated"),
              (8, 64, 1731.31, "distributed_replicated"), (16, 128, 3333.20, "distributed_replicated")],
        links=(lib.ETHERNET_10G, lib.PCIE3_X16), rated="PCIe 3.0 x16 inside an instance, 10 Gb Ethernet between",
        calibrating=[8, 16], collective="hierarchical"),
}


def make_case(mgsim, name, spec):
    source = "cscs-report"
    one_gpu = spec["rows"][0][2]
    trace = lib.zoo_trace(mgsim, name + "-inception-v3-b64", "inception-v3", spec["gpu"], "fp32", 64, one_gpu,
                          "%s, %s: 1 GPU, synthetic data" % (URL, spec["table"]),
                          optimizer="none")  # the parameter servers update (docs/schedules.md#the-optimizer-step)
    calibrate, predict = [], []
    for servers, gpus, throughput, _ in spec["rows"]:
        own = None if spec["collective"] else {"name": "ps-colocated", "servers": servers}
        fits = gpus == 1 or gpus in spec["calibrating"]
        (calibrate if fits else predict).append(lib.row(trace, gpus, "wfbp", throughput, source, own))
    config = {"trace": trace, "gpus": [1], "gpus_per_node": spec["per_node"],
              "collective": spec["collective"] or "ps-colocated"}
    if "links" in spec:
        config.update({"network": lib.links(*spec["links"]), "sync_overhead_s": 0})
        fit = [lib.SYNC_FIT]
        if 64 in spec["calibrating"]:
            config["network"]["fabric_s_per_byte"] = 0
            fit.append("network.fabric_s_per_byte")
        how = "links at their rated bandwidths (%s: %s), %s" % (
            spec["rated"], ", ".join(lib.gbytes(b) for b in spec["links"][::-1] if b is not None), " and ".join(fit))
    else:
        config["network"] = spec["network"]
        fit = spec["fit"]
        how = " and ".join(fit) + " (EC2 gives the link no rated figure)"
    config["schedules"] = ["wfbp"]
    updates = ", ".join("%d GPUs: %s, %d PS" % (g, u, s) for s, g, _, u in spec["rows"])
    sources = {source: {
        "url": URL, "table": spec["table"] + ", rows with Real Data FALSE", "hardware": spec["hardware"],
        "software": SOFTWARE, "measured": "training throughput of InceptionV3 on synthetic data, images/s (total), "
                                          "batch 64 per GPU; the best over the numbers of parameter servers tried",
        "note": "variable_update and parameter servers per row: " + updates}}
    description = ("InceptionV3, TensorFlow 1.1.0 on %s, 1 to 128 GPUs: compute from the 1-GPU throughput, %s "
                   "fitted at %s GPUs; everything else predicted (scripts/make_cscs_validation.py)."
                   % (spec["hardware"].split(":")[0], how, " and ".join(str(g) for g in spec["calibrating"])))
    lib.case(name, description, sources, config, fit, calibrate, predict)


if __name__ == "__main__":
    lib.run(__doc__, CASES, make_case)
