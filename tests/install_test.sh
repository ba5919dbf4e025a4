#!/usr/bin/env bash
# `cmake --install` of this build into a temporary prefix, then what a user of
# the installed copy relies on: the binary and its version, find_package(mgsim)
# from a separate project (tests/package/, linked against the installed
# libraries, must print what the installed mgsim prints), the docs, the man
# page (when help2man made one), bash completion, the profiler beside the
# binary (when it was built).
#   usage: MGSIM_BUILD_DIR=<build-dir> install_test.sh <path-to-mgsim> <repo-root>
set -euo pipefail

BUILD=$(realpath "${MGSIM_BUILD_DIR:?set MGSIM_BUILD_DIR to the build folder}")
source "$(dirname "$0")/cli_lib.sh" "$@"
PREFIX=$WORK/prefix

cmake --install "$BUILD" --prefix "$PREFIX" >install.log 2>&1 || { cat install.log; exit 1; }
INSTALLED=$PREFIX/bin/mgsim

if [[ -x $INSTALLED && $("$INSTALLED" --version) == "$("$MGSIM" --version)" && $("$MGSIM" --version) == "mgsim "?* ]]; then
  pass "installed bin/mgsim --version: $("$INSTALLED" --version)"
else
  fail "installed bin/mgsim --version prints the built one's" "$("$INSTALLED" --version 2>&1 || true)"
fi

# find_package(mgsim) from a separate project, with the build's compiler: tests/package/, whose
# CMakeLists.txt holds every line of docs/install.md's cmake block.
docs_block=$(awk '/^```cmake$/ { on = 1; next } /^```$/ { on = 0 } on' "$ROOT/docs/install.md")
if [[ -n $docs_block &&
      $(grep -Fxc -f <(printf '%s\n' "$docs_block") "$ROOT/tests/package/CMakeLists.txt") == $(wc -l <<<"$docs_block") ]]; then
  pass "tests/package/CMakeLists.txt holds the lines of docs/install.md's cmake block"
else
  fail "tests/package/CMakeLists.txt holds the lines of docs/install.md's cmake block" "$docs_block"
