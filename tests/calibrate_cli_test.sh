#!/usr/bin/env bash
# End-to-end checks of `mgsim calibrate`, `mgsim validate`, `mgsim fit --insitu`
# and the message_unit key: the fitted config is written whole, and every bad
# input gives exit code 2, one "mgsim: error:" line naming file and key, and
# no output file.
#   usage: calibrate_cli_test.sh <path-to-mgsim> <repo-root>
set -uo pipefail

source "$(dirname "$0")/cli_lib.sh" "$@"

run_ok() {  # run_ok NAME COMMAND...
  local name=$1
  shift
  local out
  if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$out"; fi
}

# bad NAME EXPECTED-TEXT COMMAND...: exit 2, one line with the text, no fitted.json
bad() {
  local name=$1 expected=$2
  shift 2
  rm -f fitted.json
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [[ $rc -eq 2 && $out == "mgsim: error: "*"$expected"* && $(printf '%s\n' "$out" | wc -l) -eq 1 && ! -e fitted.json ]]; then
    pass "$name"
  else
    fail "$name" "exit $rc: $out"
  fi
}

TRACE="$ROOT/traces/googlenet-k80.json"
cat >base.json <<JSON
{"trace": "$TRACE", "gpus": [4], "collective": "ring",
 "network": {"alpha_us": 20, "beta_s_per_byte": 5e-10, "gamma_s_per_byte": 2.5e-9},
 "schedules": ["single", "wfbp", {"name": "ddp", "bucket_cap_mb": 25}]}
JSON
cat >m.json <<'JSON'
{"measurements": [{"gpus": 2, "schedule": "single", "iteration_time_s": 0.42},
                  {"gpus": 8, "schedule": "single", "iteration_time_s": 0.47},
                  {"gpus": 16, "schedule": "wfbp", "throughput_samples_per_s": 2500}]}
JSON

run_ok "calibrate writes the fitted config" "$MGSIM" calibrate --config base.json --measurements m.json \
  --fit network.alpha_us,network.beta_s_per_byte -o fitted.json
run_ok "the fitted config runs" "$MGSIM" run --config fitted.json
if grep -q '"alpha_us": 20,' fitted.json; then fail "calibrate moved alpha_us"; else pass "calibrate moved alpha_us"; fi
"$MGSIM" calibrate --config base.json --measurements m.json --fit network.alpha_us,network.beta_s_per_byte \
  >report.txt 2>/dev/null
if "$MGSIM" calibrate --config base.json --measurements m.json --fit network.alpha_us,network.beta_s_per_byte \
     -o - >stdout.json 2>stderr.txt && cmp -s stdout.json fitted.json && cmp -s stderr.txt report.txt; then
  pass "calibrate -o - prints the fitted config on stdout, the report on stderr"
else
  fail "calibrate -o - prints the fitted config on stdout, the report on stderr" "$(head -c 300 stderr.txt)"
fi
# A config whose trace is a list of one (as a sweep's) is written to another folder with the list rewritten.
sed 's#"trace": "[^"]*"#"trace": ["'"$TRACE"'"]#' base.json >list.json
mkdir -p elsewhere
if "$MGSIM" calibrate --config list.json --measurements m.json --fit network.beta_s_per_byte -o elsewhere/f.json \
     >/dev/null 2>&1 && "$MGSIM" run -c elsewhere/f.json >/dev/null 2>&1; then
  pass "calibrate -o elsewhere writes a config whose trace list still runs"
else
  fail "calibrate -o elsewhere writes a config whose trace list still runs"
fi
# Measurements no value within the bounds reaches (a throughput a million times what 8 K80s train, as if
# its unit were wrong): the report says the fit misses them; a fit that reaches its rows says nothing.
cat >unreachable.json <<'JSON'
{"measurements": [{"gpus": 4, "schedule": "wfbp", "throughput_samples_per_s": 1e9},
                  {"gpus": 8, "schedule": "single", "iteration_time_s": 0.47}]}
JSON
unreachable=$("$MGSIM" calibrate --config base.json --measurements unreachable.json --fit network.beta_s_per_byte 2>&1)
if [[ $unreachable == *"warning: the fit misses 1 of 2 measurements by more than 50% (#0 by -100.00%)"* ]] &&
   ! grep -q warning report.txt; then
  pass "calibrate warns of measurements its fit misses by more than half, and only of those"
else
  fail "calibrate warns of measurements its fit misses by more than half, and only of those" "$unreachable"
fi
if "$MGSIM" calibrate --config - --measurements m.json --fit network.alpha_us,network.beta_s_per_byte \
     -o stdin-fitted.json <base.json >/dev/null 2>&1 && cmp -s stdin-fitted.json fitted.json; then
  pass "calibrate --config - reads the config from stdin once and fits as from the file"
else
  fail "calibrate --config - reads the config from stdin once and fits as from the file" "$(ls stdin-fitted.json 2>&1)"
fi
keys=$(grep -o '^  "[a-z_]*"' fitted.json | tr -d ' "' | tr '\n' ' ')
if [[ $keys == "trace gpus collective network schedules " ]]; then
  pass "the fitted config keeps the base config's key order"
else
  fail "the fitted config keeps the base config's key order" "$keys"
fi

bad "unknown --fit path" "base.json: network.alpah_us: expected a number" \
  "$MGSIM" calibrate -c base.json -m m.json --fit network.alpah_us -o fitted.json
bad "non-numeric --fit path" "base.json: collective: expected a number >= 0 at this --fit path, got \"ring\"" \
  "$MGSIM" calibrate -c base.json -m m.json --fit collective -o fitted.json
