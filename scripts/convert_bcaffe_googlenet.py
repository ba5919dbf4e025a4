#!/usr/bin/env python3
"""Convert the B-Caffe GoogleNet / K80 measurements into mgsim inputs.

Source: the public repository shyhuai/B-Caffe (the Caffe fork of the MG-WFBP
INFOCOM'19 paper), folder logdata/, commit
afc8063dca057f2367b215c5b53bc3f43ebe9608, copied unchanged into
shared/data/bcaffe-googlenet-k80/ (see its README.md).

Writes, in the format of docs/trace-format.md (version 1):

  <out>/googlenet-k80.json            mgsim-trace: per-layer backward times of
                                      the last iteration of tmp8comm.log
  <out>/googlenet-k80-allreduce.json  mgsim-curve: osu_allreduce latencies of
                                      allreduce{2,4,8}.log

Usage (from the repository root):

  python3 scripts/convert_bcaffe_googlenet.py \
      --data ../shared/data/bcaffe-googlenet-k80 --out traces

Python 3 standard library only. The script checks the data against the
bvlc_googlenet architecture and fails loudly (AssertionError / ValueError)
when something does not match.
"""

import argparse
import decimal
import hashlib
import json
import os
import re
import sys
import tempfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT_REL = "scripts/convert_bcaffe_googlenet.py"

DEFAULT_DATA = "../shared/data/bcaffe-googlenet-k80"
DEFAULT_OUT = "traces"

SOURCE_REPO = "shyhuai/B-Caffe"
SOURCE_FOLDER = "logdata/"
SOURCE_COMMIT = "afc8063dca057f2367b215c5b53bc3f43ebe9608"
SOURCE_YEAR = 2018  # glog lines carry month/day only; year of the commit (README)

HARDWARE = ("cluster of nodes with NVIDIA Tesla K80 boards (GK210 GPUs), "
            "10 Gb Ethernet interconnect, MPI")
FRAMEWORK = ("B-Caffe (Caffe fork used for the MG-WFBP paper, "
             "INFOCOM'19), WFBP run")

TRACE_LOG = "tmp8comm.log"
TRACE_NODES = 8
ITER_LINES = 128
BATCH_SIZE = 64
DTYPE_BYTES = 4
EXPECTED_LAYERS = 64
EXPECTED_TENSORS = 128
EXPECTED_PARAMS = 13379136        # as logged (64-element aligned)
EXPECTED_EXACT_PARAMS = 13378280  # bvlc_googlenet + aux heads, unpadded
FORWARD_RATIO = decimal.Decimal("0.5")

CURVE_FILES = [(2, "allreduce2.log"), (4, "allreduce4.log"),
               (8, "allreduce8.log")]

# WFBP runs whose logged layer_allreduce_us become the trace's in-situ
# observations: (nodes, file).
INSITU_FILES = [(1, "tmpcomm.log"), (2, "tmp2comm.log"), (4, "tmp4comm.log"),
                (8, "tmp8comm.log")]

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
          "Oct", "Nov", "Dec"]


# --------------------------------------------------------------------------
# Architecture: Caffe bvlc_googlenet train_val.prototxt, learnable layers in
# prototxt (= Caffe learnable-parameter) order, auxiliary heads included.
# Weight shapes in Caffe's layout: conv (out, in, kh, kw), fc (out, in).
# --------------------------------------------------------------------------

# name: (#1x1, #3x3_reduce, #3x3, #5x5_reduce, #5x5, pool_proj)
INCEPTION = [
    ("inception_3a", (64, 96, 128, 16, 32, 32)),
    ("inception_3b", (128, 128, 192, 32, 96, 64)),
    ("inception_4a", (192, 96, 208, 16, 48, 64)),
    ("inception_4b", (160, 112, 224, 24, 64, 64)),
    ("inception_4c", (128, 128, 256, 24, 64, 64)),
    ("inception_4d", (112, 144, 288, 32, 64, 64)),
    ("inception_4e", (256, 160, 320, 32, 128, 128)),
    ("inception_5a", (256, 160, 320, 32, 128, 128)),
    ("inception_5b", (384, 192, 384, 48, 128, 128)),
]
AUX_AFTER = {"inception_4a": "loss1", "inception_4d": "loss2"}
NUM_CLASSES = 1000
AUX_POOL_HW = 4 * 4  # 5x5/3 average pool of the 14x14 maps -> 4x4


