"""The einops cases of test_einops.py, run once per side.

``python einops_cases.py OUT oracle`` runs every case on the real PyTorch, saving the
layers' weights to ``OUT/einops_weights.pt`` and the results to ``OUT/einops_oracle.npz``;
``chainrule run einops_cases.py OUT chainrule`` loads those weights and writes
``OUT/einops_chainrule.npz``. Inputs are made with NumPy from seeds. A case that raises
records its error in ``OUT/einops_<side>_errors.json`` instead of results.
"""

from __future__ import annotations

import sys

import einops
import torch
from case_inputs import Weights, arr
from case_runner import Cases
from einops import einsum, pack, parse_shape, rearrange, reduce, repeat, unpack
from einops.layers.torch import EinMix, Rearrange, Reduce

OUT, SIDE = sys.argv[1], sys.argv[2]
ORACLE = SIDE == "oracle"
WEIGHTS = Weights(f"{OUT}/einops_weights.pt", ORACLE)
CASES = Cases()
case, put, module = CASES.case, CASES.put, WEIGHTS.module


def grads_of(name: str, out: torch.Tensor, inputs: dict[str, torch.Tensor]) -> None:
    put(name + ".out", out)
    w = arr(tuple(out.shape), 99, out.dtype)
    (out * w).sum().backward()
    for key, t in inputs.items():
        put(f"{name}.grad.{key}", t.grad)


@case
def rearrange_patterns() -> None:
    x = arr((2, 3, 4, 6), 1)
    patterns = {
        "transpose": ("b c h w -> b h w c", {}),
        "flatten": ("b c h w -> b (c h w)", {}),
        "split": ("b c h (w two) -> b (c two) h w", {"two": 2}),
        "space_to_depth": ("b c (h h2) (w w2) -> b (c h2 w2) h w", {"h2": 2, "w2": 2}),
        "ellipsis": ("b ... w -> w ... b", {}),
        "unit_axes": ("b c h w -> b c 1 h w 1", {}),
        "unit_anonymous": ("b c h (w 1) -> b c (h w) 1", {}),
    }
    for name, (pattern, lengths) in patterns.items():
        xi = x.clone().requires_grad_()
        grads_of(f"rearrange.{name}", rearrange(xi, pattern, **lengths), {"x": xi})
    put("rearrange.list", rearrange([x[0], x[1]], "n c h w -> c (n h) w"))
    xi = x.clone().requires_grad_()
    grads_of(
        "rearrange.method_chain", rearrange(xi * 2, "b c h w -> (b h) (w c)").tanh(), {"x": xi}
    )


@case
def reduce_patterns() -> None:
    x = arr((2, 3, 4, 6), 2)
    for op in ["mean", "sum", "max", "min", "prod", "any", "all"]:
        src = x > 0 if op in ("any", "all") else x.clone().requires_grad_()
        out = reduce(src, "b c h w -> b c", op)
        if op in ("any", "all"):
            put(f"reduce.{op}", out)
        else:
            grads_of(f"reduce.{op}", out, {"x": src})
    xi = x.clone().requires_grad_()
    pooled = reduce(xi, "b c (h h2) (w w2) -> b c h w", "max", h2=2, w2=3)
    grads_of("reduce.maxpool", pooled, {"x": xi})
    xi = x.clone().requires_grad_()
    grads_of("reduce.keep_axis", reduce(xi, "b c h w -> b c 1 1", "mean"), {"x": xi})
    xi = x.clone().requires_grad_()
    grads_of("reduce.callable", reduce(xi, "b c h w -> c", lambda t, d: t.logsumexp(d)), {"x": xi})
    put("reduce.int", reduce(torch.arange(24).reshape(4, 6), "(a b) c -> a", "sum", b=2))


@case
def repeat_patterns() -> None:
    x = arr((2, 3), 3)
    for name, (pattern, lengths) in {
        "new_axis": ("h w -> h w c", {"c": 3}),
        "tile": ("h w -> (r h) w", {"r": 2}),
        "interleave": ("h w -> h (w r)", {"r": 2}),
        "upsample": ("h w -> (h h2) (w w2)", {"h2": 2, "w2": 2}),
    }.items():
        xi = x.clone().requires_grad_()
        grads_of(f"repeat.{name}", repeat(xi, pattern, **lengths), {"x": xi})


