"""The BackPACK cases of test_backpack.py, run once per side.

``python backpack_cases.py OUT oracle`` runs every case on the real PyTorch: it saves the
models' initial weights to ``OUT/backpack_weights.pt`` and the results to
``OUT/backpack_oracle.npz``. ``chainrule run backpack_cases.py OUT chainrule`` loads those
weights, runs the same cases and writes ``OUT/backpack_chainrule.npz``. The models (MLPs
of Linear/ReLU/Sigmoid/Tanh, a small CNN with Conv2d/MaxPool2d/AvgPool2d/Flatten/Dropout,
BatchNorm1d, RNN and LSTM, a residual block for the converter) run in float64 on inputs
from NumPy's seeded generator. The Monte-Carlo extensions (DiagGGNMC, BatchDiagGGNMC,
KFAC) draw from ``torch``'s random stream, PyTorch's for the same seed: those cases put a
seeded run's quantities, and what does not depend on the draws (shapes, KFAC's input
factor, a seeded run repeating itself, the mean of many draws approaching the exact GGN).
A case that raises records its traceback in ``OUT/backpack_<side>_errors.json``.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable

import numpy as np
import torch
from backpack import backpack, extend, extensions
from backpack.custom_module.reduce_tuple import ReduceTuple
from backpack.hessianfree.ggnvp import ggn_vector_product
from backpack.hessianfree.hvp import hessian_vector_product
from backpack.hessianfree.lop import L_op, transposed_jacobian_vector_product
from backpack.hessianfree.rop import R_op, jacobian_vector_product
from backpack.utils.convert_parameters import vector_to_parameter_list
from case_inputs import Weights
from case_runner import Cases
from torch import nn
from torch.nn.utils import parameters_to_vector

OUT, SIDE = sys.argv[1], sys.argv[2]
ORACLE = SIDE == "oracle"
WEIGHTS = Weights(f"{OUT}/backpack_weights.pt", ORACLE)
CASES = Cases()
case = CASES.case
put = CASES.put

F64 = torch.float64
RNG = np.random.RandomState(0)
X_TAB = torch.tensor(RNG.randn(6, 5), dtype=F64)
Y_CLS = torch.tensor(RNG.randint(0, 3, size=6), dtype=torch.int64)
Y_REG = torch.tensor(RNG.randn(6, 3), dtype=F64)
X_IMG = torch.tensor(RNG.randn(4, 2, 8, 8), dtype=F64)
Y_IMG = torch.tensor(RNG.randint(0, 3, size=4), dtype=torch.int64)
X_SEQ = torch.tensor(RNG.randn(3, 4, 5), dtype=F64)  # (batch, time, features)
RNG_V = np.random.RandomState(1)  # the hessianfree products' vectors
Y_SEQ = torch.tensor(RNG.randint(0, 3, size=(3, 4)), dtype=torch.int64)

FIRST_ORDER = ("grad_batch", "batch_l2", "sum_grad_squared", "variance")


def model(key: str, make: Callable[[], nn.Module]) -> nn.Module:
    """A float64 model in eval mode holding the weights the oracle drew for ``key``."""
    return WEIGHTS.module(key, lambda: make().double()).eval()


def mlp(act: type[nn.Module] = nn.ReLU) -> nn.Module:
    """Five features to three outputs through two hidden layers of ``act``."""
    return model(
        f"mlp_{act.__name__}",
        lambda: nn.Sequential(
            nn.Linear(5, 4), act(), nn.Linear(4, 4), nn.Sigmoid(), nn.Linear(4, 3)
        ),
    )


def cnn() -> nn.Module:
    """2x8x8 images to three classes: conv, max-pool, conv, avg-pool, dropout, linear."""
    return model(
        "cnn",
        lambda: nn.Sequential(
            nn.Conv2d(2, 3, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(3, 4, 3, stride=1),
            nn.Tanh(),
            nn.AvgPool2d(2),
            nn.Flatten(),
            nn.Dropout(0.3),
            nn.Linear(4, 3),
        ),
    )


def cnn2() -> nn.Module:
    """The second-order CNN: BackPACK's AvgPool2d curvature rule works in float32 only."""
    return model(
        "cnn2",
        lambda: nn.Sequential(
            nn.Conv2d(2, 3, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(3, 2, 3),
            nn.Sigmoid(),
            nn.Flatten(),
            nn.Linear(8, 3),
        ),
    )


def put_quantities(name: str, net: nn.Module, attrs: tuple[str, ...]) -> None:
    """Each parameter's ``.grad`` and the extension quantities ``attrs`` BackPACK put on it
    (KFAC-style factor lists as one key per factor)."""
    for pname, p in net.named_parameters():
        put(f"{name}.{pname}.grad", p.grad)
        for attr in attrs:
            value = getattr(p, attr)
            if isinstance(value, list):
                for i, factor in enumerate(value):
                    put(f"{name}.{pname}.{attr}.{i}", factor)
            else:
                put(f"{name}.{pname}.{attr}", value)


def run_extensions(
    name: str,
    net: nn.Module,
    loss_fn: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    exts: list,
    attrs: tuple[str, ...],
) -> None:
    """Extend ``net`` and ``loss_fn``, backpropagate the loss with ``exts`` and file the
    loss, the gradients and the quantities."""
    net, loss_fn = extend(net), extend(loss_fn)
    net.zero_grad()
    loss = loss_fn(net(x), y)
    with backpack(*exts):
        loss.backward()
    put(f"{name}.loss", loss)
    put_quantities(name, net, attrs)


def first_order() -> list:
    """The four first-order extensions."""
    return [
        extensions.BatchGrad(),
        extensions.BatchL2Grad(),
        extensions.SumGradSquared(),
        extensions.Variance(),
    ]


@case
def first_order_mlp_cross_entropy() -> None:
    for act in (nn.ReLU, nn.Tanh):
        net = mlp(act)
        loss_fn = nn.CrossEntropyLoss()
        run_extensions(
            f"fo.ce.{act.__name__}", net, loss_fn, X_TAB, Y_CLS, first_order(), FIRST_ORDER
        )


@case
def first_order_mlp_mse_sum() -> None:
    net = mlp(nn.Sigmoid)
    run_extensions(
        "fo.mse", net, nn.MSELoss(reduction="sum"), X_TAB, Y_REG, first_order(), FIRST_ORDER
    )


@case
def first_order_cnn() -> None:
    run_extensions("fo.cnn", cnn(), nn.CrossEntropyLoss(), X_IMG, Y_IMG, first_order(), FIRST_ORDER)


@case
def batch_grad_subsampling() -> None:
    net = extend(mlp())
    loss = extend(nn.CrossEntropyLoss())(net(X_TAB), Y_CLS)
    with backpack(
        extensions.BatchGrad(subsampling=[0, 3, 4]), extensions.SqrtGGNExact(subsampling=[1, 2])
    ):
        loss.backward()
    put_quantities("sub", net, ("grad_batch", "sqrt_ggn_exact"))


@case
def per_sample_gradients_against_a_loop() -> None:
    """BatchGrad of a mean loss is the per-example gradient divided by the batch size."""
    net = mlp(nn.Tanh)
    run_extensions(
        "loop.bp",
        net,
        nn.CrossEntropyLoss(),
        X_TAB,
        Y_CLS,
        [extensions.BatchGrad()],
        ("grad_batch",),
    )
    n = X_TAB.shape[0]
    plain = mlp(nn.Tanh)  # a fresh copy of the same weights, not extended
    rows = []
    for i in range(n):
        plain.zero_grad()
        nn.functional.cross_entropy(plain(X_TAB[i : i + 1]), Y_CLS[i : i + 1]).backward()
        rows.append([p.grad / n for p in plain.parameters()])
    worst = 0.0
    for j, (name, p) in enumerate(net.named_parameters()):
        loop = torch.stack([row[j] for row in rows])
        put(f"loop.{name}", loop)
        worst = max(worst, (loop - p.grad_batch).abs().max().item())
    put("loop.worst_gap_below_1e-12", worst < 1e-12)


@case
def batchnorm_eval() -> None:
    def make() -> nn.Module:
        return nn.Sequential(nn.Linear(5, 4), nn.BatchNorm1d(4), nn.Tanh(), nn.Linear(4, 3))

    net = model("bn", make)
    with torch.no_grad():
        net[1].running_mean.copy_(torch.linspace(-0.5, 0.5, 4, dtype=F64))
        net[1].running_var.copy_(torch.linspace(0.5, 2.0, 4, dtype=F64))
    exts = [*first_order(), extensions.DiagGGNExact()]
    run_extensions(
        "bn", net, nn.CrossEntropyLoss(), X_TAB, Y_CLS, exts, (*FIRST_ORDER, "diag_ggn_exact")
    )


SECOND = (
    (extensions.DiagGGNExact, "diag_ggn_exact"),
    (extensions.BatchDiagGGNExact, "diag_ggn_exact_batch"),
    (extensions.KFLR, "kflr"),
    (extensions.KFRA, "kfra"),
    (extensions.DiagHessian, "diag_h"),
    (extensions.BatchDiagHessian, "diag_h_batch"),
)


@case
def second_order_mlp_cross_entropy() -> None:
    for ext, attr in SECOND:
        run_extensions(
            f"so.ce.{attr}", mlp(nn.Tanh), nn.CrossEntropyLoss(), X_TAB, Y_CLS, [ext()], (attr,)
        )


@case
def second_order_mlp_mse() -> None:
    for ext, attr in SECOND:
        if attr == "kfra":  # BackPACK's KFRA builds MSELoss's Hessian in float32
            continue
        run_extensions(f"so.mse.{attr}", mlp(nn.ReLU), nn.MSELoss(), X_TAB, Y_REG, [ext()], (attr,))


@case
def second_order_cnn() -> None:
    for ext, attr in SECOND:
        if attr == "kfra":  # KFRA has no rule for convolutions
            continue
        net = cnn2()
        run_extensions(f"so.cnn.{attr}", net, nn.CrossEntropyLoss(), X_IMG, Y_IMG, [ext()], (attr,))


@case
def diag_ggn_against_hessianfree() -> None:
    """DiagGGNExact's diagonal is the diagonal of the GGN that ggnvp multiplies with."""
    net = extend(mlp(nn.Tanh))
    loss_fn = extend(nn.MSELoss())
    out = net(X_TAB)
    loss = loss_fn(out, Y_REG)
    with backpack(extensions.DiagGGNExact()):
        loss.backward(retain_graph=True)
    params = list(net.parameters())
    first = params[0]
    diag = torch.zeros(first.numel(), dtype=F64)
    for j in range(first.numel()):
        v = [torch.zeros_like(p) for p in params]
        v[0].view(-1)[j] = 1.0
        diag[j] = ggn_vector_product(loss, out, net, v)[0].reshape(-1)[j]
    put("dggn.hessianfree", diag.view_as(first))
    put("dggn.backpack", first.diag_ggn_exact)


def put_mc_checks(
    name: str, net: nn.Module, loss_fn: nn.Module, x: torch.Tensor, y: torch.Tensor
) -> None:
    """DiagGGNMC, BatchDiagGGNMC and KFAC: a seeded run's values (PyTorch's draws), the
    shapes, that a seeded run repeats itself, that KFAC's input factor is KFLR's, that
    BatchDiagGGNMC sums to DiagGGNMC on the same draws, and that the mean of many draws is
    near the exact GGN diagonal."""
    net, loss_fn = extend(net), extend(loss_fn)

    def draw(seed: int, exts: list) -> dict:
        torch.manual_seed(seed)
        net.zero_grad()
        with backpack(*exts):
            loss_fn(net(x), y).backward()
        got = {}
        for pname, p in net.named_parameters():
            for attr in ("diag_ggn_mc", "diag_ggn_mc_batch", "kfac", "kflr", "diag_ggn_exact"):
                if hasattr(p, attr):
                    value = getattr(p, attr)
                    got[(pname, attr)] = (
                        [v.clone() for v in value] if isinstance(value, list) else value.clone()
                    )
        return got

    mc = [extensions.DiagGGNMC(), extensions.BatchDiagGGNMC(), extensions.KFAC()]
    one, again = draw(3, mc), draw(3, mc)
    exact = draw(0, [extensions.DiagGGNExact(), extensions.KFLR()])
    batch = draw(7, [extensions.BatchDiagGGNMC()])  # the same draws as DiagGGNMC's alone
    alone = draw(7, [extensions.DiagGGNMC()])
    many = draw(5, [extensions.DiagGGNMC(mc_samples=4000)])
    repeats, input_factor = True, True
    for (pname, attr), value in one.items():
        other = again[(pname, attr)]
        values = value if isinstance(value, list) else [value]
        others = other if isinstance(other, list) else [other]
        put(f"{name}.{pname}.{attr}.shapes", [list(v.shape) for v in values])
        for i, v in enumerate(values):
            put(f"{name}.{pname}.{attr}.{i}", v)
        repeats &= all(torch.equal(a, b) for a, b in zip(values, others))
    for pname, _ in net.named_parameters():
        kfac, kflr = one[(pname, "kfac")], exact[(pname, "kflr")]
        if len(kflr) == 2:  # a weight's [output factor, input factor]: the input one is exact
            input_factor &= torch.allclose(kfac[1], kflr[1], rtol=1e-12, atol=1e-14)
        batch_sum = batch[(pname, "diag_ggn_mc_batch")].sum(0)
        summed = torch.allclose(batch_sum, alone[(pname, "diag_ggn_mc")], rtol=1e-12, atol=1e-15)
        put(f"{name}.{pname}.batch_sums_to_diag", summed)
        want, got = exact[(pname, "diag_ggn_exact")], many[(pname, "diag_ggn_mc")]
        near = (got - want).abs().max() <= 0.1 * want.abs().max() + 1e-8
        put(f"{name}.{pname}.many_draws_near_exact", bool(near))
        put(f"{name}.{pname}.nonnegative", bool((one[(pname, "diag_ggn_mc")] >= 0).all()))
    put(f"{name}.seeded_repeats", repeats)
    put(f"{name}.kfac_input_factor_is_kflr", input_factor)


@case
def monte_carlo_cross_entropy() -> None:
    put_mc_checks("mc.ce", mlp(nn.Tanh), nn.CrossEntropyLoss(), X_TAB, Y_CLS)


@case
def monte_carlo_mse() -> None:
    put_mc_checks("mc.mse", mlp(nn.Sigmoid), nn.MSELoss(), X_TAB, Y_REG)


def rnn_net(cell: type[nn.Module]) -> nn.Module:
    """A sequential RNN/LSTM net BackPACK can extend (the output permuted to (N, C, T))."""
    from backpack.custom_module.permute import Permute

    def make() -> nn.Module:
        return nn.Sequential(
            cell(5, 4, batch_first=True), ReduceTuple(index=0), nn.Linear(4, 3), Permute(0, 2, 1)
        )

    return model(f"seq_{cell.__name__}", make)


@case
def recurrent_first_order() -> None:
    for cell in (nn.RNN, nn.LSTM):
        net = rnn_net(cell)
        run_extensions(
            f"rnn.{cell.__name__}",
            net,
            nn.CrossEntropyLoss(),
            X_SEQ,
            Y_SEQ,
            first_order(),
            FIRST_ORDER,
        )


@case
def recurrent_diag_ggn() -> None:
    for cell in (nn.RNN, nn.LSTM):
        net = rnn_net(cell)
        exts = [extensions.DiagGGNExact(), extensions.BatchDiagGGNExact()]
        attrs = ("diag_ggn_exact", "diag_ggn_exact_batch")
        run_extensions(
            f"rnn2.{cell.__name__}", net, nn.CrossEntropyLoss(), X_SEQ, Y_SEQ, exts, attrs
        )


def zoo() -> nn.Module:
    """More layers BackPACK has rules for: ZeroPad2d, a strided Conv2d, ConvTranspose2d,
    LeakyReLU, ELU, SELU and LogSigmoid."""
    return model(
        "zoo",
        lambda: nn.Sequential(
            nn.ZeroPad2d((1, 0, 0, 1)),
            nn.Conv2d(2, 3, 3, stride=2),
            nn.LeakyReLU(0.1),
            nn.ConvTranspose2d(3, 2, 2, stride=1),
            nn.ELU(),
            nn.Flatten(),
            nn.Linear(50, 6),
            nn.SELU(),
            nn.Linear(6, 4),
            nn.LogSigmoid(),
            nn.Linear(4, 3),
        ),
    )


@case
def more_layers() -> None:
    exts = [*first_order(), extensions.DiagGGNExact(), extensions.DiagHessian()]
    attrs = (*FIRST_ORDER, "diag_ggn_exact", "diag_h")
    run_extensions("zoo", zoo(), nn.CrossEntropyLoss(), X_IMG, Y_IMG, exts, attrs)


@case
def conv1d_embedding_and_bce() -> None:
    def make() -> nn.Module:
        return nn.Sequential(
            nn.Conv1d(4, 2, 3, padding=1), nn.Sigmoid(), nn.Flatten(), nn.Linear(8, 1)
        )

    net = model("conv1d", make)
    x = X_SEQ.permute(0, 2, 1)[:, :4].contiguous()
    y = torch.tensor([[1.0], [0.0], [1.0]], dtype=F64)
    exts = [extensions.BatchGrad(), extensions.DiagGGNExact(), extensions.KFLR()]
    run_extensions(
        "c1d", net, nn.BCEWithLogitsLoss(), x, y, exts, ("grad_batch", "diag_ggn_exact", "kflr")
    )
    # (BackPACK's Embedding rules build their one-hot matrices in float32)
    emb = model("emb", lambda: nn.Sequential(nn.Embedding(7, 3), nn.Flatten(), nn.Linear(12, 3)))
    emb = emb.float()
    ids = torch.tensor(RNG.randint(0, 7, size=(5, 4)), dtype=torch.int64)
    labels = torch.tensor([0, 2, 1, 1, 0])
    exts = [extensions.BatchGrad(), extensions.SumGradSquared(), extensions.DiagGGNExact()]
    run_extensions(
        "emb",
        emb,
        nn.CrossEntropyLoss(),
        ids,
        labels,
        exts,
        ("grad_batch", "sum_grad_squared", "diag_ggn_exact"),
    )


@case
def curvature_matrix_products() -> None:
    """HMP, GGNMP and PCHMP: each parameter's multiplication with its Hessian/GGN block."""
    net = extend(mlp(nn.Sigmoid))
    loss = extend(nn.CrossEntropyLoss())(net(X_TAB), Y_CLS)
    exts = [
        extensions.HMP(),
        extensions.GGNMP(),
        extensions.PCHMP(modify="clip"),
    ]
    with backpack(*exts):
        loss.backward()
    for pname, p in net.named_parameters():
        v = torch.tensor(RNG_V.randn(2, *p.shape), dtype=F64)
        for attr in ("hmp", "ggnmp", "pchmp"):
            put(f"cmp.{pname}.{attr}", getattr(p, attr)(v))


@case
def extension_hook_and_sqrt_ggn() -> None:
    """An ``extension_hook`` sees each module after its extensions ran (here it sums each
    parameter's GGN diagonal and deletes it); SqrtGGNExact's factor squares to the GGN."""
    net = extend(cnn2())
    loss = extend(nn.CrossEntropyLoss())(net(X_IMG), Y_IMG)
    seen = []

    def hook(module: nn.Module) -> None:
        for pname, p in module.named_parameters(recurse=False):
            if hasattr(p, "diag_ggn_exact"):
                seen.append((type(module).__name__, pname, p.diag_ggn_exact.sum().item()))
                del p.diag_ggn_exact

    with backpack(extensions.DiagGGNExact(), extensions.SqrtGGNExact(), extension_hook=hook):
        loss.backward()
    put("hook.modules", [f"{m}.{p}" for m, p, _ in seen])
    put("hook.sums", [v for _, _, v in seen])
    put("hook.deleted", [hasattr(p, "diag_ggn_exact") for p in net.parameters()])
    for pname, p in net.named_parameters():
        factor = p.sqrt_ggn_exact.flatten(2)
        put(f"sqrt.{pname}", factor)
        put(f"sqrt.{pname}.diag", torch.einsum("cni,cni->i", factor, factor).view_as(p))


@case
def hessianfree_products() -> None:
    net = mlp(nn.Tanh)
    params = list(net.parameters())
    out = net(X_TAB)
    loss = nn.functional.cross_entropy(out, Y_CLS)
    v = [torch.tensor(RNG_V.randn(*p.shape), dtype=F64) for p in params]
    for i, t in enumerate(ggn_vector_product(loss, out, net, v)):
        put(f"hf.ggnvp.{i}", t)
    for i, t in enumerate(hessian_vector_product(loss, params, v)):
        put(f"hf.hvp.{i}", t)
    w = torch.tensor(RNG_V.randn(*out.shape), dtype=F64)
    for i, t in enumerate(L_op(out, params, w)):
        put(f"hf.lop.{i}", t)
    for i, t in enumerate(R_op(out, params, v)):
        put(f"hf.rop.{i}", t)
    x = X_TAB.clone().requires_grad_(True)
    u = torch.tensor(RNG_V.randn(*x.shape), dtype=F64)
    put("hf.jvp", jacobian_vector_product(net(x), x, u)[0])
    put("hf.vjp", transposed_jacobian_vector_product(net(x), x, w)[0])


@case
def convert_parameters() -> None:
    net = mlp()
    vec = parameters_to_vector(net.parameters())
    parts = vector_to_parameter_list(vec * 2, net.parameters())
    for i, t in enumerate(parts):
        put(f"conv.part.{i}", t)
    put("conv.shapes", [str(list(t.shape)) for t in parts])
    try:
        vector_to_parameter_list([1.0], net.parameters())
    except TypeError as err:
        put("conv.type_error", str(err))


@case
def hook_warnings() -> None:
    """PyTorch's warning when a module's inputs need no gradient (BackPACK's hooks then
    fire at the outputs): its message and the frame it names, from ``backward`` and from
    ``ggnvp``'s ``autograd.grad`` calls."""
    net = extend(mlp(nn.Tanh))
    loss = extend(nn.CrossEntropyLoss())(net(X_TAB), Y_CLS)
    params = list(net.parameters())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with backpack(extensions.BatchGrad()):
            loss.backward(retain_graph=True)
        out = net(X_TAB)
        ggn_vector_product(nn.functional.cross_entropy(out, Y_CLS), out, net, params)
    sites = [f"{os.path.basename(w.filename)}:{w.lineno}" for w in caught]
    put("warn.sites", sites)
    put("warn.messages", [f"{w.category.__name__}: {w.message}" for w in caught])


class Residual(nn.Module):
    """A residual MLP block whose skip connection is an in-place add."""

    def __init__(self) -> None:
        super().__init__()
        self.l0 = nn.Linear(5, 5)
        self.l1 = nn.Linear(5, 5)
        self.act = nn.ReLU()
        self.l2 = nn.Linear(5, 5)
        self.out = nn.Tanh()
        self.head = nn.Linear(5, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.l0(x)
        r = self.l2(self.act(self.l1(h)))
        r += h
        return self.head(self.out(r))


@case
def converter_residual() -> None:
    net = model("residual", Residual)
    ref = net(X_TAB)
    converted = extend(net, use_converter=True)
    loss_fn = extend(nn.CrossEntropyLoss())
    out = converted(X_TAB)
    put("convert.same_output", torch.allclose(out, ref, rtol=0, atol=0))
    loss = loss_fn(out, Y_CLS)
    with backpack(extensions.BatchGrad(), extensions.DiagGGNExact()):
        loss.backward()
    for pname, p in converted.named_parameters():
        put(f"convert.{pname}.grad", p.grad)
        put(f"convert.{pname}.grad_batch", p.grad_batch)
        put(f"convert.{pname}.diag_ggn_exact", p.diag_ggn_exact)


CASES.run(f"{OUT}/backpack_{SIDE}")
WEIGHTS.save()
