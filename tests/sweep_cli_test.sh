#!/usr/bin/env bash
# End-to-end checks of `mgsim sweep`, `mgsim run --timeline` and `mgsim advise`:
# the CSV is the same for 1 and for all threads, a killed sweep resumes into
# the uninterrupted CSV, shards run as separate processes merge into the
# unsharded CSV, bad sweeps fail in one line with exit 2 and write nothing,
# and the timeline loads as a Chrome trace matching the run's metrics.
#   usage: sweep_cli_test.sh <path-to-mgsim> <repo-root>
set -euo pipefail

source "$(dirname "$0")/cli_lib.sh" "$@"

# ---- inputs --------------------------------------------------------------------------------------------------

cat >t.json <<'EOF'
{"format": "mgsim-trace", "version": 1, "model": "tiny", "batch_size": 8, "forward_time_s": 0.001,
 "provenance": {"kind": "synthetic", "note": "sweep cli test"},
 "layers": [
  {"name": "conv1", "params": [864, 32], "dtype_bytes": 4, "backward_time_s": 0.002, "grad_ready_s": [0.0015, 0.002]},
  {"name": "conv2", "params": [18432], "dtype_bytes": 4, "backward_time_s": 0.003},
  {"name": "fc", "params": [40960, 10], "dtype_bytes": 4, "backward_time_s": 0.001}]}
EOF
cp "$ROOT/traces/googlenet-k80.json" googlenet.json
# 2 traces x 3 collectives x 2 networks x 10 GPU counts x 7 schedules = 840 runs.
cat >sweep.json <<'EOF'
{"trace": ["t.json", "googlenet.json"],
 "collective": ["ring", "tree", "rabenseifner"],
 "network": [{"name": "10GbE", "alpha_us": 45.25, "beta_s_per_byte": 1.2417634328e-10, "gamma_s_per_byte": 2.5e-9},
             {"name": "ib", "alpha_us": 5, "beta_s_per_byte": 8e-11}],
 "schedules": ["wfbp", "single", "mgwfbp", "optimal", {"name": "ddp", "bucket_cap_mb": [1, 25]}, "horovod"]}
EOF
ROWS=840

# ---- the same CSV for 1 thread and for all -------------------------------------------------------------------

rc=0
"$MGSIM" sweep --config sweep.json --threads 1 --output one.csv >one.out 2>one.err || rc=$?
"$MGSIM" sweep --config sweep.json --output all.csv >all.out 2>all.err || rc=$?
"$MGSIM" sweep --config sweep.json --threads 7 >stdout.csv 2>stdout.err || rc=$?
if [[ $rc != 0 ]]; then
  fail "sweep exits 0" "exit $rc: $(head -c 300 one.err all.err stdout.err)"
elif [[ $(wc -l <one.csv) != $((ROWS + 1)) || $(head -n 1 one.csv) != run,*,mgsim_version,format_version ]]; then
  fail "sweep writes a header and one row per run" "$(wc -l <one.csv) lines: $(head -n 1 one.csv)"
elif ! cmp -s one.csv all.csv || ! cmp -s one.csv stdout.csv; then
  fail "the CSV is identical for 1, 7 and all threads, to a file or to stdout"
elif [[ -s one.out || -s one.err || -s all.err ]]; then
  fail "sweep --output prints nothing (no progress bar when stderr is not a terminal)"
elif [[ $(cut -d, -f1 one.csv | tail -n +2 | awk '$1 != NR - 1' | wc -l) != 0 ]]; then
  fail "the run column counts 0, 1, 2, ..."
else
  pass "the CSV is identical for 1, 7 and all threads ($ROWS rows); silent on a non-terminal"
fi
if command -v script >/dev/null 2>&1; then
  script -qec "$MGSIM sweep --config sweep.json --output tty.csv" /dev/null >tty.out 2>&1 || true
  if grep -q "runs/s" tty.out && cmp -s tty.csv one.csv; then
    pass "a progress bar (runs, rate, ETA) when stderr is a terminal"
  else
    fail "a progress bar when stderr is a terminal" "$(head -c 200 tty.out)"
  fi
fi

# ---- resume: cut anywhere, the resumed file is the whole CSV -------------------------------------------------

