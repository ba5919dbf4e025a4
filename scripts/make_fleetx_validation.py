#!/usr/bin/env python3
"""Write the PaddlePaddle FleetX cases of the validation set (validation/fleetx-*.json).

Source: Baidu's FleetX ResNet-50 benchmark ("Resnet50性能基准"),
docs/source/paddle_fleet_rst/fleet_benchmark_resnet50_cn.rst of
PaddlePaddle/PaddleFleetX at the commit below, section "基准测试结果" (benchmark
results): the FP32 and AMP tables (images/s by batch per GPU and machines x GPUs:
1 x 8, 2 x 8, 4 x 8; the 1 x 1 column is empty). Machines: Baidu X-Man 2.0, 8x
V100 each, InfiniBand 100 Gb/s; CUDA 10.1, NCCL 2.4.7, DALI 0.24; the median of
7 runs of 100 steps after 20. The third table (auto-parallel mode) is left out.
Every number is quoted exactly.

How a run is modelled. With no 1-GPU figure, compute is fitted too: the traces
are the zoo's ResNet-50 v1.5 roofline on a V100 (fp32, or fp16 with fp32
gradients for AMP: fp32 master weights), and one speed for all GPUs
(speed_classes.0.speed) scales them. Collective `nccl`, schedule `ddp`
(Paddle fuses gradients into buckets). The links run at their rated bandwidths
(NVLink 2.0: 150 GB/s a V100; InfiniBand 100 Gb/s, one adapter: 12.5 GB/s). Per
precision, two values are fitted: the speed and the seconds of coordination an
iteration on more than one GPU adds (sync_overhead_s), on three rows (batch 32 and
128 on one machine, batch 32 on two); every other row is predicted.

Usage (repository root, after building): python3 scripts/make_fleetx_validation.py [--mgsim build/src/mgsim]
"""

import validation_lib as lib

URL = ("https://github.com/PaddlePaddle/PaddleFleetX/blob/2524271ea94f37e9b0aa1859c5b1384d5b3770af/"
       "docs/source/paddle_fleet_rst/fleet_benchmark_resnet50_cn.rst")
GPUS = (8, 16, 32)

# Per precision: table, roofline precision, gradient bytes (None: the precision's), {batch: images/s at GPUS}.
CASES = {
    "fleetx-v100-fp32": dict(table="'基准测试结果' (benchmark results), FP32 table", precision="fp32",
                             grad_bytes=None, rows={32: (2488.49, 4629.71, 9093.41), 64: (2643.75, 5325.44, 10536.83),
                                                    128: (2797.31, 5635.98, 11261.72)}),
    "fleetx-v100-amp": dict(table="'基准测试结果' (benchmark results), AMP table", precision="fp16", grad_bytes=4,
                            rows={32: (4467.82, 8628.19, 16970.01), 64: (6148.98, 12071.29, 23682.78),
                                  128: (7324.31, 14342.03, 28397.43), 256: (8166.11, 16189.79, 32366.39)}),
}
CALIBRATING = [(32, 8), (128, 8), (32, 16)]


def make_case(mgsim, name, spec):
    calibrate, predict = [], []
    for batch, figures in spec["rows"].items():
        trace = lib.zoo_trace(mgsim, "%s-resnet50-b%d" % (name, batch), "resnet50", "v100", spec["precision"], batch,
                              grad_bytes=spec["grad_bytes"], optimizer="momentum")
        for gpus, throughput in zip(GPUS, figures):
            fits = (batch, gpus) in CALIBRATING
            (calibrate if fits else predict).append(lib.row(trace, gpus, "ddp", throughput, "fleetx"))
    config = {"trace": calibrate[0]["trace"], "gpus": [8], "gpus_per_node": 8, "collective": "nccl",
              "optimizer": "momentum",
              "speed_classes": [{"fraction": 1, "speed": 1}],
              "network": lib.links(lib.EDR, lib.NVLINK_V100), "sync_overhead_s": 0,
              "schedules": ["ddp"]}
    sources = {"fleetx": {
        "url": URL, "table": spec["table"], "hardware": "Baidu X-Man 2.0 machines, 8x NVIDIA Tesla V100 (NVLink) "
        "each, InfiniBand 100 Gb/s, Xeon Gold 6271C; 1, 2 and 4 machines",
        "software": "PaddlePaddle with paddle.distributed.fleet (collective, nccl_comm_num 1, fused "
                    "elementwise-add and bn-act ops), CUDA 10.1 / cuDNN 7.6.5, NCCL 2.4.7, DALI 0.24.0",
        "measured": "ResNet-50 training throughput, images/s (total), mean of 100 steps after 20, median of 7 runs"}}
    description = ("ResNet-50, PaddlePaddle FleetX, %s, 1 to 4 machines of 8 V100: no 1-GPU figure, so one compute "
                   "speed is fitted with %s on batch 32 and 128 at 8 GPUs and batch 32 at 16, NVLink and "
                   "InfiniBand at their rated bandwidths (%s, %s); everything else predicted "
                   "(scripts/make_fleetx_validation.py)."
                   % (spec["precision"].replace("fp16", "AMP").upper(), lib.SYNC_FIT, lib.gbytes(lib.NVLINK_V100),
                      lib.gbytes(lib.EDR)))
    lib.case(name, description, sources, config, ["speed_classes.0.speed", lib.SYNC_FIT], calibrate, predict)


if __name__ == "__main__":
    lib.run(__doc__, CASES, make_case)
