#!/usr/bin/env python3
"""Write the BERT-large pre-training cases of the validation set.

Sources: the multi-node training-performance tables of NVIDIA
DeepLearningExamples' BERT READMEs (PyTorch, TensorFlow 1, TensorFlow 2),
numbers quoted exactly below with the README's commit. Each table becomes
one case (validation/<case>.json) and its traces (validation/traces/bert-*).

How a run is modelled. These runs accumulate gradients over many
micro-batches and all-reduce once per optimizer step, after the last
backward pass (PyTorch: allreduce_post_accumulation in one flat buffer;
TensorFlow: hvd.allreduce of the accumulated gradients), in fp16 under AMP
(allreduce_post_accumulation_fp16, Horovod Compression.fp16), fp32 otherwise.
mgsim has no accumulation, so one simulated iteration is one optimizer step:
the trace's batch is micro-batch x accumulation steps per GPU, its compute is
scaled with `mgsim zoo trace --throughput` to the README's 1-GPU throughput
of the same precision and sequence length, and the schedule is `single` (one
merged all-reduce after the backward). Each case fits one number, the nccl
model's flat bus bandwidth (network.beta_s_per_byte), on one multi-node row
(mixed precision, sequence 128, the smallest multi-node count); every other
multi-GPU row is predicted.

Usage (repository root, after building): python3 scripts/make_bert_validation.py [--mgsim build/src/mgsim]
"""

import os
import subprocess

import validation_lib as lib

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VALIDATION = os.path.join(REPO_ROOT, "validation")
DLE = "https://github.com/NVIDIA/DeepLearningExamples/blob/"

PT = DLE + "a07d20a124b2b7187fc81029250da043d266e58d/PyTorch/LanguageModeling/BERT/README.md"
TF1 = DLE + "9de48bc9ca8ce635960620478a39dd332ed74ff6/TensorFlow/LanguageModeling/BERT/README.md"
TF2 = DLE + "7ee81a1686ec01a2ee81b1e6e96e64a99c4962c9/TensorFlow2/LanguageModeling/BERT/README.md"

# Per case: source, GPU, GPUs per node, 1-GPU throughputs {(precision, seq): sequences/s} with the table they
# come from, and the rows (nodes, seq, precision, batch per GPU per optimizer step = micro x accumulation,
# sequences/s). Precision "amp" is mixed precision (fp16 math and fp16 all-reduce).
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
}

ROOFLINE_PRECISION = {"amp": "fp16", "fp32": "fp32", "tf32": "tf32"}


def make_trace(mgsim, name, case, seq, precision, batch):
    """Writes validation/traces/<name>.json unless it exists; returns its path relative to validation/."""
    rel = "traces/%s.json" % name
    throughput = case["one_gpu"][(precision, seq)]
    command = [mgsim, "zoo", "trace", "--model", "bert-large", "--aux-heads", "--seq-len", str(seq),
               "--precision", ROOFLINE_PRECISION[precision], "--gpu", case["gpu"], "--batch", str(batch),
               "--throughput", repr(throughput), "--measured-by",
               "%s, %s: 1-GPU %s throughput at sequence length %d" % (case["url"], case["table"].split(" and ")[0],
                                                                     precision, seq),
               "-o", os.path.join(VALIDATION, rel)]
    subprocess.run(command, check=True)
    return rel


def row(trace, gpus, throughput, source):
    return {"trace": trace, "gpus": gpus, "schedule": "single", "throughput_samples_per_s": throughput,
            "source": source}


def make_case(mgsim, name, case):
    calibrate, predict = [], []
    smallest = min(n for n, _, _, _, _ in case["rows"] if n > 1)
    first_trace = {}
    for nodes, seq, precision, batch, throughput in case["rows"]:
        trace = make_trace(mgsim, "%s-%s-s%d-b%d" % (name, precision, seq, batch), case, seq, precision, batch)
        if (precision, seq) not in first_trace:
            first_trace[(precision, seq)] = trace
            calibrate.append(row(trace, 1, case["one_gpu"][(precision, seq)], case["source"]))
        fits = nodes == smallest and seq == 128 and precision == "amp"
        (calibrate if fits else predict).append(row(trace, nodes * case["per_node"], throughput, case["source"]))
    document = {
        "format": "mgsim-validation", "version": 1,
        "description": "BERT-large pre-training (LAMB, gradient accumulation) on %s, 1 to %d nodes: compute from "
                       "each 1-GPU throughput, the nccl model's bus bandwidth fitted to mixed precision, sequence 128 "
                       "at %d nodes; everything else predicted (scripts/make_bert_validation.py)."
                       % (case["hardware"], max(r[0] for r in case["rows"]), smallest),
        "sources": {case["source"]: {
            "url": case["url"], "table": case["table"], "hardware": case["hardware"], "software": case["software"],
            "measured": "pre-training throughput, sequences/s, BERT-large, phase 1 (sequence 128) and phase 2 (512); "
                        "batch per GPU per optimizer step = micro-batch x gradient accumulation steps of each row"}},
        "config": {"trace": first_trace[("amp", 128)], "gpus": [1], "gpus_per_node": case["per_node"],
                   "collective": "nccl", "network": {"alpha_us": 0, "beta_s_per_byte": 1e-11},
                   "schedules": ["single"]},
        "fit": ["network.beta_s_per_byte"],
        "calibrate": calibrate, "predict": predict,
    }
    lib.write_json(os.path.join(VALIDATION, name + ".json"), document)


if __name__ == "__main__":
    lib.run(__doc__, CASES, make_case)
