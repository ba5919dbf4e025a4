#!/usr/bin/env bash
# Merges the CSVs of `mgsim sweep --shard i/n` (one per shard, any order) into
# the CSV the unsharded sweep writes: its version line and header, then the
# rows in `run` order.
# Refuses shards whose headers or mgsim versions differ, a shard with an unfinished last line
# (resume it first: mgsim sweep ... --shard i/n --resume), and a result with
# runs missing or repeated. The output is written whole or not at all.
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

version=$(head -n 1 "$1")
header=$(sed -n 2p "$1")
[[ $version == "# mgsim "* ]] || fail "$1: not a sweep CSV (its first line is not '# mgsim VERSION format N')"
[[ $header == run,* ]] || fail "$1: not a sweep CSV (its first column is not 'run')"
for shard in "$@"; do
  [[ $(head -n 1 "$shard") == "$version" ]] || fail "$shard: written by another mgsim version than $1 ($version)"
  [[ $(sed -n 2p "$shard") == "$header" ]] || fail "$shard: header differs from $1's"
  [[ -z $(tail -c 1 "$shard") ]] || fail "$shard: unfinished last line (resume that shard first)"
done

tmp=$(mktemp "$out.merge.XXXXXX")
trap 'rm -f "$tmp"' EXIT
{
  printf '%s\n%s\n' "$version" "$header"
  tail -q -n +3 "$@" | LC_ALL=C sort -t, -k1,1n -s
} >"$tmp"
awk -F, 'NR > 2 && $1 != NR - 3 {
  printf "merge_shards: run %d is missing or repeated (line %d holds run %s)\n", NR - 3, NR, $1 > "/dev/stderr"
  exit 2
}' "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "merge_shards: $(($(wc -l <"$out") - 2)) rows from $# shards -> $out" >&2
