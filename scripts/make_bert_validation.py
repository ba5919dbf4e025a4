#!/usr/bin/env python3
"""Write the BERT-large pre-training cases of the validation set.

Sources: the multi-node training-performance tables of NVIDIA
DeepLearningExamples' BERT READMEs (PyTorch, TensorFlow 1, TensorFlow 2,
PaddlePaddle), numbers quoted exactly below with the README's commit. Each
table becomes one case (validation/<case>.json) and its traces
(validation/traces/bert-*).

How a run is modelled. These runs accumulate gradients over many
micro-batches and all-reduce once per optimizer step, after the last
backward pass (PyTorch: allreduce_post_accumulation in one flat buffer;
TensorFlow: hvd.allreduce of the accumulated gradients), in fp16 under AMP
(allreduce_post_accumulation_fp16, Horovod Compression.fp16), fp32 otherwise.
mgsim has no accumulation, so one simulated iteration is one optimizer step:
the trace's batch is micro-batch x accumulation steps per GPU, its compute is
scaled with `mgsim zoo trace --throughput` to the README's 1-GPU throughput
of the same precision and sequence length, and the schedule is `single` (one
merged all-reduce after the backward). The links run at their rated
bandwidths (MACHINES below: NVLink inside a node, the node's InfiniBand adapters
between nodes). Each case fits one number, the seconds of coordination an
iteration (an optimizer step) on more than one GPU adds (sync_overhead_s), on one
multi-node row (mixed precision, sequence 128, the smallest multi-node count);
every other multi-GPU row is predicted. PaddlePaddle keeps fp32 parameters under AMP
(O1, not --use-pure-fp16) and merges gradients (fleet gradient_merge) before
one fused fp32 all-reduce: its traces carry 4-byte gradients in both precisions.

Two older TensorFlow 1 tables (DGX-1 16G and DGX-2H, TensorFlow 19.08) were
measured "with number of accumulation steps set to 1": every step all-reduces
through hvd.DistributedOptimizer (Horovod tensor fusion during the backward,
Compression.fp16 under AMP), so their cases run the `horovod` schedule on the
micro-batch, scaled to the same README's single-node 1-GPU figure at the same
batch (rows whose batch the 1-GPU table lacks are left out), and fit
sync_overhead_s on their mixed-precision rows at 1 and 4 nodes (sequence 128 on the DGX-1; 512 on the
DGX-2H, whose 1-GPU table has sequence-128 mixed precision only at another
batch).

Usage (repository root, after building): python3 scripts/make_bert_validation.py [--mgsim build/src/mgsim]
"""

import os
import subprocess

import validation_lib as lib

DLE = "https://github.com/NVIDIA/DeepLearningExamples/blob/"

PT = DLE + "a07d20a124b2b7187fc81029250da043d266e58d/PyTorch/LanguageModeling/BERT/README.md"
TF1 = DLE + "9de48bc9ca8ce635960620478a39dd332ed74ff6/TensorFlow/LanguageModeling/BERT/README.md"
TF2 = DLE + "7ee81a1686ec01a2ee81b1e6e96e64a99c4962c9/TensorFlow2/LanguageModeling/BERT/README.md"
PADDLE = DLE + "a5388a45f71a949639b35cc5b990bd130d2d8164/PaddlePaddle/LanguageModeling/BERT/README.md"
TF1_STEP = DLE + "58a3ed6baba5a1e42311e7bd590fc37c512f1a70/TensorFlow/LanguageModeling/BERT/README.md"

