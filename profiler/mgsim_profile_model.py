#!/usr/bin/env python3
"""The PyTorch side of `mgsim profile layers` (docs/profiling.md).

Trains any torch.nn.Module for a few iterations on one GPU and marks, with
NVTX, the moments the profiler needs:

  mgsim:iter:begin:<k>     before the forward pass of measured iteration k
  mgsim:iter:backward:<k>  before loss.backward()
  mgsim:iter:end:<k>       after loss.backward() returned
  mgsim:fwd:<i>            the forward of the layer holding parameter i returned
                           (a forward hook on the module that owns it)
  mgsim:grad:<i>           parameter i's gradient was accumulated
                           (Tensor.register_post_accumulate_grad_hook)
  mgsim:comm:<bytes>       under DDP (WORLD_SIZE > 1): DDP's comm hook is about
                           to launch the all-reduce of a bucket of <bytes>

Before the measured iterations it times as many with the recorder paused
(wall clock, synchronized): their forward + backward on one GPU, so that
mgsim can tell how much recording slowed a run bound by its kernel launches,
and the --optimizer's step (also under DDP: the step is local).

and writes a description of the parameters (name, owning module, element
count, bytes per gradient element) with the software versions to --describe.
mgsim runs it with CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH set to
libmgsim_cupti.so, which records the GPU work and these markers; the model
code is not changed. Run alone, it trains and describes, and records nothing.

With WORLD_SIZE > 1 in the environment (RANK, LOCAL_RANK, MASTER_ADDR and
MASTER_PORT set as torchrun sets them; `mgsim profile layers --gpus N` starts
the N processes itself), the model trains under DistributedDataParallel over
NCCL, one GPU per process, and its all-reduces are marked: mgsim reads their
NCCL kernels' durations as in-situ observations (docs/profiling.md).

Models: a torchvision model name (resnet50, vgg16, ...), a Hugging Face
transformers model id or local path (bert-base-uncased, gpt2; built from its
config with random weights, for sequence classification), or
"package.module:function", where function(batch_size, device) returns
(model, step) and step(model) returns the loss of one batch.
"""

import argparse
import datetime
import importlib
import json
import os
import platform
import socket
import statistics
import sys
import time


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="torchvision name, transformers id, or module:function")
    p.add_argument("--batch", type=int, required=True, help="samples per iteration")
    p.add_argument("--precision", choices=["fp32", "fp16", "bf16"], default="fp32",
                   help="autocast precision of the forward pass (parameters and gradients stay as created)")
    p.add_argument("--warmup", type=int, default=5, help="iterations run before measuring")
    p.add_argument("--iterations", type=int, default=20, help="measured iterations")
    p.add_argument("--device", type=int, default=0, help="CUDA device index")
    p.add_argument("--seq-len", type=int, default=128, help="tokens per sample for transformers models")
    p.add_argument("--image-size", type=int, default=224, help="input height and width for vision models")
    p.add_argument("--optimizer", choices=sorted(OPTIMIZERS), default="adam",
                   help="the optimizer trained with, whose step is timed")
    p.add_argument("--describe", required=True, help="where to write the parameter description (JSON)")
    args = p.parse_args(argv)
    if args.batch < 1 or args.iterations < 1 or args.warmup < 0:
        p.error("--batch and --iterations must be >= 1, --warmup >= 0")
    return args


def vision_model(torch, torchvision, name, args, device):
    models = torchvision.models
    if hasattr(models, "get_model"):
        model = models.get_model(name, weights=None)
    else:
        model = getattr(models, name)(pretrained=False)
    model = model.to(device)
    classes = getattr(model, "num_classes", None) or 1000
    images = torch.randn(args.batch, 3, args.image_size, args.image_size, device=device)
    labels = torch.randint(0, classes, (args.batch,), device=device)

    def step(m):
        out = m(images)
        if isinstance(out, tuple) or hasattr(out, "logits"):  # inception_v3 / googlenet aux outputs
            out = out.logits if hasattr(out, "logits") else out[0]
        return torch.nn.functional.cross_entropy(out.float(), labels)

    return model, step, "torchvision.models.%s (random weights)" % name


