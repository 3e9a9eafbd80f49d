"""A dynamic-quantization tutorial's steps, run under ``chainrule run`` and under PyTorch
(tests/ao/test_quantization_run.py): the outputs go to the .npz named by argv[1]."""

import sys
import warnings

import numpy as np
import torch
import torch.ao.nn.quantized.dynamic as nnqd
import torch.quantization

warnings.simplefilter("ignore")
rng = np.random.default_rng(0)
W1 = rng.standard_normal((16, 8)).astype(np.float32) * 0.3
W2 = rng.standard_normal((4, 16)).astype(np.float32) * 0.3
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 4))
with torch.no_grad():
    model[0].weight.copy_(torch.from_numpy(W1))
    model[0].bias.fill_(0.125)
    model[2].weight.copy_(torch.from_numpy(W2))
    model[2].bias.fill_(-0.25)
qmodel = torch.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
assert isinstance(qmodel[0], nnqd.Linear)
x = torch.from_numpy(rng.standard_normal((5, 8)).astype(np.float32))
w = qmodel[0].weight()

# post-training static quantization of a small conv net (fusion, x86 qconfig, calibration)
conv = torch.nn.Sequential(
    torch.ao.quantization.QuantStub(),
    torch.nn.Conv2d(3, 4, 3, padding=1),
    torch.nn.ReLU(),
    torch.nn.MaxPool2d(2),
    torch.nn.Flatten(),
    torch.nn.Linear(16, 3),
    torch.ao.quantization.DeQuantStub(),
)
with torch.no_grad():
    conv[1].weight.copy_(torch.from_numpy(rng.standard_normal((4, 3, 3, 3)).astype(np.float32)))
    conv[5].weight.copy_(torch.from_numpy(rng.standard_normal((3, 16)).astype(np.float32)))
    conv[1].bias.zero_()
    conv[5].bias.zero_()
conv = torch.ao.quantization.fuse_modules(conv.eval(), [["1", "2"]])
conv.qconfig = torch.ao.quantization.get_default_qconfig("x86")
prepared = torch.ao.quantization.prepare(conv)
images = torch.from_numpy(rng.standard_normal((6, 3, 4, 4)).astype(np.float32))
prepared(images)
converted = torch.ao.quantization.convert(prepared)
np.savez(
    sys.argv[1],
    out=qmodel(x).detach().numpy(),
    float_out=model(x).detach().numpy(),
    ints=w.int_repr().numpy(),
    scale=np.array(w.q_scale()),
    text=np.array(repr(qmodel)),
    static_out=converted(images).numpy(),
    static_scale=np.array(converted[5].scale),
    static_kinds=np.array(" ".join(type(m).__name__ for m in converted)),
)