# Per case: source, GPU, GPUs per node, 1-GPU throughputs {(precision, seq): sequences/s} with the table they
# come from, and the rows (nodes, seq, precision, batch per GPU per optimizer step = micro x accumulation,
# sequences/s). Precision "amp" is mixed precision (fp16 math; fp16 all-reduce unless grad_bytes says otherwise).
# Optional: grad_bytes (bytes per gradient element where the all-reduce is not in the roofline precision),
# accumulation=False (cases measured without accumulation: `horovod` schedule, intra and inter links fitted on
# the `fit_series` rows at 1 and 4 nodes).
CASES = {
    "bert-pt-dgxa100": dict(
        source="pytorch-bert", url=PT, gpu="a100", per_node=8, high="tf32",
        hardware="NVIDIA DGX A100 (8x A100 80GB) nodes",
        software="pytorch:21.11-py3 NGC container, scripts/run_pretraining.sh (LAMB, allreduce_post_accumulation, fp16 all-reduce under AMP)",
        table="'Pre-training NVIDIA DGX A100 (8x A100 80GB)' (1 GPU) and 'Pre-training NVIDIA DGX A100 (8x A100 80GB) Multi-node Scaling'",
        one_gpu={("amp", 128): 580, ("tf32", 128): 317, ("amp", 512): 210, ("tf32", 512): 110},
        # accumulated batch / GPU column (TF32 and FP16 equal)
        rows=[(n, 128, p, b, t) for n, b, ta, tt in [(1, 8192, 4553, 2486), (2, 4096, 9191, 4979), (4, 2048, 18119, 9859),
                                                     (8, 1024, 35774, 19815), (16, 512, 70555, 38866), (32, 256, 138294, 75706)]
              for p, t in (("amp", ta), ("tf32", tt))] +
             [(n, 512, p, b, t) for n, b, ta, tt in [(1, 4096, 1648, 854), (2, 2048, 3291, 1684), (4, 1024, 6464, 3293),
                                                     (8, 512, 13005, 6515), (16, 256, 25570, 12131), (32, 128, 49663, 21298)]
              for p, t in (("amp", ta), ("tf32", tt))]),
    "bert-tf1-dgx2h": dict(
        source="tf1-bert", url=TF1, gpu="v100", per_node=16, high="fp32",
        hardware="NVIDIA DGX-2H nodes (16x V100 32GB); the 1-GPU figures from a DGX-2 (16x V100 32GB)",
        software="multi-node: TensorFlow 19.08-py3 NGC container, run.sub; 1 GPU: TensorFlow 20.06-py3, scripts/run_pretraining_lamb.sh; Horovod, Compression.fp16 under AMP",
        table="'Pre-training training performance: single-node on DGX-2 32GB' (1 GPU) and 'Pre-training training performance: multi-node on DGX-2H 32GB'",
        one_gpu={("amp", 128): 188.04, ("fp32", 128): 35.32, ("amp", 512): 35.32, ("fp32", 512): 11.67},
        rows=[(n, 128, "amp", 64 * a, t) for n, a, t in [(1, 64, 3081.69), (4, 16, 13192.00), (16, 4, 48223.00), (32, 2, 86673.64)]] +
             [(n, 128, "fp32", 32 * a, t) for n, a, t in [(1, 128, 761.92), (4, 32, 3389.83), (16, 8, 13217.78), (32, 4, 25142.26)]] +
             [(n, 512, "amp", 8 * a, t) for n, a, t in [(1, 256, 577.79), (4, 64, 2284.23), (16, 16, 8853.00), (32, 8, 17059.00)]] +
             [(n, 512, "fp32", 8 * a, t) for n, a, t in [(1, 256, 173.26), (4, 64, 765.04), (16, 16, 3001.43), (32, 8, 5893.14)]]),
    "bert-tf1-dgxa100": dict(
        source="tf1-bert", url=TF1, gpu="a100", per_node=8, high="tf32",
        hardware="NVIDIA DGX A100 (8x A100 40GB) nodes",
        software="TensorFlow 20.06-py3 NGC container, scripts/run_pretraining_lamb.sh; Horovod, Compression.fp16 under AMP",
        table="'Pre-training training performance: single-node on DGX A100 40GB' (1 GPU) and 'Pre-training training performance: multi-node on DGX A100 40GB'",
        one_gpu={("amp", 128): 356.845, ("tf32", 128): 238.10, ("amp", 512): 70.856, ("tf32", 512): 39.96},
        rows=[(n, 128, "amp", 64 * a, t) for n, a, t in [(1, 128, 2871.89), (4, 32, 11159), (16, 8, 41144), (32, 4, 77479.87)]] +
             [(n, 128, "tf32", 64 * a, t) for n, a, t in [(1, 128, 1889.71), (4, 32, 7532.00), (16, 8, 28605.62), (32, 4, 53585.82)]] +
             [(n, 512, "amp", 16 * a, t) for n, a, t in [(1, 256, 572.112), (4, 128, 2197.44), (16, 32, 8723.1), (32, 16, 16705)]] +
             [(n, 512, "tf32", 8 * a, t) for n, a, t in [(1, 512, 316.51), (4, 128, 1268.43), (16, 32, 4903.39), (32, 16, 9463.80)]]),
    "bert-tf2-dgx2h": dict(
        source="tf2-bert", url=TF2, gpu="v100", per_node=16, high="fp32",
        hardware="NVIDIA DGX-2H nodes (16x V100 32GB); the 1-GPU figures from a DGX-2 (16x V100 32GB)",
        software="TensorFlow 21.02-py3 NGC container, run.sub (multi-node), scripts/run_pretraining_lamb.sh (1 GPU); Horovod, Compression.fp16 under AMP",
        table="'Pre-training training performance: Single-node on NVIDIA DGX-2 V100 (16x V100 32GB)' (1 GPU) and 'Pre-training training performance: Multi-node on NVIDIA DGX-2H V100 (16x V100 32GB)'",
        one_gpu={("amp", 128): 206.5, ("fp32", 128): 49.97, ("amp", 512): 40.95, ("fp32", 512): 11.06},
        rows=[(n, 128, "amp", 60 * a, t) for n, a, t in [(1, 64, 3528.51), (4, 16, 13370.21), (16, 4, 42697.42), (32, 2, 84223.16)]] +
             [(n, 128, "fp32", 32 * a, t) for n, a, t in [(1, 128, 841.72), (4, 32, 3060.49), (16, 8, 10383.57), (32, 4, 20094.14)]] +
             [(n, 512, "amp", 10 * a, t) for n, a, t in [(1, 192, 678.35), (4, 96, 2678.29), (16, 24, 7834.72), (32, 6, 18786.93)]] +
             [(n, 512, "fp32", 4 * a, t) for n, a, t in [(1, 256, 180), (4, 64, 646.76), (16, 32, 2204.72), (32, 16, 4196.15)]]),
    "bert-tf2-dgxa100": dict(
        source="tf2-bert", url=TF2, gpu="a100", per_node=8, high="tf32",
        hardware="NVIDIA DGX A100 (8x A100 80GB) for 1 GPU; multi-node text: DGX A100 with 8x A100 40GB",
        software="TensorFlow 21.02-py3 NGC container, scripts/run_pretraining_lamb.sh; Horovod, Compression.fp16 under AMP",
        table="'Pre-training training performance: Single-node on NVIDIA DGX A100 (8x A100 80GB)' (1 GPU) and 'Pre-training training performance: Multi-node on NVIDIA DGX A100 (8x A100 80GB)'",
        one_gpu={("amp", 128): 485.59, ("tf32", 128): 282.98, ("amp", 512): 96.52, ("tf32", 512): 54.92},
        rows=[(n, 128, "amp", 312 * a, t) for n, a, t in [(1, 32, 3803.82), (2, 16, 7551.37), (8, 4, 29711.11), (32, 1, 110280.73)]] +
             [(n, 128, "tf32", 176 * a, t) for n, a, t in [(1, 64, 2062.98), (2, 32, 4084.76), (8, 8, 16134.02), (32, 2, 59569.77)]] +
             [(n, 512, "amp", 40 * a, t) for n, a, t in [(1, 96, 749.73), (2, 48, 1491.87), (8, 12, 5870.83), (32, 3, 22506.23)]] +
             [(n, 512, "tf32", 22 * a, t) for n, a, t in [(1, 192, 431.89), (2, 96, 739.14), (8, 24, 2926.58), (32, 6, 11240.5)]]),
    "bert-paddle-dgxa100": dict(
        source="paddle-bert", url=PADDLE, gpu="a100", per_node=8, high="tf32", grad_bytes=4,
        hardware="NVIDIA DGX A100 (8x A100 80GB) nodes",
        software="PaddlePaddle:22.12-py3 NGC container, scripts/run_pretraining.sh (Lamb, fleet gradient_merge, AMP O1 "
                 "with fp32 parameters: fp32 all-reduce)",
        table="'Pre-training NVIDIA DGX A100 (8x A100 80GB)' (1 GPU) and 'Pre-training NVIDIA DGX A100 (8x A100 80GB) Multi-node Scaling'",
        one_gpu={("amp", 128): 694, ("tf32", 128): 307, ("amp", 512): 264, ("tf32", 512): 107},
        rows=[(n, 128, p, b, t) for n, b, ta, tt in [(1, 8192, 5541, 2428), (2, 4096, 10646, 4638), (4, 2048, 21389, 9445),
                                                     (8, 1024, 41681, 18335), (16, 512, 79023, 35526), (32, 256, 157952, 69701)]
              for p, t in (("amp", ta), ("tf32", tt))] +
             [(n, 512, p, b, t) for n, b, ta, tt in [(1, 4096, 2109, 851), (2, 2048, 4051, 1601), (4, 1024, 7972, 3240),
                                                     (8, 512, 15760, 6329), (16, 256, 31129, 12273), (32, 128, 60206, 24047)]
              for p, t in (("amp", ta), ("tf32", tt))]),
    # No accumulation. FP32 at sequence 128 ran at batch 4 on the nodes, 8 in the 1-GPU table: left out.
    "bert-tf1-dgx1-step": dict(
        source="tf1-bert-step", url=TF1_STEP, gpu="v100", per_node=8, high="fp32", accumulation=False,
        fit_series=("amp", 128),
        hardware="NVIDIA DGX-1 nodes (8x V100 16GB)",
        software="TensorFlow 19.08-py3 NGC container, run.sub (multi-node), scripts/run_pretraining_lamb.sh (1 GPU); "
                 "Horovod DistributedOptimizer, Compression.fp16 under AMP, accumulation steps 1",
        table="'Pre-training training performance: single-node on 16G' (1 GPU) and 'Pre-training training performance: multi-node on 16G'",
        one_gpu={("amp", 128): 91.30, ("amp", 512): 20.00, ("fp32", 512): 4.00},
        rows=[(n, 128, "amp", 16, t) for n, t in [(1, 571.877), (4, 2028.85), (16, 7299.88), (32, 13917.37)]] +
             [(n, 512, "amp", 4, t) for n, t in [(1, 128.94), (4, 466), (16, 1632), (32, 3076)]] +
             [(n, 512, "fp32", 1, t) for n, t in [(1, 25.65), (4, 92.36), (16, 325.22), (32, 614.18)]]),
    # No accumulation. Mixed precision at sequence 128 ran at batch 32 on the nodes, 48 in the 1-GPU table: left out.
    "bert-tf1-dgx2h-step": dict(
        source="tf1-bert-step", url=TF1_STEP, gpu="v100", per_node=16, high="fp32", accumulation=False,
        fit_series=("amp", 512),
        hardware="NVIDIA DGX-2H nodes (16x V100 32GB); the 1-GPU figures from a DGX-2 (16x V100 32GB)",
        software="TensorFlow 19.08-py3 NGC container, run.sub (multi-node), scripts/run_pretraining_lamb.sh (1 GPU); "
                 "Horovod DistributedOptimizer, Compression.fp16 under AMP, accumulation steps 1",
        table="'Pre-training training performance: single-node on DGX-2 32G' (1 GPU) and 'Pre-training training performance: multi-node on DGX-2H 32G'",
        one_gpu={("fp32", 128): 36.30, ("amp", 512): 26.90, ("fp32", 512): 6.90},
        rows=[(n, 128, "fp32", 32, t) for n, t in [(1, 602.22), (4, 2261.10), (16, 8875.42), (32, 17445.53), (64, 34263.71)]] +
             [(n, 512, "amp", 8, t) for n, t in [(1, 383.35), (4, 1408.75), (16, 5344.10), (32, 10323.75), (64, 19766.57)]] +
             [(n, 512, "fp32", 4, t) for n, t in [(1, 109.97), (4, 400.93), (16, 1559.96), (32, 3061.39), (64, 6029.48)]]),
}

