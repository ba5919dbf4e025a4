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

# find_package(mgsim) from a separate project, with the build's compiler.
compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
launcher=$(sed -n 's/^CMAKE_CXX_COMPILER_LAUNCHER:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
if cmake -S "$ROOT/tests/package" -B consumer -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_CXX_COMPILER="$compiler" ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher"} >consumer.log 2>&1 &&
   cmake --build consumer >>consumer.log 2>&1; then
  pass "find_package(mgsim): a separate project compiles and links against the installed package"
  config=$ROOT/configs/googlenet-k80-ring.json
  if consumer/predict "$config" >library.csv 2>predict.err && "$INSTALLED" run -c "$config" --format csv >binary.csv &&
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
  share/doc/mgsim/config.md share/bash-completion/completions/mgsim; do
  [[ -f $PREFIX/$file ]] || missing+=("$file")
done
[[ ! -f $BUILD/mgsim.1 || -f $PREFIX/share/man/man1/mgsim.1 ]] || missing+=(share/man/man1/mgsim.1)
if [[ -f $BUILD/profiler/libmgsim_cupti.so ]]; then
  for file in libexec/mgsim/libmgsim_cupti.so libexec/mgsim/mgsim_profile_model.py; do
    [[ -f $PREFIX/$file ]] || missing+=("$file")
  done
fi
if [[ ${#missing[@]} == 0 ]]; then pass "headers, docs, man page, completion and profiler installed"; else fail "installed files" "missing: ${missing[*]}"; fi
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
mkdir -p dir && touch dir/cfg.json
if [[ $(complete_words run -c dir/c) == dir/cfg.json ]]; then
  pass "bash completion: an option's value completes as a file name"
else
  fail "bash completion: an option's value completes as a file name" "$(complete_words run -c dir/c)"
fi

finish
