#!/usr/bin/env python3
"""Writes a large PyTorch profiler (Kineto) trace for the import benchmark
(docs/performance.md): the two training steps of tests/data/kineto-two-
linear-steps.json repeated COPIES times, each copy shifted in time and given
its own step names, correlation ids and sequence numbers.

  usage: bench/make_kineto_trace.py COPIES OUT.json
"""
import copy
import json
import os
import sys

SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "kineto-two-linear-steps.json")


def main():
    copies, out = int(sys.argv[1]), sys.argv[2]
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
    sample["traceEvents"] = result
    with open(out, "w") as f:
        json.dump(sample, f, indent=1)


if __name__ == "__main__":
    main()
