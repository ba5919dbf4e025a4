#!/usr/bin/env bash
# Installs what mgsim needs to build and test on Debian 12, from Debian's packages.
set -euo pipefail
packages=(cmake g++ make libboost-graph-dev nlohmann-json3-dev libcli11-dev libfmt-dev catch2
          libbenchmark-dev libnlopt-cxx-dev zlib1g-dev python3 python3-matplotlib clang libclang-rt-14-dev
          help2man protobuf-compiler libprotobuf-dev)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