ROOFLINE_PRECISION = {"amp": "fp16", "fp32": "fp32", "tf32": "tf32"}


def make_trace(mgsim, name, case, seq, precision, batch):
    """Writes validation/traces/<name>.json; returns its path relative to validation/."""
    rel = "traces/%s.json" % name
    throughput = case["one_gpu"][(precision, seq)]
    command = [mgsim, "zoo", "trace", "--model", "bert-large", "--aux-heads", "--seq-len", str(seq),
               "--precision", ROOFLINE_PRECISION[precision], "--gpu", case["gpu"], "--batch", str(batch),
               "--optimizer", "adam",  # LAMB: Adam's two moments (its norms are not timed)
               "--throughput", repr(throughput), "--measured-by",
               "%s, %s: 1-GPU %s throughput at sequence length %d" % (case["url"], case["table"].split(" and ")[0],
                                                                     precision, seq),
               "-o", os.path.join(lib.VALIDATION, rel)]
    subprocess.run(command, check=True)
    if "grad_bytes" in case:
        lib.set_gradient_bytes(os.path.join(lib.VALIDATION, rel), case["grad_bytes"])
    return rel


def row(trace, gpus, throughput, case):
    return {"trace": trace, "gpus": gpus, "schedule": case_schedule(case), "throughput_samples_per_s": throughput,
            "source": case["source"]}


