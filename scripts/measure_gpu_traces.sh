#!/usr/bin/env bash
# Measures the shipped GPU traces (traces/measured/, docs/profiling.md) on
# this node's first GPU: `mgsim profile layers` for each model below, and a
# PyTorch profiler (Kineto) trace of two of them with the optimizer, to
# check the profiler's attribution and to measure the optimizer step.
#   bash scripts/measure_gpu_traces.sh OUTDIR [MGSIM]
# MGSIM defaults to build/src/mgsim (built with the CUDA toolkit). Each step
# runs on its own and logs to OUTDIR/log.txt; a failed step does not stop
# the others.
set -u
out=${1:?usage: measure_gpu_traces.sh OUTDIR [MGSIM]}
mgsim=${2:-build/src/mgsim}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
mgsim=$(cd "$(dirname "$mgsim")" && pwd)/$(basename "$mgsim")
log=$out/log.txt
step() { echo "== $*" | tee -a "$log"; timeout 240 "$@" >>"$log" 2>&1; echo "== exit $?" | tee -a "$log"; }

step nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv
step python3 -c 'import torch, torchvision, transformers; print(torch.__version__, torch.version.cuda, torchvision.__version__, transformers.__version__, torch.cuda.get_device_name(0))'
# transformers models from their default configs (BertConfig() is bert-base-uncased's, GPT2Config() gpt2's),
# saved under those names in the working folder, where transformers finds them without a download
configs=$(mktemp -d)
cd "$configs" || exit 1
export HF_HUB_OFFLINE=1
python3 -c "import transformers as t; t.BertConfig().save_pretrained('bert-base-uncased'); t.GPT2Config().save_pretrained('gpt2')" >>"$log" 2>&1

profile() {  # name, then mgsim profile layers arguments
  local name=$1; shift
  step "$mgsim" profile layers "$@" -o "$out/$name.json"
}
# the optimizers these models train with: SGD with momentum for the CNNs, Adam for the transformers
profile resnet50-bs64-bf16 --model resnet50 --batch 64 --precision bf16 --optimizer momentum
profile resnet50-bs128-fp32 --model resnet50 --batch 128 --precision fp32 --optimizer momentum
profile vgg16-bs64-bf16 --model vgg16 --batch 64 --precision bf16 --optimizer momentum
profile bert-base-bs32-seq128-bf16 --model bert-base-uncased --batch 32 --seq-len 128 --precision bf16 --optimizer adam
profile gpt2-bs16-seq512-bf16 --model gpt2 --batch 16 --seq-len 512 --precision bf16 --optimizer adam
step python3 "$here/kineto_capture.py" --model resnet50 --batch 64 --precision bf16 --optimizer momentum \
  -o "$out/kineto-resnet50-bs64-bf16-momentum.json.gz"
step python3 "$here/kineto_capture.py" --model bert-base-uncased --batch 32 --seq-len 128 \
  --precision bf16 --optimizer adam -o "$out/kineto-bert-base-bs32-seq128-bf16-adam.json.gz"
step "$mgsim" profile allreduce -o "$out/allreduce.json"
cd / && rm -rf "$configs"
