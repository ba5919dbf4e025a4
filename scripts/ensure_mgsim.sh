# Sourced by the study scripts: sets MGSIM to the mgsim binary (MGSIM=path
# overrides build/src/mgsim), installing what building needs and building it
# into build/ when it is missing. Run from the repository root.
MGSIM=${MGSIM:-build/src/mgsim}
if [[ ! -x $MGSIM ]]; then
  bash scripts/install-deps.sh
  bash scripts/build.sh
fi
