"""The opacus cases of test_opacus.py, run once per side.

``python opacus_cases.py OUT oracle`` runs every case on the real PyTorch and saves the
modules' initial weights to ``OUT/opacus_weights.pt``; ``chainrule run opacus_cases.py OUT
chainrule`` loads them (every model holds the oracle's weights, so nothing depends on the
random stream) and runs the same cases. Inputs come from NumPy. The results go to
``OUT/opacus_<side>.npz``; a case that raises records its traceback in
``OUT/opacus_<side>_errors.json``. Where opacus draws from torch's generator (Poisson
batches, the Gaussian noise), a case either makes the draw certain (sample rate 1, noise
multiplier 0), or seeds it and puts the draws (PyTorch's, for the same seed) with what
they must satisfy on either side (sizes, the noise's mean and spread against the exact
ones).
"""

from __future__ import annotations

import copy
import sys
import warnings
from collections.abc import Callable

import numpy as np
import torch
from case_inputs import Weights
from case_runner import Cases
from opacus import PrivacyEngine
from opacus.accountants import GaussianAccountant, PRVAccountant, RDPAccountant
from opacus.accountants.utils import get_noise_multiplier
from opacus.data_loader import DPDataLoader
from opacus.grad_sample.utils import wrap_model
from opacus.layers import DPGRU, DPLSTM, DPRNN, DPMultiheadAttention
from opacus.utils.batch_memory_manager import BatchMemoryManager
from opacus.validators import ModuleValidator
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

warnings.simplefilter("ignore")  # (opacus warns about secure_mode and full backward hooks)

OUT, SIDE = sys.argv[1], sys.argv[2]
WEIGHTS = Weights(f"{OUT}/opacus_weights.pt", SIDE == "oracle")
CASES = Cases()
case, put = CASES.case, CASES.put
held = WEIGHTS.module
RNG = np.random.default_rng(0)


def randn(*shape: int, rng: np.random.Generator = RNG) -> torch.Tensor:
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))


def randint(high: int, *shape: int) -> torch.Tensor:
    return torch.from_numpy(RNG.integers(0, high, shape).astype(np.int64))


class Head(nn.Module):
    """A layer, then a fixed linear read-out of its (first) output to one number per sample."""

    def __init__(self, layer: nn.Module, call: str = "plain") -> None:
        super().__init__()
        self.layer = layer
        self.call = call

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.call == "attention":
            out = self.layer(x, x, x)[0]
        elif self.call == "bag":  # bags of 3 indices, given flat with their offsets
            out = self.layer(x.flatten(), torch.arange(0, x.numel(), x.shape[1]))
        else:
            out = self.layer(x)
        if isinstance(out, tuple):
            out = out[0]
        return out


# name -> (layer maker, call kind, input maker)
LAYERS: dict[str, tuple[Callable[[], nn.Module], str, Callable[[], torch.Tensor]]] = {
    "linear": (
        lambda: nn.Sequential(nn.Linear(5, 4), nn.Tanh(), nn.Linear(4, 3)),
        "plain",
        lambda: randn(6, 5),
    ),
    "linear3d": (lambda: nn.Linear(5, 4), "plain", lambda: randn(6, 3, 5)),
    "conv1d": (lambda: nn.Conv1d(3, 4, 3, padding=1), "plain", lambda: randn(6, 3, 8)),
    "conv2d": (lambda: nn.Conv2d(4, 6, 3, stride=2, groups=2), "plain", lambda: randn(6, 4, 7, 7)),
    "layernorm": (lambda: nn.LayerNorm(5), "plain", lambda: randn(6, 3, 5)),
    "groupnorm": (lambda: nn.GroupNorm(2, 4), "plain", lambda: randn(6, 4, 5)),
    "instancenorm": (lambda: nn.InstanceNorm2d(4, affine=True), "plain", lambda: randn(6, 4, 5, 5)),
    "embedding": (lambda: nn.Embedding(10, 4), "plain", lambda: randint(10, 6, 3)),
    "embeddingbag": (
        lambda: nn.EmbeddingBag(10, 4, mode="mean"),
        "bag",
        lambda: randint(10, 6, 3),
    ),
    "attention": (
        lambda: DPMultiheadAttention(8, 2, batch_first=True),
        "attention",
        lambda: randn(6, 4, 8),
    ),
}
# the recurrent layers, whose input weights are used once per time step
RNNS: dict[str, tuple[Callable[[], nn.Module], str, Callable[[], torch.Tensor]]] = {
    "lstm": (lambda: DPLSTM(4, 5, num_layers=2, batch_first=True), "plain", lambda: randn(6, 3, 4)),
    "gru": (
        lambda: DPGRU(4, 5, batch_first=True, bidirectional=True),
        "plain",
        lambda: randn(6, 3, 4),
    ),
    "rnn": (lambda: DPRNN(4, 5, batch_first=True), "plain", lambda: randn(6, 3, 4)),
}
READOUT: dict[str, torch.Tensor] = {}