fi
compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
launcher=$(sed -n 's/^CMAKE_CXX_COMPILER_LAUNCHER:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
if cmake -S "$ROOT/tests/package" -B consumer -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_CXX_COMPILER="$compiler" ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher"} >consumer.log 2>&1 &&
   cmake --build consumer >>consumer.log 2>&1; then
  pass "find_package(mgsim): a separate project compiles and links against the installed package"
  config=$ROOT/configs/googlenet-k80-ring.json
  if consumer/my_tool "$config" >library.csv 2>predict.err && "$INSTALLED" run -c "$config" --format csv >binary.csv &&
     cmp -s library.csv binary.csv; then
    pass "the program built on the installed libraries prints what the installed mgsim prints"
  else
    fail "the program built on the installed libraries prints what the installed mgsim prints" "$(head -c 300 predict.err)"
  fi
else
  fail "find_package(mgsim): a separate project compiles and links against the installed package" \
    "$(tail -n 20 consumer.log)"
fi

missing=()
for file in include/mgsim/version.hpp include/mgsim/app/run_set.hpp share/doc/mgsim/README.md \
  share/doc/mgsim/docs/config.md share/doc/mgsim/validation/README.md share/bash-completion/completions/mgsim \
  share/mgsim/configs/googlenet-k80-ring.json share/mgsim/traces/googlenet-k80.json \
  share/mgsim/validation/dgx1-v100-resnet50.json share/mgsim/scripts/plot_sweep.py; do
  [[ -f $PREFIX/$file ]] || missing+=("$file")
done
[[ ! -f $BUILD/mgsim.1 || -f $PREFIX/share/man/man1/mgsim.1 ]] || missing+=(share/man/man1/mgsim.1)
if [[ -f $BUILD/profiler/libmgsim_cupti.so ]]; then
  for file in libexec/mgsim/libmgsim_cupti.so libexec/mgsim/mgsim_profile_model.py; do
    [[ -f $PREFIX/$file ]] || missing+=("$file")
  done
fi
if [[ ${#missing[@]} == 0 ]]; then
  pass "headers, docs, shipped examples, man page, completion and profiler installed"
else
  fail "installed files" "missing: ${missing[*]}"
fi

# The installed docs' relative links lead to installed files.
broken=$(cd "$PREFIX/share/doc/mgsim" && grep -o '](\([^)#:]*\)[)#]' -r --include='*.md' . |
  while IFS= read -r hit; do
    file=${hit%%:*} target=${hit#*](}; target=${target%?}
    [[ -e $(dirname "$file")/$target ]] || echo "$file -> $target"
  done)
if [[ -z $broken ]]; then pass "every relative link of the installed docs resolves"; else fail "installed docs links" "$broken"; fi

# From a folder outside the source tree, with only the installed prefix: the
# examples of every --help (the man page holds the same), then docs/install.md.
# Examples that read a reader's own file (a tool's log, a base config) get the
# stand-in of tests/doc_standins/; `mgsim profile` needs a GPU and is not run.
help_examples() {  # help_examples WORDS...: the Examples lines of `mgsim WORDS --help` and of its subcommands
  local help sub
  help=$("$INSTALLED" "$@" --help)
  sed -n '/^Examples:/,/^$/s/^  mgsim /mgsim /p' <<<"$help"
  for sub in $(sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z0-9-]*\).*/\1/p' <<<"$help"); do help_examples "$@" "$sub"; done
}
# The stand-in configs name traces/ beside them, as a reader's config names its trace: here the shipped ones.
mkdir -p outside && cp -L "$ROOT"/tests/doc_standins/* outside/ && ln -s "$PREFIX/share/mgsim/traces" outside/traces
examples=$(help_examples)
ran=0 failed=()
while IFS= read -r example; do
  [[ $example == "mgsim profile "* ]] && continue
  ran=$((ran + 1))
  (cd outside && PATH=$PREFIX/bin:/usr/bin:/bin MGSIM_DATA_DIR= bash -eo pipefail -c "$example" >/dev/null 2>../example.err) ||
    failed+=("$example: $(tail -n 1 example.err)")
done <<<"$examples"
if [[ $ran -gt 20 && ${#failed[@]} == 0 ]]; then
  pass "the $ran examples of --help (all but mgsim profile's) run from outside the source tree"
else
  fail "the examples of --help run from outside the source tree ($ran run)" "$(printf '%s; ' "${failed[@]}")"
fi
if [[ -f $BUILD/mgsim.1 ]]; then
  missing_in_man=$(while IFS= read -r example; do grep -qF -- "$example" "$BUILD/mgsim.1" || echo "$example"; done <<<"$examples")
  if [[ -z $missing_in_man ]] && grep -q '^\.SH "EXIT STATUS"' "$BUILD/mgsim.1" && grep -q '^\.SH FILES' "$BUILD/mgsim.1" &&
     grep -q '^\.SH ENVIRONMENT' "$BUILD/mgsim.1" && grep -q '^\.SH "SEE ALSO"' "$BUILD/mgsim.1"; then
    pass "the man page holds every example, EXIT STATUS, FILES, ENVIRONMENT and SEE ALSO"
  else
    fail "the man page holds every example and its sections" "$missing_in_man $(grep '^\.SH' "$BUILD/mgsim.1" | tr '\n' ' ')"
  fi
fi
install_lines=$(awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0 } on' "$ROOT/docs/install.md" |
  grep -v -e '^bash scripts/' -e '^cmake ')
if (cd outside && PATH=$PREFIX/bin:/usr/bin:/bin bash -eo pipefail -c "$install_lines" >install.out 2>install.err); then
  pass "docs/install.md's commands (but its build and install) run with the installed mgsim"
else
  fail "docs/install.md's commands run with the installed mgsim" "$(tail -n 2 outside/install.err)"
fi
# A file of yours wins over the shipped one of the same name; MGSIM_DATA_DIR moves the shipped ones.
mkdir -p mine/configs && sed 's/"gpus": \[[^]]*\]/"gpus": [4]/' "$ROOT/configs/googlenet-k80-ring.json" >mine/configs/googlenet-k80-ring.json
cp -r "$ROOT/traces" mine/
mine_rows=$(cd mine && "$INSTALLED" run -c configs/googlenet-k80-ring.json --format csv | wc -l)
shipped_rows=$(cd outside && "$INSTALLED" run -c configs/googlenet-k80-ring.json --format csv | wc -l)
moved_rc=0
(cd outside && MGSIM_DATA_DIR=$WORK/mine "$INSTALLED" run -c configs/googlenet-k80-measured.json >/dev/null 2>moved.err) || moved_rc=$?
if [[ $mine_rows == 7 && $shipped_rows == 61 && $moved_rc == 2 ]] &&
   grep -qx "mgsim: error: configs/googlenet-k80-measured.json: cannot read: No such file or directory" outside/moved.err; then
  pass "a file in the working folder wins over the shipped one; MGSIM_DATA_DIR replaces the data folder"
else
  fail "shipped data lookup" "rows $mine_rows (expected 7), $shipped_rows (expected 61), exit $moved_rc: $(cat outside/moved.err)"
fi
if [[ -f $BUILD/mgsim.1 ]] && grep -q 'mgsim run' "$BUILD/mgsim.1" && grep -q 'Examples:' "$BUILD/mgsim.1"; then
  pass "the man page has every subcommand's help, with its examples"
elif [[ -f $BUILD/mgsim.1 ]]; then
  fail "the man page has every subcommand's help, with its examples"
fi

# Where each binary finds the profiler: the installed one the installed files, the
# built one the build tree's. A fake CUDA driver (one GPU) gets `mgsim profile
# layers` past the device probe; a fake Python prints a line, records what it
# was given and fails.
if [[ -f $BUILD/profiler/libmgsim_cupti.so ]]; then
  mkdir -p fakecuda
  cat >fakecuda/driver.cpp <<'CPP'
#include <cstdio>
extern "C" {
int cuInit(unsigned) { return 0; }
int cuDriverGetVersion(int* version) { *version = 13000; return 0; }
int cuDeviceGetCount(int* count) { *count = 1; return 0; }
int cuDeviceGet(int* device, int ordinal) { *device = ordinal; return 0; }
int cuDeviceGetName(char* name, int length, int) { std::snprintf(name, length, "fake GPU"); return 0; }
}
CPP
  "$compiler" -shared -fPIC -o fakecuda/libcuda.so.1 fakecuda/driver.cpp
  printf '#!/bin/sh\necho from-the-helper\nprintf "%%s\\n%%s\\n" "$1" "$CUDA_INJECTION64_PATH" >"%s/helper-args"\nexit 3\n' \
    "$WORK" >fake-python
  chmod +x fake-python
  for binary in "$INSTALLED:$PREFIX/libexec/mgsim" "$MGSIM:$BUILD/profiler"; do
    rm -f helper-args
    LD_LIBRARY_PATH=$WORK/fakecuda "${binary%%:*}" profile layers --model m --batch 1 --python "$WORK/fake-python" \
      -o - >profile.out 2>profile.err || true
    out=$(tr '\n' ' ' <profile.err)
    dir=$(realpath "${binary#*:}")
    # The helper's stdout goes to stderr: with -o -, stdout is mgsim's alone.
    if [[ $out == "from-the-helper mgsim: error: the training helper failed with exit status 3 " && ! -s profile.out &&
          $(cat helper-args 2>/dev/null) == "$dir/mgsim_profile_model.py"$'\n'"$dir/libmgsim_cupti.so" ]]; then
      pass "${binary%%:*} runs the profiler in ${binary#*:}"
    else
      fail "${binary%%:*} runs the profiler in ${binary#*:}" "$out; $(cat helper-args 2>/dev/null | tr '\n' ' ')"
    fi
  done
fi

# Completion, as bash calls it: COMP_WORDS and COMP_CWORD in, COMPREPLY out.
complete_words() {  # complete_words WORD... : the completions of the last word
  (
    source "$PREFIX/share/bash-completion/completions/mgsim"
    COMP_WORDS=("$INSTALLED" "$@")
    COMP_CWORD=$#
    _mgsim
    printf '%s\n' "${COMPREPLY[@]}"
  )
}
if [[ $(complete_words r) == *run* && $(complete_words zoo t) == trace && $(complete_words run --con) == --config &&
      $(complete_words import kineto --ba) == --batch ]]; then
  pass "bash completion: subcommands and options at each level"
else
  fail "bash completion: subcommands and options at each level" \
    "r -> $(complete_words r | tr '\n' ' '); zoo t -> $(complete_words zoo t); run --con -> $(complete_words run --con)"
fi
if [[ $(complete_words run --format "" | tr '\n' ' ') == "table csv json " && $(complete_words fit -f "") == $'text\njson' &&
      $(complete_words plan --precision b) == bf16 && $(complete_words run --columns a) == all &&
      $(complete_words plan --model resnet5) == resnet50 && $(complete_words zoo trace --gpu h1) == h100 &&
      $(complete_words run --baseline mgw) == mgwfbp &&
      $(complete_words import nccl-tests --collective all_g) == all_gather ]]; then
  pass "bash completion: option values (formats, precisions, zoo models, GPUs, schedules)"
else
  fail "bash completion: option values" "run --format -> $(complete_words run --format "" | tr '\n' ' '); plan --model resnet5 -> \
$(complete_words plan --model resnet5 | tr '\n' ' '); run --baseline mgw -> $(complete_words run --baseline mgw)"
fi
mkdir -p dir && touch dir/cfg.json
if [[ $(complete_words run -c dir/c) == dir/cfg.json ]]; then
  pass "bash completion: an option's value completes as a file name"
else
  fail "bash completion: an option's value completes as a file name" "$(complete_words run -c dir/c)"
fi

finish