size=$(wc -c <one.csv)
resumed_ok=1
for cut in 0 10 $(head -n 1 one.csv | wc -c) $(head -n 2 one.csv | wc -c) 1000 $((size / 3)) $((size / 2 + 7)) $((size - 1)) "$size"; do
  head -c "$cut" one.csv >cut.csv
  rc=0
  "$MGSIM" sweep --config sweep.json --resume --output cut.csv 2>cut.err || rc=$?
  if [[ $rc != 0 ]] || ! cmp -s cut.csv one.csv; then
    resumed_ok=0
    fail "a CSV cut after $cut bytes resumes into the whole CSV" "exit $rc: $(head -c 200 cut.err)"
  fi
done
[[ $resumed_ok == 1 ]] && pass "a CSV cut at any byte (mid-header, mid-row, complete) resumes into the whole CSV"

# ---- resume: refused for a CSV another mgsim version wrote ---------------------------------------------------

# A row of another version (its last two columns), or a file of format 1 (its first line "# mgsim VERSION format 1").
head -c $((size / 2)) one.csv | sed '5s/,[^,]*,2$/,0.0.1-gdeadbee,2/' >old.csv
{ echo "# mgsim 0.0.1-gdeadbee format 1"; head -n 4 one.csv; } >format1.csv
for old in old format1; do
  cp one.csv.fingerprint $old.csv.fingerprint
  cp $old.csv $old.csv.orig
  rc=0
  "$MGSIM" sweep --config sweep.json --resume --output $old.csv 2>old.err || rc=$?
  written_by=$([[ $old == old ]] && echo "0.0.1-gdeadbee,2" || echo "# mgsim 0.0.1-gdeadbee format 1")
  if [[ $rc == 2 && $(wc -l <old.err) == 1 && $(cat old.err) == *"cannot resume: written by another mgsim version ('$written_by'"* ]] &&
     cmp -s $old.csv $old.csv.orig; then
    pass "resuming a CSV of another mgsim version ($old) is refused, naming both versions; the file is untouched"
  else
    fail "resuming a CSV of another mgsim version ($old) is refused" "exit $rc: $(head -c 300 old.err)"
  fi
done

# ---- resume: a sweep killed while it runs --------------------------------------------------------------------

# A deep trace (4,000 layers) makes each `optimal` run take tens of milliseconds.
awk 'BEGIN {
  printf "{\"format\": \"mgsim-trace\", \"version\": 1, \"model\": \"deep\", \"batch_size\": 32, \"forward_time_s\": 0.05,"
  printf " \"provenance\": {\"kind\": \"synthetic\"}, \"layers\": ["
  for (i = 0; i < 4000; i++) {
    printf "%s{\"name\": \"l%d\", \"params\": [%d, 64], \"dtype_bytes\": 4, \"backward_time_s\": %.6f}",
      (i ? ", " : ""), i, 1000 + (i * 7919) % 400000, 1e-4 + ((i * 104729) % 1000) * 1e-6
  }
  print "]}"
}' >deep.json
cat >slow.json <<'EOF'
{"trace": "deep.json", "collective": ["ring", "tree"],
 "network": [{"alpha_us": 20, "beta_s_per_byte": 1e-9}, {"alpha_us": 2, "beta_s_per_byte": 1e-10}],
 "schedules": ["optimal"]}
EOF
"$MGSIM" sweep --config slow.json --threads 2 --output slow-full.csv
"$MGSIM" sweep --config slow.json --threads 1 --output slow.csv &
pid=$!
for _ in $(seq 1 600); do
  [[ -f slow.csv.partial && $(wc -l <slow.csv.partial) -ge 4 ]] && break
  sleep 0.01
done
kill -KILL "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
killed_at=40  # unless the sweep finished before the kill (a loaded machine)
if [[ -e slow.csv.partial ]]; then
  killed_at=$(($(wc -l <slow.csv.partial) - 2))
  if [[ -e slow.csv ]]; then fail "a killed sweep writes no CSV (its rows are in slow.csv.partial)" "slow.csv exists"; fi