def googlenet_layers():
    """Return [(name, weight_shape, bias_elements)] in forward order."""
    layers = [
        ("conv1/7x7_s2", (64, 3, 7, 7), 64),
        ("conv2/3x3_reduce", (64, 64, 1, 1), 64),
        ("conv2/3x3", (192, 64, 3, 3), 192),
    ]
    channels = 192
    for block, (c1, c3r, c3, c5r, c5, cp) in INCEPTION:
        layers += [
            (block + "/1x1", (c1, channels, 1, 1), c1),
            (block + "/3x3_reduce", (c3r, channels, 1, 1), c3r),
            (block + "/3x3", (c3, c3r, 3, 3), c3),
            (block + "/5x5_reduce", (c5r, channels, 1, 1), c5r),
            (block + "/5x5", (c5, c5r, 5, 5), c5),
            (block + "/pool_proj", (cp, channels, 1, 1), cp),
        ]
        channels = c1 + c3 + c5 + cp
        if block in AUX_AFTER:
            head = AUX_AFTER[block]
            layers += [
                (head + "/conv", (128, channels, 1, 1), 128),
                (head + "/fc", (1024, 128 * AUX_POOL_HW), 1024),
                (head + "/classifier", (NUM_CLASSES, 1024), NUM_CLASSES),
            ]
    assert channels == 1024, channels
    layers.append(("loss3/classifier", (NUM_CLASSES, channels), NUM_CLASSES))
    return layers


def prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


# B-Caffe (an NVCaffe fork) logs Net::lp_aligned_count(id) =
# align_up<6>(blob count), i.e. every tensor's element count rounded up to a
# multiple of 64; these padded counts are also what its MPI_Allreduce sends.
ALIGN = 64


