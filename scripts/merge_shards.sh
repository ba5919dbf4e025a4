#!/usr/bin/env bash
# Merges the CSVs of `mgsim sweep --shard i/n` (one per shard, any order) into
# the CSV the unsharded sweep writes: its header, then the rows in `run` order.
# Refuses shards whose headers differ, rows written by different mgsim versions
# (the last two columns, mgsim_version and format_version), a shard with an
# unfinished last line (resume it first: mgsim sweep ... --shard i/n --resume),
# and a result with runs missing or repeated. The output is written whole or
# not at all.
#   usage: merge_shards.sh OUTPUT.csv SHARD.csv...
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 OUTPUT.csv SHARD.csv..." >&2
  exit 2
fi
out=$1
shift
fail() {
  echo "merge_shards: $1" >&2
  exit 2
}

header=$(head -n 1 "$1")
[[ $header == run,*,mgsim_version,format_version ]] ||
  fail "$1: not a sweep CSV (its header is not 'run,...,mgsim_version,format_version')"
for shard in "$@"; do
  [[ $(head -n 1 "$shard") == "$header" ]] || fail "$shard: header differs from $1's"
  [[ -z $(tail -c 1 "$shard") ]] || fail "$shard: unfinished last line (resume that shard first)"
done
versions=$(tail -q -n +2 "$@" | awk -F, '{ print $(NF - 1) "," $NF }' | sort -u)
[[ $(wc -l <<<"$versions") -le 1 ]] || fail "rows written by different mgsim versions: $(tr '\n' ' ' <<<"$versions")"

tmp=$(mktemp "$out.merge.XXXXXX")
trap 'rm -f "$tmp"' EXIT
{
  printf '%s\n' "$header"
  tail -q -n +2 "$@" | LC_ALL=C sort -t, -k1,1n -s
} >"$tmp"
awk -F, 'NR > 1 && $1 != NR - 2 {
  printf "merge_shards: run %d is missing or repeated (line %d holds run %s)\n", NR - 2, NR, $1 > "/dev/stderr"
  exit 2
}' "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "merge_shards: $(($(wc -l <"$out") - 1)) rows from $# shards -> $out" >&2
