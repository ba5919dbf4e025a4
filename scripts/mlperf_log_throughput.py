#!/usr/bin/env python3
"""Training throughput of MLCommons (MLPerf) training result logs, as quoted in make_mlperf_validation.py.

For each log (a result_N.txt of an mlcommons/training_results_vX.Y repository), from its ':::MLLOG'
lines: samples trained / (run_stop - run_start), in samples/s. Samples trained: ResNet-50, the
epochs logged (epoch_stop lines) x train_samples (1,281,167 ImageNet images); BERT, train_samples
(the sequences trained, logged once at the end). The timed run includes the evaluations (ResNet
every few epochs, BERT every few hundred thousand sequences) and is MLPerf's time-to-train score.
Logs whose run_stop is not 'success' are skipped. Prints each log's figure, the global batch
(global_batch_size) and the median over the logs given, which is the figure quoted.

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
    """(samples/s, global batch) of one log; samples/s is None for a run that did not succeed."""
    first = {}
    stops, last_samples, run_stop = 0, None, None
    for e in events(path):
        first.setdefault(e["key"], e)
        if e["key"] == "epoch_stop":
            stops += 1
        elif e["key"] == "train_samples":
            last_samples = e["value"]
        elif e["key"] == "run_stop":
            run_stop = e
    batch = first["global_batch_size"]["value"]
    if run_stop is None or run_stop["metadata"].get("status") != "success":
        return None, batch
    seconds = (run_stop["time_ms"] - first["run_start"]["time_ms"]) / 1000.0
    samples = stops * last_samples if first["submission_benchmark"]["value"] == "resnet" else last_samples
    return samples / seconds, batch


def main():
    figures = []
    for path in sys.argv[1:]:
        value, batch = throughput(path)
        print("%s: global batch %d, %s" % (path, batch, "not a success" if value is None else "%.1f samples/s" % value))
        if value is not None:
            figures.append(value)
    if figures:
        print("median of %d: %.1f samples/s" % (len(figures), statistics.median(figures)))


if __name__ == "__main__":
    main()