def case_schedule(case):
    return "single" if case.get("accumulation", True) else "horovod"


def calibrates(case, nodes, seq, precision, smallest):
    """Whether a multi-GPU row fits sync_overhead_s (see the module's docstring)."""
    if case.get("accumulation", True):
        return nodes == smallest and seq == 128 and precision == "amp"
    return (precision, seq) == case["fit_series"] and nodes in (1, 4)


# Rated links per machine (GPU, GPUs a node): between nodes (the node's InfiniBand adapters
# together), inside one (NVLink a GPU), and what they are.
MACHINES = {("a100", 8): (8 * lib.HDR, lib.NVLINK_A100, "DGX A100: 8 HDR adapters a node, NVLink 3.0"),
            ("v100", 16): (8 * lib.EDR, lib.NVLINK_V100, "DGX-2H: 8 EDR adapters a node, NVLink 2.0 / NVSwitch"),
            ("v100", 8): (4 * lib.EDR, lib.NVLINK_V100, "DGX-1: 4 EDR adapters a node, NVLink 2.0")}


def description(case, smallest):
    nodes = max(r[0] for r in case["rows"])
    inter, intra, what = MACHINES[(case["gpu"], case["per_node"])]
    rated = "links at their rated bandwidths (%s: %s between nodes, %s a GPU)" % (what, lib.gbytes(inter),
                                                                                  lib.gbytes(intra))
    if case.get("accumulation", True):
        return ("BERT-large pre-training (LAMB, gradient accumulation) on %s, 1 to %d nodes: compute from each 1-GPU "
                "throughput, %s, %s fitted to mixed precision, sequence 128 at %d nodes; everything else predicted "
                "(scripts/make_bert_validation.py)." % (case["hardware"], nodes, rated, lib.SYNC_FIT, smallest))
    return ("BERT-large pre-training without gradient accumulation (Horovod) on %s, 1 to %d nodes: compute from each "
            "1-GPU throughput at the same batch, %s, %s fitted to mixed precision, sequence %d at 1 and 4 nodes; "
            "everything else predicted (scripts/make_bert_validation.py)."
            % (case["hardware"], nodes, rated, lib.SYNC_FIT, case["fit_series"][1]))


