#!/usr/bin/env bash
# Layering of every pair of libraries (docs/architecture.md, "Rooms"): a file
# of room U, preprocessed with U's include folders, must not reach room O's
# private header, by name or by path under src/; a file of U including its own
# private header and public ones (the control) must preprocess. Layering is
# where an include resolves, so the preprocessor answers it (compiling the
# controls took 90% of the test's time); the layering_* probes compile. Run
# with each compiler given (the build's, and clang++ where installed).
#   layering_pairs.sh SOURCE_DIR ROOMS_FILE COMPILER...
# ROOMS_FILE: one line per room, "room|private header|include;folders" (CMake writes it).
set -uo pipefail
source_dir=$1 rooms_file=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 checks=0
check() {  # check COMPILER ROOM_INCLUDES EXPECT(pass|fail) TEXT WHAT
  local compiler=$1 includes=$2 expect=$3 text=$4 what=$5 flags=() dir
  IFS=';' read -ra dirs <<<"$includes"
  for dir in "${dirs[@]}"; do [[ -n $dir && $dir != /usr/include ]] && flags+=(-I "$dir"); done  # a system folder as -I breaks #include_next
  printf '%s\n' "$text" >"$work/probe.cpp"
  checks=$((checks + 1))
  if "$compiler" -std=c++20 -E "${flags[@]}" "$work/probe.cpp" -o /dev/null >"$work/out" 2>&1; then
    [[ $expect == pass ]] && return
    echo "FAIL ($compiler): $what resolved"
  else
    [[ $expect == fail ]] && grep -q "file not found\|No such file" "$work/out" && return
    echo "FAIL ($compiler): $what: $(grep -m1 error "$work/out")"
  fi
  failures=$((failures + 1))
}
for compiler in "$@"; do
  while IFS='|' read -r user user_header user_includes; do
    [[ -n $user_header ]] && check "$compiler" "$user_includes" pass "#include \"$user_header\"" \
      "$user including its own $user_header"
    while IFS='|' read -r owner owner_header _; do
      [[ $owner == "$user" || -z $owner_header ]] && continue
      check "$compiler" "$user_includes" fail "#include \"$owner_header\"" "$user naming $owner's $owner_header"
      check "$compiler" "$user_includes" fail "#include \"$owner/$owner_header\"" \
        "$user reaching $owner's $owner/$owner_header by path"
    done <"$rooms_file"
  done <"$rooms_file"
done
echo "layering_pairs: $checks checks, $failures failed ($*)"
[[ $failures -eq 0 ]]