fi
rc=0
"$MGSIM" sweep --config slow.json --resume --output slow.csv 2>slow.err || rc=$?
if [[ $rc == 0 ]] && cmp -s slow.csv slow-full.csv && [[ ! -e slow.csv.partial ]]; then
  pass "a sweep killed after $killed_at of 40 rows, then resumed, gives the uninterrupted CSV"
else
  fail "a killed and resumed sweep gives the uninterrupted CSV" "exit $rc, killed after $killed_at rows"
fi

# ---- shards: separate processes, merged --------------------------------------------------------------------

for i in 1 2 3; do "$MGSIM" sweep --config sweep.json --shard "$i/3" --output "shard$i.csv" & done
wait
rc=0
bash "$ROOT/scripts/merge_shards.sh" merged.csv shard3.csv shard1.csv shard2.csv 2>merge.err || rc=$?
if [[ $rc == 0 ]] && cmp -s merged.csv one.csv && [[ $(cat shard*.csv | wc -l) == $((ROWS + 3)) ]]; then
  pass "3 shards run as 3 processes merge into the unsharded CSV"
else
  fail "3 shards merge into the unsharded CSV" "exit $rc: $(head -c 300 merge.err)"
fi
head -n 100 shard2.csv >shard2-cut.csv
rc=0
bash "$ROOT/scripts/merge_shards.sh" bad-merge.csv shard1.csv shard2-cut.csv shard3.csv 2>/dev/null || rc=$?
if [[ $rc == 2 && ! -e bad-merge.csv ]]; then pass "merging an incomplete set of shards fails"; else fail "merging an incomplete set of shards fails" "exit $rc"; fi
sed '2s/,[^,]*,2$/,0.0.1-gdeadbee,2/' shard2.csv >shard2-old.csv
rc=0
bash "$ROOT/scripts/merge_shards.sh" bad-merge.csv shard1.csv shard2-old.csv shard3.csv 2>merge.err || rc=$?
if [[ $rc == 2 && ! -e bad-merge.csv ]] && grep -q "rows written by different mgsim versions: 0.0.1-gdeadbee,2 " merge.err; then
  pass "merging shards of different mgsim versions fails, naming them"
else
  fail "merging shards of different mgsim versions fails" "exit $rc: $(cat merge.err)"
fi
cp shard2.csv.fingerprint shard2-cut.csv.fingerprint  # the sidecar travels with its CSV
"$MGSIM" sweep --config sweep.json --shard 2/3 --resume --output shard2-cut.csv
if cmp -s shard2-cut.csv shard2.csv; then pass "a shard resumes"; else fail "a shard resumes"; fi
cp shard1.csv.fingerprint shard2-cut.csv.fingerprint
rc=0
"$MGSIM" sweep --config sweep.json --shard 2/3 --resume --output shard2-cut.csv 2>resume.err || rc=$?
if [[ $rc == 2 ]] && grep -q "cannot resume: its rows are shard 1/3's, this sweep is shard 2/3 (--shard differs)" resume.err; then
  pass "a shard's rows are not resumed as another shard's, said"
else
  fail "a shard's rows are not resumed as another shard's" "exit $rc"
fi

# ---- bad sweeps: exit 2, one line naming file and key, nothing written -----------------------------------------