def per_sample_loss(model: nn.Module, x: torch.Tensor, name: str) -> torch.Tensor:
    """A fixed weighted sum of each sample's output: one loss per sample."""
    out = model(x)
    if name not in READOUT:
        READOUT[name] = randn(*out.shape[1:], rng=np.random.default_rng(len(READOUT) + 1))
    return (out * READOUT[name]).flatten(1).sum(1)


def loop_grads(model: nn.Module, x: torch.Tensor, name: str) -> list[torch.Tensor]:
    """Each parameter's per-sample gradients by an explicit loop over the samples."""
    params = [p for p in model.parameters() if p.requires_grad]
    rows = []
    for n in range(len(x)):
        loss = per_sample_loss(model, x[n : n + 1], name).sum()
        rows.append(torch.autograd.grad(loss, params))
    return [torch.stack([r[i] for r in rows]) for i in range(len(params))]


def grad_samples_case(mode: str, layers: dict, title: str) -> Callable[[], None]:
    def run() -> None:
        for name, (make, call, inp) in layers.items():
            model = Head(held(f"{mode}.{name}", make), call)
            x = inp()
            try:
                gsm = wrap_model(model, mode, batch_first=True, loss_reduction="mean")
                loss = per_sample_loss(gsm, x, name).mean()
            except (NotImplementedError, RuntimeError) as e:  # (EmbeddingBag but with hooks)
                put(f"{mode}.{name}.refused", type(e).__name__)
                continue
            loss.backward()
            named = list(model.named_parameters())
            samples = [p.grad_sample.clone() for _, p in named]
            if mode != "ew":  # (ExpandedWeights leave .grad unset)
                put(f"{mode}.{name}.grad_sum", torch.stack([p.grad.sum() for _, p in named]))
            gsm._close()
            for (pname, _), sample, ref in zip(named, samples, loop_grads(model, x, name)):
                put(f"{mode}.{name}.{pname}", sample)
                put(f"{mode}.{name}.{pname}.is_loop", torch.allclose(sample, ref, atol=1e-5))

    run.__name__ = f"{title}_{mode}"
    return run


for _mode in ("hooks", "functorch", "ew"):
    case(grad_samples_case(_mode, LAYERS, "grad_samples"))
for _mode in ("hooks", "functorch", "ew"):
    case(grad_samples_case(_mode, RNNS, "grad_samples_rnn"))


# ----- PrivacyEngine ------------------------------------------------------------------

X_CLS = randn(32, 10)
Y_CLS = torch.from_numpy(RNG.integers(0, 3, 32).astype(np.int64))
X_IMG = randn(16, 1, 8, 8)
Y_IMG = torch.from_numpy(RNG.integers(0, 3, 16).astype(np.int64))


def mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 3))


def cnn() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 4, 3),
        nn.GroupNorm(2, 4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(36, 3),
    )


