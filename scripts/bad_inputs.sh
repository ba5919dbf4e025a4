#!/usr/bin/env bash
# Runs the bad-input cases of tests/data/bad/cases.txt against an mgsim binary.
#   bad_inputs.sh check MGSIM    every case exits 2, prints one line "mgsim: error: ..."
#                                holding the expected text on stderr and nothing on
#                                stdout, no sanitizer report (the ASan/UBSan build runs
#                                it too: scripts/test.sh), and leaves no temporary file; and the table
#                                that ends docs/errors.md is up to date (ctest: bad_inputs)
#   bad_inputs.sh update MGSIM   runs the cases and rewrites that table
set -uo pipefail
[[ $# -eq 2 && ($1 == check || $1 == update) ]] || { echo "usage: $0 check|update MGSIM" >&2; exit 2; }
mode=$1
binary=$(realpath "$2")
cd "$(dirname "$0")/.."
mgsim() { "$binary" "$@"; }

failures=0
table="| class | what is wrong | command | message |
| --- | --- | --- | --- |"
while IFS= read -r line; do
  [[ -z $line || $line == \#* ]] && continue
  IFS='|' read -r class what command expected <<<"$line"
  class=$(echo $class) what=${what# } what=${what% } command=${command# } command=${command% } expected=${expected# }
  TMP=$(mktemp -d)
  (TMP=$TMP; eval "$command") >"$TMP.out" 2>"$TMP.err"
  status=$?
  message=$(head -n 1 "$TMP.err")
  problems=()
  [[ $status -eq 2 ]] || problems+=("exit $status, expected 2")
  [[ $(wc -l <"$TMP.err") -eq 1 ]] || problems+=("$(wc -l <"$TMP.err") lines on stderr, expected 1")
  [[ $message == "mgsim: error: "* ]] || problems+=("no 'mgsim: error: ' prefix")
  [[ ${message//$TMP/\$TMP} == *"$expected"* ]] || problems+=("message lacks: $expected")
  [[ ! -s $TMP.out ]] || problems+=("wrote to stdout")
  [[ -z $(find "$TMP" . -maxdepth 3 \( -name '*.tmp.*' -o -name '.mgsim-*.tmp' \) 2>/dev/null) ]] ||
    problems+=("left a temporary file")
  ! grep -qE 'Sanitizer|runtime error:' "$TMP.err" || problems+=("a sanitizer report")
  if [[ ${#problems[@]} -gt 0 ]]; then
    echo "FAIL: $class: $what: ${problems[*]}"
    echo "      got: $message"
    failures=$((failures + 1))
  elif [[ $mode == check ]]; then
    echo "PASS: $class: $what"
  fi
  shown=${message#mgsim: error: }
  shown=${shown//$TMP/\$TMP}
  table+=$'\n'"| $class | $what | \`${command//|/\\|}\` | \`${shown//|/\\|}\` |"
  rm -rf "$TMP" "$TMP.out" "$TMP.err"
done <tests/data/bad/cases.txt

prose=$(sed '/^| class |/,$d' docs/errors.md)
if [[ $mode == update ]]; then
  printf '%s\n\n%s\n' "$prose" "$table" >docs/errors.md.tmp && mv docs/errors.md.tmp docs/errors.md
elif [[ $(sed -n '/^| class |/,$p' docs/errors.md) != "$table" ]]; then
  echo "FAIL: the table in docs/errors.md is not that of tests/data/bad/cases.txt:" \
    "run bash scripts/bad_inputs.sh update build/src/mgsim"
  diff <(sed -n '/^| class |/,$p' docs/errors.md) <(printf '%s\n' "$table") | head -6 | cut -c1-400
  failures=$((failures + 1))
fi
[[ $failures -eq 0 ]] && echo "bad_inputs: all cases passed" || echo "bad_inputs: $failures case(s) FAILED"
[[ $failures -eq 0 ]]