expect_error() {  # expect_error NAME FRAGMENT CONFIG-TEXT [EXTRA-ARGS...]; OUT=FILE overrides the output
  local name=$1 fragment=$2 text=$3
  shift 3
  mkdir -p "bad/$name"
  cp t.json "bad/$name/t.json"
  printf '%s\n' "$text" >"bad/$name/sweep.json"
  local rc=0 out=${OUT:-"bad/$name/out.csv"}
  "$MGSIM" sweep --config "bad/$name/sweep.json" --output "$out" "$@" >"bad/$name/stdout" 2>"bad/$name/stderr" || rc=$?
  local first
  first=$(head -n 1 "bad/$name/stderr")
  if [[ $rc != 2 ]]; then
    fail "(bad) $name: exit 2" "exit $rc: $first"
  elif [[ $(wc -l <"bad/$name/stderr") != 1 || $first != "mgsim: error: "* ]]; then
    fail "(bad) $name: one 'mgsim: error:' line" "$(head -c 300 "bad/$name/stderr")"
  elif [[ $first != *"$fragment"* ]]; then
    fail "(bad) $name: the message says '$fragment'" "$first"
  elif [[ -e $out || -s "bad/$name/stdout" ]]; then
    fail "(bad) $name: nothing written"
  else
    pass "(bad) $name: exit 2, '$first'"
  fi
}
NET='"network": {"alpha_us": 1, "beta_s_per_byte": 1e-9}'
expect_error empty-traces 'sweep.json: trace: expected' "{\"trace\": [], $NET}"
expect_error empty-gpus 'sweep.json: gpus: expected a non-empty array' "{\"trace\": \"t.json\", \"gpus\": [], $NET}"
expect_error zero-gpus 'sweep.json: gpus[1]: expected an integer' "{\"trace\": \"t.json\", \"gpus\": [4, 0], $NET}"
expect_error unknown-collective 'sweep.json: collective[1]: ' "{\"trace\": \"t.json\", \"collective\": [\"ring\", \"butterfly\"], $NET}"
expect_error unknown-schedule 'sweep.json: schedules[0]: ' "{\"trace\": \"t.json\", \"schedules\": [\"gpipe\"], $NET}"
expect_error empty-parameter-list 'sweep.json: schedules[0].bucket_cap_mb: ' \
  "{\"trace\": \"t.json\", \"schedules\": [{\"name\": \"ddp\", \"bucket_cap_mb\": []}], $NET}"
expect_error unknown-key 'sweep.json: colective: unknown key' "{\"trace\": \"t.json\", \"colective\": \"ring\", $NET}"
expect_error missing-trace-file 'no-such.json' "{\"trace\": [\"t.json\", \"no-such.json\"], $NET}"
expect_error measured-lacks-gpus 'sweep.json: gpus[1]: 16 GPUs' \
  "{\"trace\": \"t.json\", \"gpus\": [4, 16], \"collective\": \"measured\", \"curves\": [\"$ROOT/traces/googlenet-k80-allreduce.json\"]}"
OUT="$WORK/no-such-dir/out.csv" expect_error unwritable-output 'no-such-dir/out.csv: cannot write' "{\"trace\": \"t.json\", $NET}"
expect_error bad-shard '--shard' "{\"trace\": \"t.json\", $NET}" --shard 4/3

# A bad config or another sweep's file never touches an existing output.
cp one.csv keep.csv
cp one.csv.fingerprint keep.csv.fingerprint
rc=0
"$MGSIM" sweep --config bad/zero-gpus/sweep.json --output keep.csv 2>/dev/null || rc=$?
"$MGSIM" sweep --config bad/unknown-key/sweep.json --resume --output keep.csv 2>/dev/null || rc=$((rc + $?))
printf '{"trace": "t.json", "gpus": [4], %s}\n' "$NET" >small.json
"$MGSIM" sweep --config small.json --resume --output keep.csv 2>resume.err || rc=$((rc + $?))
if [[ $rc == 6 ]] && cmp -s keep.csv one.csv && grep -q "mgsim: error: keep.csv: cannot resume: its rows were computed from another configuration" resume.err; then
  pass "a bad config, or resuming another sweep's CSV, leaves the existing file as it was"
else
  fail "a bad config, or resuming another sweep's CSV, leaves the existing file as it was" "exits summed $rc: $(cat resume.err)"
fi

# ---- timeline ------------------------------------------------------------------------------------------------

cat >run.json <<'EOF'
{"trace": "t.json", "gpus": [4, 2048], "collective": "ring",
 "network": {"alpha_us": 45.25, "beta_s_per_byte": 9.93e-10, "gamma_s_per_byte": 2.5e-9},
 "schedules": ["wfbp", "single", "mgwfbp", {"name": "ddp", "bucket_cap_mb": 0.05}]}
EOF
rc=0
"$MGSIM" run --config run.json --format csv --output run.csv --timeline timeline.json 2>timeline.err || rc=$?
if [[ $rc != 0 || ! -s timeline.json ]]; then
  fail "run --timeline writes the timeline" "exit $rc: $(head -c 300 timeline.err)"
