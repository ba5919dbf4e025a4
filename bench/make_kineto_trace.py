#!/usr/bin/env python3
"""Writes a large PyTorch profiler (Kineto) trace for the import benchmark
(docs/performance.md): the two training steps of tests/data/kineto-two-
linear-steps.json repeated COPIES times, each copy shifted in time and given
its own step names, correlation ids and sequence numbers. With --modules N,
each step also holds N parameterless "nn.Module: Identity_J" spans on the
forward thread before its first Linear, around no operator: a model of many
modules, for the importer's module lookup (the layers and times imported
stay those of the two Linear layers).

  usage: bench/make_kineto_trace.py COPIES OUT.json [--modules N]
"""
import argparse
import copy
import json
import os

SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "kineto-two-linear-steps.json")


def identity_modules(step, count):
    """`count` short nn.Module spans in [ts + 1, ts + 9] us of the step event
    `step`, on its thread: the sample's first module starts at ts + 10."""
    width = 8.0 / count
    return [{"ph": "X", "cat": "python_function", "name": "nn.Module: Identity_%d" % j, "pid": step["pid"],
             "tid": step["tid"], "ts": round(step["ts"] + 1 + j * width, 3), "dur": round(width / 2, 3)}
            for j in range(count)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("copies", type=int)
    parser.add_argument("out")
    parser.add_argument("--modules", type=int, default=0, help="extra nn.Module spans per step (default 0)")
    options = parser.parse_args()
    copies, out = options.copies, options.out
    with open(SAMPLE) as f:
        sample = json.load(f)
    events = sample["traceEvents"]
    span = max(e.get("ts", 0) + e.get("dur", 0) for e in events) + 1000
    result = []
    for i in range(copies):
        for event in events:
            if i > 0 and event.get("ph") == "M":
                continue
            e = copy.deepcopy(event)
            if "ts" in e:
                e["ts"] += i * span
            if e.get("name", "").startswith("ProfilerStep#"):
                e["name"] = "ProfilerStep#%d" % (int(e["name"][13:]) + 2 * i)
            if "id" in e:
                e["id"] += i * 1_000_000
            args = e.get("args", {})
            for key in ("correlation", "External id", "Sequence number"):
                if isinstance(args.get(key), int):
                    args[key] += i * 1_000_000
            result.append(e)
            step = e.get("name", "").startswith("ProfilerStep#") and e.get("cat") != "gpu_user_annotation"
            if step and options.modules > 0:
                result.extend(identity_modules(e, options.modules))
    sample["traceEvents"] = result
    with open(out, "w") as f:
        json.dump(sample, f, indent=1)


if __name__ == "__main__":
    main()
