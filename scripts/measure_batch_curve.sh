#!/usr/bin/env bash
# Measures how one GPU's forward + backward time grows with the batch
# (docs/fidelity.md#one-gpu-time-against-the-batch): `mgsim profile layers`
# of ResNet-50 and BERT-base, bf16, at six batch sizes each, on this node's
# first GPU.
#   bash scripts/measure_batch_curve.sh OUTDIR [MGSIM]
# MGSIM defaults to build/src/mgsim (built with the CUDA toolkit). Each step
# runs on its own and logs to OUTDIR/log.txt; a failed step does not stop
# the others.
set -u
out=${1:?usage: measure_batch_curve.sh OUTDIR [MGSIM]}
mgsim=${2:-build/src/mgsim}
mkdir -p "$out"
out=$(cd "$out" && pwd)
mgsim=$(cd "$(dirname "$mgsim")" && pwd)/$(basename "$mgsim")
log=$out/log.txt
step() { echo "== $*" | tee -a "$log"; timeout 240 "$@" >>"$log" 2>&1; echo "== exit $?" | tee -a "$log"; }

step nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv
step python3 -c 'import torch, torchvision, transformers; print(torch.__version__, torch.version.cuda, torchvision.__version__, transformers.__version__, torch.cuda.get_device_name(0))'
# BERT-base from its default config, saved where transformers finds it without a download
configs=$(mktemp -d)
cd "$configs" || exit 1
export HF_HUB_OFFLINE=1
python3 -c "import transformers as t; t.BertConfig().save_pretrained('bert-base-uncased')" >>"$log" 2>&1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | awk '{print tolower($2)}')
for b in 8 16 32 64 128 256; do
  step "$mgsim" profile layers --model resnet50 --batch "$b" --precision bf16 --optimizer momentum \
    -o "$out/$gpu-resnet50-bs$b-bf16.json"
done
for b in 4 8 16 32 64 128; do
  step "$mgsim" profile layers --model bert-base-uncased --batch "$b" --seq-len 128 --precision bf16 \
    --optimizer adam -o "$out/$gpu-bert-base-bs$b-seq128-bf16.json"
done
cd / && rm -rf "$configs"
