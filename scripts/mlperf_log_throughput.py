#!/usr/bin/env python3
"""Training throughput of MLCommons (MLPerf) training result logs, as quoted in make_mlperf_validation.py.

For each log (a result_N.txt of an mlcommons/training_results_vX.Y repository), from its ':::MLLOG'
lines: samples trained / training seconds, in samples/s. Samples trained: ResNet-50, the epochs
logged (epoch_stop lines) x train_samples (1,281,167 ImageNet images); BERT, train_samples (the
sequences trained, logged once at the end). Training seconds: run_stop - run_start (MLPerf's
time-to-train score) less every evaluation the log marks (eval_start to eval_stop: the ResNet-50
logs mark each one; the BERT logs mark none, so their figure keeps the evaluations, every few
hundred thousand sequences). A simulated iteration only trains, so the figure compared with it
leaves out what the log says was evaluation. Logs whose run_stop is not 'success' are skipped.
Prints each log's figure, the same with the evaluations kept, the global batch (global_batch_size)
and the median over the logs given, which is the figure quoted.

Usage: python3 scripts/mlperf_log_throughput.py RESULT_LOG...
"""

import json
import statistics
import sys

PREFIX = ":::MLLOG "


def events(path):
    """The MLLOG events of the log at `path`, in order."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            at = line.find(PREFIX)
            if at >= 0:
                try:
                    yield json.loads(line[at + len(PREFIX):])
                except json.JSONDecodeError:
                    continue


def throughput(path):
    """(samples/s without the evaluations, samples/s with them, global batch) of one log; both
    samples/s are None for a run that did not succeed."""
    first = {}
    stops, last_samples, run_stop = 0, None, None
    evaluating_ms, eval_start = 0, None
    for e in events(path):
        first.setdefault(e["key"], e)
        if e["key"] == "epoch_stop":
            stops += 1
        elif e["key"] == "train_samples":
            last_samples = e["value"]
        elif e["key"] == "run_stop":
            run_stop = e
        elif e["key"] == "eval_start":
            eval_start = e["time_ms"]
        elif e["key"] == "eval_stop" and eval_start is not None:
            evaluating_ms += e["time_ms"] - eval_start
            eval_start = None
    batch = first["global_batch_size"]["value"]
    if run_stop is None or run_stop["metadata"].get("status") != "success":
        return None, None, batch
    run_ms = run_stop["time_ms"] - first["run_start"]["time_ms"]
    samples = stops * last_samples if first["submission_benchmark"]["value"] == "resnet" else last_samples
    return samples / ((run_ms - evaluating_ms) / 1000.0), samples / (run_ms / 1000.0), batch


def main():
    figures, with_evaluations = [], []
    for path in sys.argv[1:]:
        value, timed, batch = throughput(path)
        if value is None:
            print("%s: global batch %d, not a success" % (path, batch))
            continue
        print("%s: global batch %d, %.1f samples/s (%.1f with the evaluations)" % (path, batch, value, timed))
        figures.append(value)
        with_evaluations.append(timed)
    if figures:
        print("median of %d: %.1f samples/s (%.1f with the evaluations)"
              % (len(figures), statistics.median(figures), statistics.median(with_evaluations)))


if __name__ == "__main__":
    main()
