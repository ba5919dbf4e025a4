#!/usr/bin/env bash
# Installs what mgsim needs on Debian 12, from Debian's packages.
#   install-deps.sh          everything: build, tests, benchmarks, fuzzers, plots, man page
#   install-deps.sh --build  only what building the mgsim binary needs (scripts/run-default.sh)
set -euo pipefail
build=(cmake g++ make libboost-graph-dev nlohmann-json3-dev libcli11-dev libfmt-dev catch2
       libnlopt-cxx-dev zlib1g-dev protobuf-compiler libprotobuf-dev)
rest=(libbenchmark-dev python3 python3-matplotlib clang libclang-rt-14-dev help2man sqlite3)
case ${1:-} in
  --build) packages=("${build[@]}"); options=(--no-install-recommends) ;;
  "") packages=("${build[@]}" "${rest[@]}"); options=() ;;
  *) echo "usage: $0 [--build]" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${options[@]}" "${missing[@]}"
fi