elif [[ $HAVE_PYTHON == 1 ]]; then
  if why=$(python3 - timeline.json run.csv 2>&1 <<'EOF'
import csv, json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
rows = list(csv.DictReader(open(sys.argv[2])))
for e in events:
    assert e["ph"] in ("X", "M", "i"), e
    assert isinstance(e["pid"], int) and isinstance(e["tid"], int), e
    if e["ph"] != "M":
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
    if e["ph"] == "X":
        assert e["dur"] >= 0 and e["name"], e
names = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
assert len(names) == 2 * len(rows), "expected a compute and a communication process per run, got %d" % len(names)
for r, row in enumerate(rows):
    compute, comm = 2 * r + 1, 2 * r + 2
    label = "%s GPUs, %s" % (row["gpus"], row["schedule"])
    assert names[compute].startswith(label) and names[comm].startswith(label), (names[compute], label)
    mine = [e for e in events if e["pid"] in (compute, comm) and e["ph"] == "X"]
    layers = [e for e in mine if e["cat"] == "backward"]
    messages = [e for e in mine if e["cat"] == "allreduce"]
    exposed = sum(e["dur"] for e in mine if e["cat"] == "exposed")
    assert len(layers) == 3, "%s: %d layer slices" % (label, len(layers))
    assert len(messages) == int(row["messages"]), "%s: %d message slices, run says %s" % (label, len(messages), row["messages"])
    assert sum(m["args"]["bytes"] for m in messages) == int(row["bytes"]), label
    close = lambda us, s: abs(us - float(s) * 1e6) < 2e-3
    assert close(sum(m["dur"] for m in messages), row["comm_s"]), label
    assert close(exposed, row["exposed_comm_s"]), (label, exposed, row["exposed_comm_s"])
    end = max(e["ts"] + e["dur"] for e in mine)
    assert close(end, row["iteration_time_s"]), (label, end, row["iteration_time_s"])
    forward = [e for e in mine if e["cat"] == "forward"]
    assert len(forward) == 3, "%s: %d forward slices" % (label, len(forward))
    backward_end = max(e["ts"] + e["dur"] for e in layers)
    assert close(backward_end + sum(e["dur"] for e in forward), row["compute_s"]), label
EOF
  ); then
    pass "run --timeline: a Chrome trace with a slice per layer and per message, times matching the run's CSV"
  else
    fail "run --timeline matches the run" "$why"
  fi
else
  grep -q '"traceEvents"' timeline.json && pass "run --timeline writes traceEvents (python3 missing: not parsed)"
fi

# ---- plots ----------------------------------------------------------------------------------------------------

if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  rc=0
  /usr/bin/python3 "$ROOT/scripts/plot_sweep.py" one.csv figs/sweep >plot.out 2>plot.err || rc=$?
  missing=""
  for f in figs/sweep-efficiency.png figs/sweep-efficiency.svg figs/sweep-throughput.png figs/sweep-throughput.svg; do
    [[ -s $f ]] || missing+=" $f"
  done
  if [[ $rc == 0 && -z $missing ]] && grep -q "<svg" figs/sweep-efficiency.svg; then
    pass "plot_sweep.py writes efficiency and throughput plots, PNG and SVG"
  else
    fail "plot_sweep.py writes the plots" "exit $rc, missing:$missing $(tail -c 300 plot.err)"
  fi
else
  echo "SKIP: plot_sweep.py (Debian's python3-matplotlib is not installed)"
fi

# ---- advise --------------------------------------------------------------------------------------------------

rc=0
"$MGSIM" advise --config run.json >advice.txt 2>advise.err || rc=$?
"$MGSIM" advise --config run.json --format csv --output advice.csv 2>>advise.err || rc=$?
if [[ $rc == 0 ]] && grep -q "bucket_cap_mb" advice.txt && grep -q "fusion_threshold_mb" advice.txt &&
  grep -q "partition_params" advice.txt && grep -q "slice_params" advice.txt && [[ $(wc -l <advice.csv) == 13 ]]; then
  pass "advise prints a table and writes CSV (2 GPU counts x DDP cap, Horovod threshold and cycle, ByteScheduler partition and credit, P3 slice)"
else
  fail "advise prints a table and writes CSV" "exit $rc: $(head -c 300 advise.err)"
fi

finish
