"""bfloat16 on the CPU, after PyTorch's "Automatic Mixed Precision" recipe and its notes on
bfloat16: what the dtype keeps and loses, a model trained in it, the same model under
autocast, and a bfloat16 checkpoint. Written for ``import torch``; runs unchanged under
``chainrule run`` (with the optional ml_dtypes package: ``pip install chainrule[bfloat16]``).
"""

import io

import torch
import torch.nn as nn

torch.manual_seed(0)

# ----- the dtype: float32's range, 8 significand bits ------------------------------------
info = torch.finfo(torch.bfloat16)
print("bfloat16: eps", info.eps, "max", info.max, "tiny", info.tiny)
one = torch.ones(1, dtype=torch.bfloat16)
print("1 + eps/2 rounds to", (one + info.eps / 2).item(), "; 1 + eps is", (one + info.eps).item())
print("1e30 in bfloat16:", torch.tensor([1e30]).bfloat16(), "(float16 overflows:", end=" ")
print(torch.tensor([1e30]).half(), ")")

# a sum of 4096 small values: each op computes in float32 and rounds once, so the total
# is close; a running sum kept in bfloat16 stalls once the increments fall below its ulp
small = torch.full((4096,), 0.01, dtype=torch.bfloat16)
running = torch.zeros((), dtype=torch.bfloat16)
for v in small[:1024]:
    running = running + v
print("sum of 4096 x 0.01:", small.sum(), "; a running bfloat16 sum of 1024:", running)

# ----- a model trained in bfloat16 --------------------------------------------------------
x = torch.randn(256, 20)
w_true = torch.randn(20, 1)
y = (x @ w_true + 0.1 * torch.randn(256, 1) > 0).float()


def make_model():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 1))


def train(model, inputs, targets, steps=60, autocast=False):
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    loss_fn = nn.BCEWithLogitsLoss()
    for step in range(steps):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            logits = model(inputs)
            loss = loss_fn(logits, targets)
        loss.backward()
        opt.step()
        if step in (0, steps - 1):
            print(f"  step {step:2d}: loss {loss.item():.4f}, logits {logits.dtype}")
    return model


print("float32:")
m32 = train(make_model(), x, y)
print("bfloat16 weights (model.bfloat16()):")
m16 = train(make_model().bfloat16(), x.bfloat16(), y.bfloat16())
print("  a weight's dtype:", m16[0].weight.dtype, "its gradient's:", m16[0].weight.grad.dtype)
print("autocast (float32 weights, bfloat16 products):")
mac = train(make_model(), x, y, autocast=True)
print("  a weight's dtype:", mac[0].weight.dtype)
with torch.autocast("cpu"):  # (the CPU's default autocast dtype is bfloat16)
    print("  under autocast: linear", mac(x).dtype, "; softmax", mac(x).softmax(0).dtype)


def accuracy(model, dtype):
    with torch.no_grad():
        return ((model(x.to(dtype)) > 0).float() == y.to(dtype)).float().mean().item()


print("accuracy: float32", accuracy(m32, torch.float32) > 0.9, end="; ")
print("bfloat16", accuracy(m16, torch.bfloat16) > 0.9, end="; ")
print("autocast", accuracy(mac, torch.float32) > 0.9)

# ----- a bfloat16 checkpoint: half the bytes of float32 -------------------------------------
buffer = io.BytesIO()
torch.save(m16.state_dict(), buffer)
size16 = buffer.tell()
buffer32 = io.BytesIO()
torch.save(m32.state_dict(), buffer32)
print("checkpoint bytes, bfloat16 < float32:", size16 < buffer32.tell())
buffer.seek(0)
state = torch.load(buffer, weights_only=True)
print({k: (v.dtype, tuple(v.shape)) for k, v in state.items()})
restored = make_model().bfloat16()
restored.load_state_dict(state)
print("restored equals saved:", torch.equal(restored[0].weight, m16[0].weight))
