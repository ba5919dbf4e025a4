#!/usr/bin/env python3
"""Records a PyTorch profiler (Kineto) trace of a few training steps, to check
`mgsim profile layers` against the PyTorch profiler on the same GPU and to
measure the optimizer step (`mgsim import kineto --optimizer`).

  python3 scripts/kineto_capture.py --model resnet50 --batch 64 --precision bf16 \
      --optimizer adam -o resnet50.json.gz

Models as mgsim_profile_model.py takes them (a torchvision name, or a
transformers config folder); the trace marks each step (ProfilerStep#k) and
the optimizer (Optimizer.step#...), as `mgsim import kineto` reads them.
"""

import argparse
import gzip
import os
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "profiler"))
import mgsim_profile_model as helper  # noqa: E402  (the same models as mgsim profile layers)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--precision", choices=["fp32", "fp16", "bf16"], default="fp32")
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--optimizer", choices=sorted(helper.OPTIMIZERS), default="adam")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--steps", type=int, default=5, help="profiled steps")
    p.add_argument("-o", "--output", required=True, help="Chrome trace (.json.gz)")
    args = p.parse_args(argv)
    import torch
    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    model, step, _ = helper.build(torch, args, device)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = helper.OPTIMIZERS[args.optimizer][1](torch, params)
    dtype, scaler = helper.mixed_precision(torch, args.precision)
    model.train()

    def train_step():
        with torch.autocast("cuda", dtype=dtype, enabled=dtype is not None):
            loss = step(model)
        (scaler.scale(loss) if scaler else loss).backward()
        helper.optimizer_step(optimizer, scaler)

    for _ in range(args.warmup):
        train_step()
    torch.cuda.synchronize()
    # The same steps without the profiler, to tell its overhead.
    times = []
    for _ in range(20):
        start = time.perf_counter()
        train_step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    print("step without the profiler: median %.3f ms of 20 (min %.3f, max %.3f)" % (
        1e3 * statistics.median(times), 1e3 * min(times), 1e3 * max(times)))
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    schedule = torch.profiler.schedule(wait=0, warmup=1, active=args.steps)
    plain = args.output[:-3] if args.output.endswith(".gz") else args.output + ".json"
    with torch.profiler.profile(activities=activities, schedule=schedule, record_shapes=True,
                                on_trace_ready=lambda prof: prof.export_chrome_trace(plain)) as prof:
        for _ in range(1 + args.steps):
            train_step()
            prof.step()
    torch.cuda.synchronize()
    with open(plain, "rb") as src, gzip.open(args.output + ".tmp", "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.replace(args.output + ".tmp", args.output)
    os.remove(plain)


if __name__ == "__main__":
    main(sys.argv[1:])
