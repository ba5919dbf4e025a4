#!/usr/bin/env bash
# Measures how one GPU's forward + backward time grows with the batch
# (docs/fidelity.md#one-gpu-time-against-the-batch): `mgsim profile layers`
# of ResNet-50 and BERT-base, bf16, at six batch sizes each, on this node's
# first GPU.
#   bash scripts/measure_batch_curve.sh OUTDIR [MGSIM]
# MGSIM defaults to build/src/mgsim (built with the CUDA toolkit). Each step
# runs on its own and logs to OUTDIR/log.txt; a failed step does not stop
# the others.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/gpu_measure_lib.sh" "$@"
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