@case
def einsum_pack_parse() -> None:
    a = arr((2, 3, 4), 4).requires_grad_()
    b = arr((4, 5), 5).requires_grad_()
    grads_of("einsum.batch_matmul", einsum(a, b, "batch i j, j k -> batch i k"), {"a": a, "b": b})
    a2 = a.detach().clone().requires_grad_()
    grads_of("einsum.trace_like", einsum(a2, "b i j -> b"), {"a": a2})
    x = arr((2, 3, 4), 6).requires_grad_()
    y = arr((2, 5), 7).requires_grad_()
    z = arr((2, 4, 2, 3), 8).requires_grad_()
    packed, shapes = pack([x, y, z], "b *")
    put("pack.packed_shape", list(packed.shape))
    put("pack.shapes", repr([tuple(s) for s in shapes]))
    parts = unpack(packed * 3, shapes, "b *")
    total = sum((p * arr(tuple(p.shape), 10 + i)).sum() for i, p in enumerate(parts))
    total.backward()
    put("pack.grad.x", x.grad)
    put("pack.grad.y", y.grad)
    put("pack.grad.z", z.grad)
    put("unpack.0", parts[0])
    put("unpack.2", parts[2])
    packed2, ps = pack([arr((3, 4), 11), arr((4,), 12)], "* c")
    put("pack.star_first", packed2)
    put("parse_shape", sorted(parse_shape(arr((2, 3, 5), 13), "b _ w").items()))
    put("asnumpy", einops.asnumpy(arr((2, 2), 14)))


@case
def layers_in_sequential() -> None:
    def make() -> torch.nn.Module:
        return torch.nn.Sequential(
            Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=2, p2=2),
            torch.nn.Linear(12, 8),
            EinMix("b t c -> b t c_out", weight_shape="c c_out", bias_shape="c_out", c=8, c_out=6),
            torch.nn.GELU(),
            EinMix("b t c -> b u c", weight_shape="t u", t=6, u=3),
            Reduce("b u c -> b c", "max"),
            torch.nn.Linear(6, 2),
        )

    model = module("seq", make)
    x = arr((2, 3, 4, 6), 20).requires_grad_()
    grads_of("layers.seq", model(x), {"x": x, **dict(model.named_parameters())})
    put("layers.repr", [repr(model[0]), repr(model[5])])


@case
def layers_training() -> None:
    def make() -> torch.nn.Module:
        return torch.nn.Sequential(
            Reduce("b c (h 2) (w 2) -> b c h w", "mean"),
            Rearrange("b c h w -> b (c h w)"),
            torch.nn.Linear(3 * 2 * 3, 4),
            torch.nn.ReLU(),
            EinMix("b c -> b k", weight_shape="c k", bias_shape="k", c=4, k=3),
        )

    model = module("train", make)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    x = arr((5, 3, 4, 6), 21)
    y = torch.tensor([0, 1, 2, 1, 0])
    losses = []
    for _ in range(8):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    put("train.losses", losses)
    for name, p in model.named_parameters():
        put(f"train.param.{name}", p)


@case
def compile_and_export() -> None:
    x = arr((2, 2, 3, 4), 40)

    def fn(t: torch.Tensor) -> torch.Tensor:
        return reduce(rearrange(t, "b c h w -> b h w c"), "b h w c -> b c", "max")

    put("compile.out", torch.compile(fn)(x))
    model = module(
        "export",
        lambda: torch.nn.Sequential(
            Rearrange("b c h w -> b (c h w)"), torch.nn.Linear(24, 3), Reduce("b k -> k", "sum")
        ),
    )
    ep = torch.export.export(model, (x,))
    put("export.out", ep.module()(x))


@case
def dtypes() -> None:
    x64 = arr((2, 3, 4), 50, torch.float64).requires_grad_()
    grads_of("f64.rearrange", rearrange(x64, "a b c -> c (a b)") ** 2, {"x": x64})
    ints = torch.arange(24).reshape(2, 3, 4)
    put("int.reduce.max", reduce(ints, "a b c -> a c", "max"))
    put("int.reduce.sum", reduce(ints, "a b c -> b", "sum"))
    put("int.repeat", repeat(ints[0], "b c -> b c r", r=2))
    put("bool.rearrange", rearrange(ints > 7, "a b c -> (a c) b"))
    try:
        reduce(ints, "a b c -> a", "mean")
        put("int.reduce.mean", "no error")
    except Exception as e:  # (PyTorch refuses the mean of integers)
        put("int.reduce.mean", type(e).__name__)
    mix = module(
        "einmix64",
        lambda: EinMix("b t c -> b t k", weight_shape="c k", bias_shape="k", c=4, k=2).double(),
    )
    grads_of("f64.einmix", mix(x64.detach()), dict(mix.named_parameters()))


@case
def errors() -> None:
    x = arr((2, 3), 30)
    messages = []
    for fn in (
        lambda: rearrange(x, "a b -> a b c"),
        lambda: rearrange(x, "a (b c) -> a b c", c=2),
        lambda: reduce(x, "a b -> a", "median"),
        lambda: rearrange(x, "a (b 3) -> a b 3"),
    ):
        try:
            fn()
            messages.append("no error")
        except einops.EinopsError as e:
            messages.append(type(e).__name__ + ": " + str(e))
    put("errors", messages)


CASES.run(f"{OUT}/einops_{SIDE}")
WEIGHTS.save()