def train(
    key: str,
    make: Callable[[], nn.Module],
    data: tuple[torch.Tensor, torch.Tensor],
    *,
    batch_size: int,
    epochs: int = 3,
    **kwargs: object,
) -> tuple[nn.Module, object, DataLoader, PrivacyEngine]:
    """Train a private ``make()`` (the oracle's weights for ``key``) with SGD; put the
    losses and the final weights under ``key``."""
    model = make() if key.startswith("bmm") else held(key, make)
    opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.5)
    loader = DataLoader(TensorDataset(*data), batch_size=batch_size)
    accountant = kwargs.pop("accountant", "rdp")
    engine = PrivacyEngine(accountant=accountant)
    kwargs.setdefault("noise_multiplier", 0.0)
    kwargs.setdefault("max_grad_norm", 0.5)
    model, opt, loader = engine.make_private(
        module=model, optimizer=opt, data_loader=loader, **kwargs
    )
    losses = []
    for _ in range(epochs):
        for xb, yb in loader:
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    put(f"{key}.losses", np.asarray(losses))
    for name, value in model._module.state_dict().items():
        put(f"{key}.weights.{name}", value)
    return model, opt, loader, engine


@case
def make_private_mlp() -> None:
    # sample rate 1: every Poisson batch is the whole data set, on either side
    for mode in ("hooks", "functorch"):
        key = f"mlp.{mode}"
        _, opt, loader, engine = train(
            key, mlp, (X_CLS, Y_CLS), batch_size=32, grad_sample_mode=mode
        )
        put(f"{key}.sample_rate", loader.sample_rate)
        put(f"{key}.expected_batch_size", opt.expected_batch_size)
        put(f"{key}.epsilon", engine.get_epsilon(1e-5))


@case
def make_private_cnn_shuffled_off() -> None:
    model, opt, loader, engine = train(
        "cnn", cnn, (X_IMG, Y_IMG), batch_size=4, poisson_sampling=False
    )
    put("cnn.batches", len(loader))
    put("cnn.steps", len(engine.accountant.history))
    put("cnn.epsilon", engine.get_epsilon(1e-5))


@case
def clipping_flat_per_layer_adaptive() -> None:
    train(
        "clip.flat", mlp, (X_CLS, Y_CLS), batch_size=8, poisson_sampling=False, max_grad_norm=0.05
    )
    model, opt, _, _ = train(
        "clip.per_layer",
        mlp,
        (X_CLS, Y_CLS),
        batch_size=8,
        poisson_sampling=False,
        clipping="per_layer",
        max_grad_norm=[0.05, 0.02, 0.03, 0.01],
    )
    put("clip.per_layer.max_grad_norms", opt.max_grad_norms)
    _, opt, _, _ = train(
        "clip.adaptive",
        mlp,
        (X_CLS, Y_CLS),
        batch_size=8,
        poisson_sampling=False,
        clipping="adaptive",
        max_grad_norm=0.5,
        target_unclipped_quantile=0.5,
        clipbound_learning_rate=0.2,
        max_clipbound=1.0,
        min_clipbound=0.01,
        unclipped_num_std=1e-12,  # (the unclipped count's noise: nil)
    )
    put("clip.adaptive.max_grad_norm", opt.max_grad_norm)