bad "a value no measurement depends on" "base.json: schedules[2].bucket_cap_mb: no measurement depends on this value" \
  "$MGSIM" calibrate -c base.json -m m.json --fit network.alpha_us,schedules.2.bucket_cap_mb -o fitted.json
printf '{"measurements": [{"gpus": 2, "schedule": "single", "iteration_time_s": 0.42}]}\n' >one.json
bad "fewer measurements than values" "one.json: measurements: expected at least 2 measurements" \
  "$MGSIM" calibrate -c base.json -m one.json --fit network.alpha_us,network.beta_s_per_byte -o fitted.json
printf '{"measurements": [{"gpus": 2, "schedule": "wfbq", "iteration_time_s": 0.42}]}\n' >unknown.json
bad "a schedule that does not exist" "unknown.json: measurements[0].schedule: unknown schedule 'wfbq'" \
  "$MGSIM" calibrate -c base.json -m unknown.json --fit network.alpha_us -o fitted.json
cat >measured.json <<JSON
{"trace": "$TRACE", "gpus": [2], "collective": "measured", "curves": ["$ROOT/traces/googlenet-k80-allreduce.json"], "curve_scale": 1}
JSON
printf '{"measurements": [{"gpus": 16, "schedule": "wfbp", "iteration_time_s": 0.42}]}\n' >m16.json
bad "a GPU count the config cannot run" "m16.json: measurements[0]: the config cannot run 16 GPUs" \
  "$MGSIM" calibrate -c measured.json -m m16.json --fit curve_scale -o fitted.json

# --choose: every candidate is listed, one is chosen, the written config carries it.
"$MGSIM" calibrate -c base.json -m m.json --fit network.beta_s_per_byte --choose collective=ring,tree \
  -o fitted.json >choose.txt 2>&1
chosen=$(grep -c '<- chosen' choose.txt)
if [[ $chosen -eq 1 && $(grep -c '^collective=' choose.txt) -eq 2 ]] &&
   grep -q "\"collective\": \"$(grep '<- chosen' choose.txt | sed 's/^collective=\([a-z-]*\).*/\1/')\"" fitted.json; then
  pass "calibrate --choose lists every candidate and writes the chosen one"
else
  fail "calibrate --choose lists every candidate and writes the chosen one" "$(cat choose.txt)"
fi
bad "a malformed --choose" "--choose: expected KEY=a,b,... such as collective=ring,tree,nccl, got 'collective'" \
  "$MGSIM" calibrate -c base.json -m m.json --fit network.alpha_us --choose collective -o fitted.json
bad "an unknown --choose candidate" "base.json: collective: unknown collective 'rnig'" \
  "$MGSIM" calibrate -c base.json -m m.json --fit network.alpha_us --choose collective=ring,rnig -o fitted.json

# message_unit: a run row says which unit ran; a bad unit is refused.
sed 's/"gpus": \[4\]/"gpus": [4], "message_unit": "layer"/' base.json >layer.json
out=$("$MGSIM" run -c layer.json --format csv 2>&1)
if [[ $(printf '%s\n' "$out" | sed -n 1p) == *",message_unit,mgsim_version,format_version" &&
      $(printf '%s\n' "$out" | sed -n 2p) == *",layer,"*",2" ]]; then
  pass "csv rows say which message unit ran"
else
  fail "csv rows say which message unit ran" "$out"
fi
sed 's/"gpus": \[4\]/"gpus": [4], "message_unit": "neuron"/' base.json >neuron.json
out=$("$MGSIM" run -c neuron.json 2>&1)
rc=$?
if [[ $rc -eq 2 && $out == "mgsim: error: "*"neuron.json: message_unit: expected \"tensor\" or \"layer\", got \"neuron\"" ]]; then
  pass "an unknown message unit is refused"
else
  fail "an unknown message unit is refused" "exit $rc: $out"
fi

# In-situ costs: fit a trace's observations, compare them with the OSU curve, run the in-situ config.
run_ok "fit in-situ observations" "$MGSIM" fit "$TRACE"
out=$("$MGSIM" fit "$ROOT/traces/googlenet-k80-allreduce.json" --insitu "$TRACE" 2>&1)
if [[ $out == *"In situ"* ]]; then pass "fit --insitu prints the comparison"; else fail "fit --insitu prints the comparison" "$out"; fi
if [[ $("$MGSIM" fit "$ROOT/traces/googlenet-k80-allreduce.json" --insitu - <"$TRACE" 2>&1) == "${out//"($TRACE)"/(-)}" ]]; then
  pass "fit --insitu - reads the trace from stdin once, as from the file"
else
  fail "fit --insitu - reads the trace from stdin once, as from the file"
fi
run_ok "run the in-situ config" "$MGSIM" run -c "$ROOT/configs/googlenet-k80-insitu.json"

# A folder of shipped validation cases (the whole set is the regression test's, test_validate.cpp).
mkdir shipped && cp "$ROOT/validation/dlperf-pytorch.json" "$ROOT/validation/dlperf-tf2.json" shipped/ &&
  ln -s "$ROOT/validation/traces" shipped/traces
out=$("$MGSIM" validate shipped 2>&1)
if [[ $out == *"dlperf-pytorch.json"*"dlperf-tf2.json"* && $out == *"predicted numbers: median |error|"* ]]; then
  pass "validate a folder reports every case in it"
else
  fail "validate a folder reports every case in it" "$out"
fi

finish
