#!/usr/bin/env python3
"""Forward + backward of one GPU, eager and replayed as one CUDA graph, at several batches.

The eager time of a small batch waits for the host's kernel launches
(docs/fidelity.md#one-gpu-time-against-the-batch); a CUDA graph launches the
whole forward and backward at once. Timing both on the same GPU, model and
batch shows how much of the small-batch time is launches. Models and inputs
are those of `mgsim profile layers` (profiler/mgsim_profile_model.py),
bf16 autocast; no optimizer step; median of --iterations, each synchronized.

    python3 scripts/launch_floor_check.py -o OUT.json   (on a GPU node, PyTorch installed)
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "profiler"))
import mgsim_profile_model as helper  # noqa: E402  (the profiler's model builders)

CURVES = {"resnet50": [8, 16, 32, 64, 128, 256], "bert-base-uncased": [4, 8, 16, 32, 64, 128]}
DEFAULT_BATCHES = [4, 8, 16, 32, 64, 128]


def timed(torch, run, warmup, iterations):
    """Median wall-clock seconds of run(), synchronized before and after."""
    for _ in range(warmup):
        run()
    seconds = []
    for _ in range(iterations):
        torch.cuda.synchronize()
        start = time.perf_counter()
        run()
        torch.cuda.synchronize()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def measure(torch, model_name, batch, seq_len, warmup, iterations):
    args = argparse.Namespace(model=model_name, batch=batch, seq_len=seq_len, image_size=224)
    model, step, source = helper.build(torch, args, torch.device("cuda", 0))
    model.train()

    def forward_backward():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = step(model)
        loss.backward()

    eager = timed(torch, forward_backward, warmup, iterations)
    # Capture: warm up on a side stream, keep the gradients allocated, then record one forward + backward.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            forward_backward()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        forward_backward()
    replay = timed(torch, graph.replay, warmup, iterations)
    del graph, model
    torch.cuda.empty_cache()
    return {"model": model_name, "source": source, "batch": batch, "seq_len": seq_len, "eager_forward_backward_s": eager,
            "cuda_graph_forward_backward_s": replay}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--model", action="append",
                        help="torchvision or transformers model (repeatable; default: %s)" % ", ".join(CURVES))
    parser.add_argument("--seq-len", type=int, default=128, help="tokens per sample for transformers models")
    args = parser.parse_args()
    import torch
    rows = []
    for model_name in args.model or CURVES:
        for batch in CURVES.get(model_name, DEFAULT_BATCHES):
            try:
                rows.append(measure(torch, model_name, batch, args.seq_len, args.warmup, args.iterations))
            except Exception as e:  # one failed capture must not lose the others
                rows.append({"model": model_name, "batch": batch, "error": "%s: %s" % (type(e).__name__, e)})
            print(json.dumps(rows[-1]), flush=True)
    document = {
        "kind": "measured",
        "what": "median wall clock of one forward + backward (bf16 autocast, no optimizer step), eager and "
                "replayed as one CUDA graph captured from it",
        "command": " ".join(["python3", "scripts/launch_floor_check.py"] + sys.argv[1:]),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "gpu": torch.cuda.get_device_name(0),
        "framework": "PyTorch %s" % torch.__version__,
        "cuda_runtime_of_framework": torch.version.cuda,
        "python": platform.python_version(),
        "warmup_iterations": args.warmup,
        "iterations": args.iterations,
        "rows": rows,
    }
    with open(args.output + ".tmp", "w") as f:
        json.dump(document, f, indent=1)
    os.replace(args.output + ".tmp", args.output)


if __name__ == "__main__":
    main()
