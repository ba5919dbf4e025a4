#!/usr/bin/env bash
# Builds ASTRA-sim's analytical backend (congestion-unaware) from the public
# commits docs/chakra.md lists, assembled as its submodules pin them, with
# Debian's protobuf and boost (scripts/install-deps.sh does not install
# ASTRA-sim: it is only needed for this comparison).
#   usage: build_astra_sim.sh DIR          (DIR: where to put the sources; the binary is printed)
#   GIT_BASE (default https://github.com): where OWNER/NAME.git are cloned from.
set -euo pipefail

dir=${1:?usage: build_astra_sim.sh DIR}
base=${GIT_BASE:-https://github.com}

# path in the tree (- the root) | repository | commit
pins=(
  "- astra-sim/astra-sim c459ab61193bdb5b663ab61d2e923314dae8a77f"
  "extern/graph_frontend/chakra astra-sim/chakra 214f2c559c10f897bcc395f8e1502d80d14f1541"
  "extern/network_backend/analytical astra-sim/astra-network-analytical 599a0473a9a74f5383f73b3cea5a12b9bc5ebaef"
  "extern/network_backend/analytical/extern/yaml-cpp jbeder/yaml-cpp 3d2888cc8a45da2f420454ad728cdfad01a3d54f"
  "extern/remote_memory_backend/analytical astra-sim/astra-memory-analytical 641cce854d256bfd288b1de9607b6757313363f9"
  "extern/helper/fmt fmtlib/fmt 7e73566ce7bd3617cd4b14a2e3a19a2a30b524c7"
  "extern/helper/spdlog gabime/spdlog 62302019babd8fdf63c1c6dc4c9faa48d441a7f0"
)

for pin in "${pins[@]}"; do
  read -r path repo commit <<<"$pin"
  target=$dir
  [[ $path == - ]] || target="$dir/$path"
  if [[ ! -d "$target/.git" && ! -f "$target/.git" ]] || [[ $(git -C "$target" rev-parse HEAD 2>/dev/null) != "$commit" ]]; then
    rm -rf "$target"
    git clone --quiet "$base/$repo.git" "$target"
    git -C "$target" -c advice.detachedHead=false checkout --quiet "$commit"
  fi
done

bash "$dir/build/astra_analytical/build.sh" -t congestion_unaware >"$dir/build.log" 2>&1 || {
  tail -n 20 "$dir/build.log" >&2
  exit 1
}
echo "$dir/build/astra_analytical/build/bin/AstraSim_Analytical_Congestion_Unaware"