def make_case(mgsim, name, case):
    calibrate, predict = [], []
    smallest = min(n for n, _, _, _, _ in case["rows"] if n > 1)
    first_trace = {}
    for nodes, seq, precision, batch, throughput in case["rows"]:
        trace = make_trace(mgsim, "%s-%s-s%d-b%d" % (name, precision, seq, batch), case, seq, precision, batch)
        if (precision, seq) not in first_trace:
            first_trace[(precision, seq)] = trace
            calibrate.append(row(trace, 1, case["one_gpu"][(precision, seq)], case))
        fits = calibrates(case, nodes, seq, precision, smallest)
        (calibrate if fits else predict).append(row(trace, nodes * case["per_node"], throughput, case))
    inter, intra, _ = MACHINES[(case["gpu"], case["per_node"])]
    batch_note = ("batch per GPU per optimizer step = micro-batch x gradient accumulation steps of each row"
                  if case.get("accumulation", True) else "batch per GPU of each row, accumulation steps 1")
    document = {
        "format": "mgsim-validation", "version": 1,
        "description": description(case, smallest),
        "sources": {case["source"]: {
            "url": case["url"], "table": case["table"], "hardware": case["hardware"], "software": case["software"],
            "measured": "pre-training throughput, sequences/s, BERT-large, phase 1 (sequence 128) and phase 2 (512); "
                        + batch_note}},
        "config": {"trace": next(iter(first_trace.values())), "gpus": [1], "gpus_per_node": case["per_node"],
                   "collective": "nccl", "optimizer": "adam", "network": lib.links(inter, intra),
                   "sync_overhead_s": 0, "schedules": [case_schedule(case)]},
        "fit": [lib.SYNC_FIT],
        "calibrate": calibrate, "predict": predict,
    }
    lib.write_json(os.path.join(lib.VALIDATION, name + ".json"), document)


if __name__ == "__main__":
    lib.run(__doc__, CASES, make_case)