@case
def noise_statistics() -> None:
    # the noise added to a zero gradient: mean 0, spread noise_multiplier · max_grad_norm /
    # expected batch size, whatever the generator draws
    model = nn.Linear(200, 100, bias=False)
    nn.init.zeros_(model.weight)
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    loader = DataLoader(TensorDataset(torch.zeros(4, 200)), batch_size=4)
    engine = PrivacyEngine()
    model, opt, loader = engine.make_private(
        module=model,
        optimizer=opt,
        data_loader=loader,
        noise_multiplier=1.5,
        max_grad_norm=2.0,
        poisson_sampling=False,
    )
    (xb,) = next(iter(loader))
    model(xb).sum().backward()  # zero input: every per-sample gradient is zero
    torch.manual_seed(11)
    opt.step()
    put("noise.values", model._module.weight)  # (PyTorch's draws for the same seed)
    noise = -model._module.weight.detach().numpy().astype(np.float64)
    sigma = 1.5 * 2.0 / 4
    z = noise.ravel() / sigma
    put("noise.expected_std", sigma)
    put("noise.mean_ok", abs(z.mean()) < 4 / np.sqrt(z.size))
    put("noise.std_ok", abs(z.std() - 1) < 4 / np.sqrt(2 * z.size))
    put("noise.normal_ok", abs(float(np.mean(np.abs(z) < 1)) - 0.6827) < 0.02)


@case
def make_private_with_epsilon() -> None:
    model = held("eps", mlp)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(TensorDataset(X_CLS, Y_CLS), batch_size=8)
    for accountant in ("rdp", "prv", "gdp"):
        engine = PrivacyEngine(accountant=accountant)
        copied = copy.deepcopy(model)
        m, o, dl = engine.make_private_with_epsilon(
            module=copied,
            optimizer=torch.optim.SGD(copied.parameters(), lr=0.1),
            data_loader=loader,
            target_epsilon=3.0,
            target_delta=1e-5,
            epochs=5,
            max_grad_norm=1.0,
        )
        put(f"eps.{accountant}.noise_multiplier", o.noise_multiplier)
        put(f"eps.{accountant}.sample_rate", dl.sample_rate)
        for _ in range(2):
            for xb, yb in dl:
                o.zero_grad()
                nn.functional.cross_entropy(m(xb), yb).backward()
                o.step()
        put(f"eps.{accountant}.steps", sum(n for _, _, n in engine.accountant.history))
        put(f"eps.{accountant}.epsilon", engine.get_epsilon(1e-5))
    del opt


@case
def accountants() -> None:
    for cls in (RDPAccountant, PRVAccountant, GaussianAccountant):
        acc = cls()
        for _ in range(100):
            acc.step(noise_multiplier=1.1, sample_rate=0.01)
        if cls is not GaussianAccountant:  # (which takes one noise and rate only)
            acc.step(noise_multiplier=0.8, sample_rate=0.02)
        put(f"acc.{acc.mechanism()}.history", np.asarray(acc.history, dtype=np.float64))
        put(f"acc.{acc.mechanism()}.epsilon", acc.get_epsilon(delta=1e-5))
        put(f"acc.{acc.mechanism()}.len", len(acc))
    rdp = RDPAccountant()
    rdp.history = [(1.0, 0.05, 200)]
    eps, alpha = rdp.get_privacy_spent(delta=1e-6)
    put("acc.rdp.privacy_spent", np.asarray([eps, alpha], dtype=np.float64))
    for name in ("rdp", "prv", "gdp"):
        put(
            f"acc.{name}.noise_for_eps",
            get_noise_multiplier(
                target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01, steps=500, accountant=name
            ),
        )


class WithBatchNorm(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(144, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.bn(self.conv(x))))


@case
def validator_fix() -> None:
    model = held("bn", WithBatchNorm)
    errors = ModuleValidator.validate(model, strict=False)
    put("val.errors", [str(e) for e in errors])
    put("val.is_valid", ModuleValidator.is_valid(model))
    fixed = ModuleValidator.fix(model)
    put("val.fixed.types", [type(m).__name__ for m in fixed.modules()])
    put("val.fixed.valid", ModuleValidator.is_valid(fixed))
    put("val.fixed.groups", fixed.bn.num_groups)
    x = X_IMG
    put("val.fixed.out", fixed(x))
    lstm = nn.Sequential(nn.LSTM(4, 5))
    put("val.lstm.errors", [str(e) for e in ModuleValidator.validate(lstm, strict=False)])
    put("val.lstm.fixed", [type(m).__name__ for m in ModuleValidator.fix(lstm).modules()])


