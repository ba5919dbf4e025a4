"""The model the helper trains under tests/fake_torch: two layers, three parameters."""

import torch


def build(batch_size, device):
    model = torch.Module([("fc1", {"weight": torch.Parameter(1000), "bias": torch.Parameter(10)}),
                          ("fc2", {"weight": torch.Parameter(500)})])
    return model, lambda m: m()
