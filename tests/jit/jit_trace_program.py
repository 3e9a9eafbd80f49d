"""A PyTorch program that traces and saves a model, run unchanged under ``chainrule run``
by tests/jit/test_jit_trace.py: argv[1] the archive to write, argv[2] the tensors."""

import sys

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
    nn.Dropout(0.2), nn.Linear(4 * 3 * 3, 10),
).eval()  # fmt: skip
with torch.no_grad():
    traced = torch.jit.trace(model, torch.randn(1, 1, 8, 8))
torch.jit.save(traced, sys.argv[1])
x = torch.arange(3 * 64, dtype=torch.float32).reshape(3, 1, 8, 8) / 100
torch.save({"x": x, "y": traced(x), "state": model.state_dict()}, sys.argv[2])