def transformers_model(torch, name, args, device):
    import transformers
    config = transformers.AutoConfig.from_pretrained(name)
    config.num_labels = 2
    if getattr(config, "pad_token_id", None) is None:
        config.pad_token_id = getattr(config, "eos_token_id", 0) or 0
    model = transformers.AutoModelForSequenceClassification.from_config(config).to(device)
    vocab = config.vocab_size
    ids = torch.randint(0, vocab, (args.batch, args.seq_len), device=device)
    mask = torch.ones_like(ids)
    labels = torch.randint(0, 2, (args.batch,), device=device)

    def step(m):
        return m(input_ids=ids, attention_mask=mask, labels=labels).loss

    return model, step, "transformers %s %s for sequence classification (random weights, seq_len %d)" % (
        transformers.__version__, name, args.seq_len)


def build(torch, args, device):
    if ":" in args.model:
        module, function = args.model.split(":", 1)
        model, step = getattr(importlib.import_module(module), function)(args.batch, device)
        return model, step, args.model
    try:
        import torchvision
        names = torchvision.models.list_models() if hasattr(torchvision.models, "list_models") else dir(torchvision.models)
        if args.model in names:
            return vision_model(torch, torchvision, args.model, args, device)
    except ImportError:
        pass
    return transformers_model(torch, args.model, args, device)


def describe_parameters(model):
    params = []
    for name, p in model.named_parameters():
        if p.requires_grad:
            layer = name.rsplit(".", 1)[0] if "." in name else type(model).__name__
            params.append((name, layer, p))
    return params


def add_markers(torch, model, params, state):
    mark = torch.cuda.nvtx.mark
    # The end of each layer's forward: a forward hook on the module that owns
    # its parameters marks the index of the layer's first parameter.
    first_of_layer = {}
    for index, (_, layer, _) in enumerate(params):
        first_of_layer.setdefault(layer, index)
    for layer, index in first_of_layer.items():
        module = model if layer == type(model).__name__ else model.get_submodule(layer)
        def forward_hook(*_, index=index):
            if state["measuring"]:
                mark("mgsim:fwd:%d" % index)
        module.register_forward_hook(forward_hook)
    hook_kind = "register_post_accumulate_grad_hook"
    for index, (_, _, p) in enumerate(params):
        def hook(*_, index=index):
            if state["measuring"]:
                mark("mgsim:grad:%d" % index)
        if hasattr(p, "register_post_accumulate_grad_hook"):
            p.register_post_accumulate_grad_hook(hook)
        else:  # PyTorch < 2.1: when the gradient is computed, just before accumulation
            p.register_hook(hook)
            hook_kind = "register_hook (PyTorch < 2.1)"
    return hook_kind


def world_size():
    return int(os.environ.get("WORLD_SIZE", "1"))


def distribute(torch, model, device, state):
    """Wraps the model in DDP with a comm hook that is DDP's default all-reduce
    (average of the bucket) plus a marker before each launch."""
    import torch.distributed as dist
    dist.init_process_group("nccl")
    size = dist.get_world_size()
    mark = torch.cuda.nvtx.mark

    def allreduce_hook(_, bucket):
        tensor = bucket.buffer().div_(size)
        if state["measuring"]:
            mark("mgsim:comm:%d" % (tensor.numel() * tensor.element_size()))
        return dist.all_reduce(tensor, async_op=True).get_future().then(lambda fut: fut.value()[0])

    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[device.index])
    ddp.register_comm_hook(None, allreduce_hook)
    return ddp


OPTIMIZERS = {  # name: (what it is, how to make it); PyTorch's default implementation (foreach where available)
    "sgd": ("torch.optim.SGD(lr=1e-3)", lambda torch, params: torch.optim.SGD(params, lr=1e-3)),
    "momentum": ("torch.optim.SGD(lr=1e-3, momentum=0.9)",
                 lambda torch, params: torch.optim.SGD(params, lr=1e-3, momentum=0.9)),
    "adam": ("torch.optim.Adam(lr=1e-3)", lambda torch, params: torch.optim.Adam(params, lr=1e-3)),
}


def mixed_precision(torch, precision):
    """The autocast dtype (None for fp32) and, for fp16, a gradient scaler."""
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision)
    scaler = None
    if precision == "fp16":
        scaler = torch.amp.GradScaler("cuda") if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler") \
            else torch.cuda.amp.GradScaler()
    return dtype, scaler