def aligned(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def us_to_s(text):
    """Exact decimal conversion of a microsecond string to seconds (float)."""
    return float(decimal.Decimal(text) * decimal.Decimal("1e-6"))


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def rel(path):
    """Path relative to the repository root, with forward slashes."""
    return os.path.relpath(os.path.abspath(path), REPO_ROOT).replace(os.sep, "/")


def write_json_atomic(path, obj):
    text = json.dumps(obj, indent=1, ensure_ascii=True) + "\n"
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="ascii", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# --------------------------------------------------------------------------
# Trace
# --------------------------------------------------------------------------

# glog: Lmmdd hh:mm:ss.uuuuuu threadid file:line] payload
GLOG_RE = re.compile(
    r"^([IWEF])(\d\d)(\d\d) (\d\d:\d\d:\d\d\.\d+)\s+(\d+) ([^\]]+)\] (.*)$")
ROW_RE = re.compile(r"^\[([^\]]*)\]\s*$")


def read_layer_rows(path):
    """Parse the last ITER_LINES glog lines of a tmp*comm.log.

    Returns (rows, first_line, last_line, stamps); line numbers are 1-based.
    """
    with open(path, encoding="ascii") as f:
        lines = f.read().splitlines()
    if len(lines) % ITER_LINES != 0 or not lines:
        raise ValueError("%s: %d lines, not a multiple of %d"
                         % (path, len(lines), ITER_LINES))
    first = len(lines) - ITER_LINES  # 0-based index of the first used line
    rows = []
    stamps = []
    for i in range(first, len(lines)):
        m = GLOG_RE.match(lines[i])
        if not m:
            raise ValueError("%s:%d: not a glog line: %r" % (path, i + 1, lines[i]))
        month, day, clock = int(m.group(2)), int(m.group(3)), m.group(4)
        r = ROW_RE.match(m.group(7))
        if not r:
            raise ValueError("%s:%d: no [..] payload" % (path, i + 1))
        fields = [x.strip() for x in r.group(1).split(",")]
        if len(fields) not in (4, 5):
            raise ValueError("%s:%d: %d fields" % (path, i + 1, len(fields)))
        rows.append({
            "line": i + 1,
            "param_id": int(fields[0]),
            "elements": int(fields[1]),
            "backward_us": fields[2],
            "allreduce_us": fields[3],
        })
        stamps.append((month, day, clock))
    return rows, first + 1, len(lines), stamps


def build_trace(data_dir):
    path = os.path.join(data_dir, TRACE_LOG)
    rows, line_from, line_to, stamps = read_layer_rows(path)
    n_lines = line_to
    arch = googlenet_layers()
    assert len(arch) == EXPECTED_LAYERS, len(arch)
    assert len(rows) == EXPECTED_TENSORS == 2 * len(arch), len(rows)

    layers = []
    total_bwd = decimal.Decimal(0)
    total_params = 0
    exact_params = 0
    padded_biases = 0
    for k, (name, wshape, nbias) in enumerate(arch):
        w, b = rows[2 * k], rows[2 * k + 1]
        assert w["param_id"] == 2 * k and b["param_id"] == 2 * k + 1, (
            "line %d: param ids %d,%d, expected %d,%d"
            % (w["line"], w["param_id"], b["param_id"], 2 * k, 2 * k + 1))
        # Every bvlc_googlenet weight count is already a multiple of 64, so
        # the logged (aligned) weight count must equal the exact shape.
        assert prod(wshape) % ALIGN == 0
        assert w["elements"] == prod(wshape), (
            "line %d (%s): weight has %d elements, expected %s = %d"
            % (w["line"], name, w["elements"], "x".join(map(str, wshape)),
               prod(wshape)))
        assert b["elements"] == aligned(nbias), (
            "line %d (%s): bias has %d elements, expected %d (= %d rounded "
            "up to a multiple of %d)" % (b["line"], name, b["elements"],
                                         aligned(nbias), nbias, ALIGN))
        exact_params += prod(wshape) + nbias
        padded_biases += aligned(nbias) != nbias
        assert decimal.Decimal(w["backward_us"]) == decimal.Decimal(b["backward_us"]), (
            "line %d (%s): weight and bias rows disagree on the backward time"
            % (w["line"], name))
        bwd_us = decimal.Decimal(w["backward_us"])
        assert bwd_us > 0, "line %d (%s): backward time %s" % (w["line"], name, bwd_us)
        total_bwd += bwd_us
        total_params += w["elements"] + b["elements"]
        layers.append({
            "name": name,
            "params": [w["elements"], b["elements"]],
            "dtype_bytes": DTYPE_BYTES,
            "backward_time_s": us_to_s(w["backward_us"]),
        })
    assert len(layers) == EXPECTED_LAYERS
    assert sum(len(l["params"]) for l in layers) == EXPECTED_TENSORS
    assert total_params == EXPECTED_PARAMS, total_params
    assert exact_params == EXPECTED_EXACT_PARAMS, exact_params

    total_bwd_s = float(total_bwd * decimal.Decimal("1e-6"))
    forward_s = float(total_bwd * FORWARD_RATIO * decimal.Decimal("1e-6"))

    (m0, d0, c0), (m1, d1, c1) = stamps[0], stamps[-1]
    date = "%d-%02d-%02d" % (SOURCE_YEAR, m0, d0)
    if (m0, d0) == (m1, d1):
        logged = "%s %s to %s" % (date, c0, c1)
    else:
        logged = "%s %s to %d-%02d-%02d %s" % (date, c0, SOURCE_YEAR, m1, d1, c1)
    glog_prefix = "I%02d%02d" % (m0, d0)

    provenance = {
        "kind": "measured",
        "source_repository": SOURCE_REPO,
        "source_folder": SOURCE_FOLDER,
        "source_commit": SOURCE_COMMIT,
        "source_file": TRACE_LOG,
        "source_lines": "%d-%d of %d (the last %d lines: the second and last "
                        "dump of the per-tensor table)"
                        % (line_from, line_to, n_lines, ITER_LINES),
        "source_sha256": sha256_of(path),
        "local_copy": rel(data_dir) + "/" + TRACE_LOG,
        "hardware": HARDWARE + ", %d nodes (assumed: one GPU / MPI rank per node)"
                    % TRACE_NODES,
        "framework": FRAMEWORK,
        "model_definition": "Caffe bvlc_googlenet train_val.prototxt with the "
                            "two auxiliary heads (loss1, loss2); layer names "
                            "assigned in prototxt order and checked against "
                            "the element count of every weight and bias",
        "date": "%s (glog prefix %s = %s %d; year %d from the source commit)"
                % (logged, glog_prefix, MONTHS[m0 - 1], d0, SOURCE_YEAR),
        "mapping": "row payload [param_id, elements, layer_backward_us, "
                   "layer_allreduce_us, sent_message_us]; layer k = rows with "
                   "param_id 2k (weight) and 2k+1 (bias); params = their "
                   "element counts; backward_time_s = layer_backward_us * 1e-6, "
                   "counted once per layer; fp32 gradients",
        "params_note": "element counts as logged, i.e. B-Caffe's "
                       "Net::lp_aligned_count = count rounded up to a "
                       "multiple of 64 elements, which is also what B-Caffe "
                       "all-reduces; weights are unaffected (all multiples of "
                       "64), %d of the %d biases are padded (e.g. 1000 -> "
                       "1024 for the classifiers): %d elements as logged vs "
                       "%d exact" % (padded_biases, len(arch), total_params,
                                     exact_params),
        "backward_time_s_total": total_bwd_s,
        "forward_time_s_note": "not in the log; estimated as 0.5 x measured "
                               "backward time (typical 1:2 forward:backward "
                               "ratio of CNNs); not a measurement",
        "backward_time_s_note": "per-layer backward times of B-Caffe's "
                                "benchmark phase (the first iterations of the "
                                "run); both 128-line blocks of the log carry "
                                "the same values",
        "batch_size_note": "batch 64 per GPU as in the authors' scripts "
                           "(not recorded in the log)",
        "command": "python3 %s --data %s --out %s" % (SCRIPT_REL, "{data}", "{out}"),
    }
    trace = {
        "format": "mgsim-trace",
        "version": 1,
        "model": "googlenet",
        "batch_size": BATCH_SIZE,
        "forward_time_s": forward_s,
        "provenance": provenance,
        "layers": layers,
    }
    return trace


def build_insitu(data_dir):
    """In-situ all-reduce observations of the 1/2/4/8-node WFBP runs.

    A layer whose bias row logs 0 and whose weight row logs a time sent weight
    and bias as one message (the 8-node run); where both rows log a time, each
    tensor was its own message (the 1, 2 and 4-node runs). Rows logging 0
    were not measured and are left out.
    """
    observations = []
    files = {}
    for nodes, name in INSITU_FILES:
        path = os.path.join(data_dir, name)
        rows, line_from, line_to, _ = read_layer_rows(path)
        assert len(rows) == EXPECTED_TENSORS, (name, len(rows))
        count = 0
        for k in range(0, len(rows), 2):
            w, b = rows[k], rows[k + 1]
            w_us, b_us = decimal.Decimal(w["allreduce_us"]), decimal.Decimal(b["allreduce_us"])
            if w_us > 0 and b_us == 0:
                messages = [(w["elements"] + b["elements"], w["allreduce_us"])]
            else:
                messages = [(r["elements"], r["allreduce_us"]) for r in (w, b)
                            if decimal.Decimal(r["allreduce_us"]) > 0]
            for elements, us in messages:
                observations.append({"gpus": nodes, "bytes": elements * DTYPE_BYTES,
                                     "seconds": us_to_s(us)})
                count += 1
        files[name] = {"lines": "%d-%d" % (line_from, line_to),
                       "messages": count, "sha256": sha256_of(path)}
    return observations, files


# --------------------------------------------------------------------------
# Curve
# --------------------------------------------------------------------------

OSU_ROW_RE = re.compile(r"^(?:(\d+),)?(\d+)\s+(\d+(?:\.\d+)?)$")


def read_osu(path, gpus):
    points = []
    seen = set()
    with open(path, encoding="ascii") as f:
        lines = f.read().splitlines()
    for i, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = OSU_ROW_RE.match(line)
        if not m:
            raise ValueError("%s:%d: unexpected row %r" % (path, i, raw))
        if m.group(1) is not None and int(m.group(1)) != gpus:
            raise ValueError("%s:%d: prefix %s, expected %d"
                             % (path, i, m.group(1), gpus))
        size = int(m.group(2))
        if size < 1 or size in seen:
            raise ValueError("%s:%d: bad or repeated size %d" % (path, i, size))
        seen.add(size)
        seconds = us_to_s(m.group(3))
        if not seconds > 0:
            raise ValueError("%s:%d: latency %s" % (path, i, m.group(3)))
        points.append({"gpus": gpus, "bytes": size, "seconds": seconds})
    if not points:
        raise ValueError("%s: no data rows" % path)
    return points


def build_curve(data_dir):
    points = []
    files = []
    hashes = {}
    for gpus, name in CURVE_FILES:
        path = os.path.join(data_dir, name)
        pts = read_osu(path, gpus)
        points += pts
        files.append(name)
        hashes[name] = sha256_of(path)
    keys = [(p["gpus"], p["bytes"]) for p in points]
    assert len(keys) == len(set(keys))
    provenance = {
        "kind": "measured",
        "tool": "OSU Micro-Benchmarks 5.4.0 osu_allreduce",
        "metric": "average latency per MPI_Allreduce, converted from us to s "
                  "(no spread recorded in the output)",
        "source_repository": SOURCE_REPO,
        "source_folder": SOURCE_FOLDER,
        "source_commit": SOURCE_COMMIT,
        "source_files": files,
        "source_sha256": hashes,
        "local_copy": rel(data_dir) + "/",
        "hardware": HARDWARE + "; the same cluster as the B-Caffe GoogleNet "
                    "runs (tmp{2,4,8}comm.log)",
        "gpus_note": "gpus = node count taken from the file name "
                     "(allreduce<N>.log); assumption: one MPI rank (one GPU) "
                     "per node",
        "command": "python3 %s --data %s --out %s" % (SCRIPT_REL, "{data}", "{out}"),
    }
    return {
        "format": "mgsim-curve",
        "version": 1,
        "collective": "allreduce",
        "provenance": provenance,
        "points": points,
    }


def monotone_report(points):
    out = []
    by = {}
    for p in points:
        by.setdefault(p["gpus"], []).append(p)
    for gpus in sorted(by):
        pts = by[gpus]
        drops = sum(1 for a, b in zip(pts, pts[1:]) if b["seconds"] < a["seconds"])
        out.append("P=%d: %d points, %d-%d B, %.2f-%.2f us, %d decreases "
                   "between consecutive sizes"
                   % (gpus, len(pts), pts[0]["bytes"], pts[-1]["bytes"],
                      pts[0]["seconds"] * 1e6, pts[-1]["seconds"] * 1e6, drops))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=DEFAULT_DATA,
                    help="folder with the B-Caffe logs (default: %(default)s, "
                         "relative to the repository root)")
    ap.add_argument("--out", default=DEFAULT_OUT,
                    help="output folder (default: %(default)s, relative to "
                         "the repository root)")
    args = ap.parse_args(argv)

    # Relative paths are taken relative to the repository root, so the
    # script gives the same result from any working directory.
    data = args.data if os.path.isabs(args.data) else os.path.join(REPO_ROOT, args.data)
    out = args.out if os.path.isabs(args.out) else os.path.join(REPO_ROOT, args.out)
    command = "python3 %s --data %s --out %s" % (SCRIPT_REL, rel(data), rel(out))

    trace = build_trace(data)
    trace["provenance"]["command"] = command
    insitu, insitu_files = build_insitu(data)
    trace["insitu_allreduce"] = insitu
    trace["provenance"]["insitu_allreduce_source"] = insitu_files
    trace["provenance"]["insitu_allreduce_note"] = (
        "layer_allreduce_us of the last iteration of the 1, 2, 4 and 8-node "
        "WFBP runs (gpus = nodes, one GPU per node), i.e. each MPI all-reduce "
        "as timed inside B-Caffe's training loop; the 8-node run sent weight "
        "and bias of a layer as one message (bias row 0), the others timed "
        "each tensor (both rows > 0); bytes = elements as logged x 4")
    curve = build_curve(data)
    curve["provenance"]["command"] = command

    trace_path = os.path.join(out, "googlenet-k80.json")
    curve_path = os.path.join(out, "googlenet-k80-allreduce.json")
    write_json_atomic(trace_path, trace)
    write_json_atomic(curve_path, curve)

    total = trace["provenance"]["backward_time_s_total"]
    print("wrote %s: %d layers, %d tensors, %d parameters, backward %.6f s, "
          "forward (estimate) %.6f s"
          % (rel(trace_path), len(trace["layers"]),
             sum(len(l["params"]) for l in trace["layers"]),
             sum(sum(l["params"]) for l in trace["layers"]), total,
             trace["forward_time_s"]))
    print("wrote %s: %d points" % (rel(curve_path), len(curve["points"])))
    for line in monotone_report(curve["points"]):
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
