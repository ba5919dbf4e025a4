#!/usr/bin/env bash
# Measures the shipped GPU traces (traces/measured/, docs/profiling.md) on
# this node's first GPU: `mgsim profile layers` for each model below, and a
# PyTorch profiler (Kineto) trace of two of them with the optimizer, to
# check the profiler's attribution and to measure the optimizer step.
#   bash scripts/measure_gpu_traces.sh OUTDIR [MGSIM]
# MGSIM defaults to build/src/mgsim (built with the CUDA toolkit). Each step
# runs on its own and logs to OUTDIR/log.txt; a failed step does not stop
# the others.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/gpu_measure_lib.sh" "$@"

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