def optimizer_step(optimizer, scaler):
    """The optimizer's step (through the scaler under fp16), then gradients to None."""
    if scaler:
        scaler.step(optimizer)
        scaler.update()
    else:
        optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def train(torch, model, step, params, args, device):
    """Returns the gradient hook used and the median forward + backward
    seconds of the unrecorded iterations (None under DDP) and of their
    optimizer step."""
    state = {"measuring": False}
    hook_kind = add_markers(torch, model, params, state)
    if world_size() > 1:
        model = distribute(torch, model, device, state)
    optimizer = OPTIMIZERS[args.optimizer][1](torch, [p for _, _, p in params])
    dtype, scaler = mixed_precision(torch, args.precision)
    mark = torch.cuda.nvtx.mark
    model.train()

    def iteration(k):
        """One training iteration; measured iteration k >= 0 is marked.
        Returns the wall-clock seconds of its forward and backward, and of
        its optimizer step."""
        state["measuring"] = k >= 0
        torch.cuda.synchronize()
        start = time.perf_counter()
        if k >= 0:
            mark("mgsim:iter:begin:%d" % k)
        with torch.autocast("cuda", dtype=dtype, enabled=dtype is not None):
            loss = step(model)
        if k >= 0:
            mark("mgsim:iter:backward:%d" % k)
        (scaler.scale(loss) if scaler else loss).backward()
        if k >= 0:
            mark("mgsim:iter:end:%d" % k)
        torch.cuda.synchronize()
        forward_backward = time.perf_counter() - start
        state["measuring"] = False
        start = time.perf_counter()
        optimizer_step(optimizer, scaler)
        torch.cuda.synchronize()
        return forward_backward, time.perf_counter() - start

    record(False)
    for _ in range(args.warmup):
        iteration(-1)
    timed = [iteration(-1) for _ in range(args.iterations)]
    unrecorded = {"forward_backward": statistics.median(t[0] for t in timed) if world_size() == 1 else None,
                  "optimizer_step": statistics.median(t[1] for t in timed)}
    record(True)
    for k in range(args.iterations):
        iteration(k)
    torch.cuda.synchronize()
    flush_recorder()
    if world_size() > 1:
        torch.distributed.destroy_process_group()
    return hook_kind, unrecorded


def recorder():
    """libmgsim_cupti.so when mgsim loaded it into this process, else None."""
    library = os.environ.get("CUDA_INJECTION64_PATH")
    if library and os.path.basename(library) == "libmgsim_cupti.so":
        import ctypes
        return ctypes.CDLL(library)
    return None


def record(on):
    """Resumes (True) or pauses (False) the recorder, when there is one."""
    library = recorder()
    if library:
        library.mgsim_cupti_record(1 if on else 0)


def flush_recorder():
    """Asks the recorder, when there is one, to write its records while CUDA is still up."""
    library = recorder()
    if library:
        library.mgsim_cupti_flush()


def write_json(path, document):
    tmp = path + ".tmp"
    with open(tmp, "w") as out:
        json.dump(document, out, indent=1)
    os.replace(tmp, path)


def main(argv):
    args = parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        sys.exit("mgsim_profile_model: no CUDA GPU visible to PyTorch")
    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    model, step, source = build(torch, args, device)
    params = describe_parameters(model)
    hook_kind, unrecorded = train(torch, model, step, params, args, device)
    props = torch.cuda.get_device_properties(device)
    provenance = {
        "framework": "PyTorch %s" % torch.__version__,
        "cuda_runtime_of_framework": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "gpu": props.name,
        "gpu_compute_capability": "%d.%d" % (props.major, props.minor),
        "gpu_memory_bytes": props.total_memory,
        "model_source": source,
        "batch_size": args.batch,
        "precision": args.precision if args.precision == "fp32" else "%s autocast" % args.precision,
        "optimizer": OPTIMIZERS[args.optimizer][0],
        "gradient_hook": hook_kind,
        "python": platform.python_version(),
        "host": socket.gethostname(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": " ".join([sys.executable] + sys.argv),
    }
    write_json(args.describe, {
        "format": "mgsim-profile-model",
        "version": 1,
        "model": args.model,
        "batch_size": args.batch,
        "precision": args.precision,
        "warmup": args.warmup,
        "iterations": args.iterations,
        "world_size": world_size(),
        **({"unrecorded_forward_backward_s": unrecorded["forward_backward"]}
           if unrecorded["forward_backward"] is not None else {}),
        "optimizer": args.optimizer,
        "unrecorded_optimizer_step_s": unrecorded["optimizer_step"],
        "params": [{"name": n, "layer": layer, "elements": p.numel(), "dtype_bytes": p.element_size()}
                   for n, layer, p in params],
        "provenance": provenance,
    })


if __name__ == "__main__":
    main(sys.argv[1:])
