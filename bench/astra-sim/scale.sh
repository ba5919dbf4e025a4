#!/usr/bin/env bash
# Side by side at scale (issue 28): GoogleNet WFBP (traces/googlenet-k80.json)
# on a ring with the MG-WFBP authors' 10 GbE alpha and beta (gamma 0) at 8, 64,
# 512 and 2048 GPUs, predicted by mgsim and by ASTRA-sim's analytical backend
# replaying the Chakra ETs that `mgsim export chakra` writes. Each prediction
# is one process under /usr/bin/time -v: its wall time and peak memory.
#   usage: bench/astra-sim/scale.sh MGSIM ASTRA_BINARY [OUT.csv]   (from anywhere)
#   ASTRA_BINARY: AstraSim_Analytical_Congestion_Unaware (build_astra_sim.sh prints it)
#   GPUS="8 64" to run fewer counts.
set -euo pipefail

mgsim=$(realpath "${1:?usage: scale.sh MGSIM ASTRA_BINARY [OUT.csv]}")
astra=$(realpath "${2:?usage: scale.sh MGSIM ASTRA_BINARY [OUT.csv]}")
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "${3:-$here/scale-results.csv}")
gpus_list=${GPUS:-8 64 512 2048}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Seconds and peak kB of one /usr/bin/time -v report.
wall_s() { awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$1"; }
peak_kb() { awk -F': ' '/Maximum resident set size/ {print $2}' "$1"; }

cp "$here/system.json" "$here/no_memory_expansion.json" "$work/"
machine="$(nproc) x $(lscpu | awk -F': +' '/Model name/ {print $2; exit}'), $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
mgsim_version=$("$mgsim" --version | head -n 1)
date=$(date -u +%Y-%m-%dT%H:%MZ)
echo "P,schedule,messages,mgsim_iter_s,astra_iter_ns,rel_diff,mgsim_wall_s,mgsim_peak_kb,export_wall_s,et_bytes,astra_wall_s,astra_peak_kb,date,machine,mgsim,astra_sim" >"$out.tmp"
for p in $gpus_list; do
  cd "$work"
  # googlenet-ring.json's trace, network and message unit, at one GPU count, wfbp only.
  printf '{"description": "GoogleNet WFBP on a ring of %d GPUs, 10 GbE alpha and beta, gamma 0 (bench/astra-sim/scale.sh)",
 "trace": "%s", "message_unit": "layer", "gpus": [%d], "collective": "ring",
 "network": {"alpha_us": 45.25, "beta_s_per_byte": 9.934107462565104e-10, "gamma_s_per_byte": 0.0},
 "schedules": ["wfbp"]}\n' "$p" "$here/../../traces/googlenet-k80.json" "$p" >cfg.json
  /usr/bin/time -v "$mgsim" run -c cfg.json --format csv -o mgsim.csv 2>mgsim.time
  row=$(sed -n 2p mgsim.csv)
  iter=$(cut -d, -f5 <<<"$row")
  messages=$(cut -d, -f13 <<<"$row")
  rm -rf et && mkdir et
  /usr/bin/time -v "$mgsim" export chakra -c cfg.json --gpus "$p" --schedule wfbp -o et/googlenet 2>export.time >/dev/null
  printf 'topology: [ Ring ]\nnpus_count: [ %d ]\nbandwidth: [ 0.9375 ]\nlatency: [ 45250.0 ]\n' "$p" >ring.yml
  /usr/bin/time -v "$astra" --workload-configuration=et/googlenet --system-configuration=system.json \
    --remote-memory-configuration=no_memory_expansion.json --network-configuration=ring.yml >astra.log 2>astra.time
  # The iteration ends when the last rank finishes.
  astra_ns=$(sed -n 's/.*sys\[[0-9]*\] finished, \([0-9]*\) cycles.*/\1/p' astra.log | sort -n | tail -n 1)
  [[ -n $astra_ns ]] || { echo "scale.sh: ASTRA-sim printed no finished rank at P=$p (astra.log:)" >&2; tail -n 5 astra.log >&2; exit 1; }
  rel=$(awk -v a="$astra_ns" -v m="$iter" 'BEGIN {printf "%.3e", (a * 1e-9 - m) / m}')
  echo "$p,wfbp,$messages,$iter,$astra_ns,$rel,$(wall_s mgsim.time),$(peak_kb mgsim.time),$(wall_s export.time),$(du -cb et | tail -n 1 | cut -f1),$(wall_s astra.time),$(peak_kb astra.time),$date,\"$machine\",$mgsim_version,c459ab6" >>"$out.tmp"
  tail -n 1 "$out.tmp"
done
mv "$out.tmp" "$out"
echo "wrote $out"
