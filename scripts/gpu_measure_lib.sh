# Sourced by scripts/measure_gpu_traces.sh and scripts/measure_batch_curve.sh:
#   source gpu_measure_lib.sh OUTDIR [MGSIM]
# sets out (absolute), mgsim (absolute; default build/src/mgsim, built with
# the CUDA toolkit) and log (OUTDIR/log.txt), defines step (runs a command on
# its own, at most 240 s, logging it and its exit status: a failed step does
# not stop the others), logs the GPU and the framework versions, and moves
# into a scratch folder where the transformers models' default configs
# (BertConfig() is bert-base-uncased's, GPT2Config() gpt2's) are saved under
# those names, so that transformers finds them without a download; the
# caller removes it (configs) at the end.
set -u
out=${1:?usage: $(basename "$0") OUTDIR [MGSIM]}
mgsim=${2:-build/src/mgsim}
mkdir -p "$out"
out=$(cd "$out" && pwd)
mgsim=$(cd "$(dirname "$mgsim")" && pwd)/$(basename "$mgsim")
log=$out/log.txt
step() { echo "== $*" | tee -a "$log"; timeout 240 "$@" >>"$log" 2>&1; echo "== exit $?" | tee -a "$log"; }

step nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv
step python3 -c 'import torch, torchvision, transformers; print(torch.__version__, torch.version.cuda, torchvision.__version__, transformers.__version__, torch.cuda.get_device_name(0))'
configs=$(mktemp -d)
cd "$configs" || exit 1
export HF_HUB_OFFLINE=1
python3 -c "import transformers as t; t.BertConfig().save_pretrained('bert-base-uncased'); t.GPT2Config().save_pretrained('gpt2')" >>"$log" 2>&1