@case
def batch_memory_manager() -> None:
    # the whole data set per logical batch (sample rate 1), in physical batches of 5
    start = held("bmm", mlp)
    full, _, _, _ = train(
        "bmm.full", lambda: copy.deepcopy(start), (X_CLS, Y_CLS), batch_size=32, epochs=1
    )
    model = copy.deepcopy(start)
    opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.5)
    loader = DataLoader(TensorDataset(X_CLS, Y_CLS), batch_size=32)
    engine = PrivacyEngine()
    model, opt, loader = engine.make_private(
        module=model, optimizer=opt, data_loader=loader, noise_multiplier=0.0, max_grad_norm=0.5
    )
    sizes, skipped = [], []
    with BatchMemoryManager(data_loader=loader, max_physical_batch_size=5, optimizer=opt) as mem:
        for xb, yb in mem:
            sizes.append(len(xb))
            opt.zero_grad()
            nn.functional.cross_entropy(model(xb), yb).backward()
            opt.step()
            skipped.append(opt._is_last_step_skipped)
    put("bmm.sizes", sizes)
    put("bmm.skipped", skipped)
    put("bmm.steps", len(engine.accountant.history))
    for name, value in model._module.state_dict().items():
        put(f"bmm.weights.{name}", value)
        # the virtual steps give the one full step's weights
        put(
            f"bmm.same.{name}",
            torch.allclose(value, full._module.state_dict()[name], atol=1e-6),
        )


@case
def dp_data_loader() -> None:
    data = TensorDataset(torch.arange(200.0)[:, None])
    base = DataLoader(data, batch_size=20)
    dl = DPDataLoader.from_data_loader(base)
    put("dl.sample_rate", dl.sample_rate)
    put("dl.len", len(dl))
    sizes, seen = [], []
    torch.manual_seed(12)
    for _ in range(20):
        for (xb,) in dl:
            sizes.append(len(xb))
            idx = xb[:, 0].long().tolist()
            seen.append(len(set(idx)) == len(idx) and all(0 <= i < 200 for i in idx))
    put("dl.first_batch", next(iter(dl))[0][:, 0].long())  # (PyTorch's, after the seed)
    put("dl.sizes", sizes)
    sizes_np = np.asarray(sizes, dtype=np.float64)
    put("dl.batches", len(sizes))
    put("dl.indices_ok", all(seen))
    # binomial(200, 0.1) batch sizes: mean 20, variance 18
    put("dl.mean_ok", abs(sizes_np.mean() - 20) < 4 * np.sqrt(18 / sizes_np.size))
    put("dl.spread_ok", 2.0 < sizes_np.std() < 6.5)
    empty = DPDataLoader.from_data_loader(
        DataLoader(TensorDataset(torch.zeros(3, 2)), batch_size=3)
    )
    put("dl.full.sizes", [len(b[0]) for b in empty])  # sample rate 1: the whole set
    put("dl.full.dtype", str(next(iter(empty))[0].dtype))


@case
def ghost_clipping() -> None:
    model = held("ghost", mlp)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    loader = DataLoader(TensorDataset(X_CLS, Y_CLS), batch_size=32)
    engine = PrivacyEngine()
    model, opt, criterion, loader = engine.make_private(
        module=model,
        optimizer=opt,
        criterion=nn.CrossEntropyLoss(),
        data_loader=loader,
        noise_multiplier=0.0,
        max_grad_norm=0.1,
        grad_sample_mode="ghost",
    )
    losses = []
    for _ in range(3):
        for xb, yb in loader:
            opt.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    put("ghost.losses", np.asarray(losses))
    for name, value in model._module.state_dict().items():
        put(f"ghost.weights.{name}", value)


CASES.run(f"{OUT}/opacus_{SIDE}")
WEIGHTS.save()
