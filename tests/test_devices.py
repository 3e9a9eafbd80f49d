"""Devices as a CPU-only PyTorch has them: ``torch.device`` names any device type,
``torch.cuda``/``torch.accelerator``/``torch.backends`` answer that there is no GPU, and
allocating on CUDA raises PyTorch's error, so ``"cuda" if torch.cuda.is_available() else
"cpu"`` scripts run unchanged."""

from __future__ import annotations

import pytest
import torch

import chainrule as cr
from oracle import assert_same_error, both


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.device("cpu"),
        lambda L: L.device("cuda"),
        lambda L: L.device("cuda:1"),
        lambda L: L.device("cpu", 0),
        lambda L: L.device("mps"),
        lambda L: L.device("meta"),
        lambda L: L.device(L.device("cuda:0")),
    ],
)
def test_device_objects_print_and_compare_as_torch(make):
    c, t = both(make)
    assert (repr(c), str(c), c.type, c.index) == (repr(t), str(t), t.type, t.index)
    assert c == make(cr) and hash(c) == hash(make(cr))


def test_devices_differ_by_type_and_index():
    assert cr.device("cuda:0") != cr.device("cuda:1")
    assert cr.device("cuda") != cr.device("cpu")
    # a device equals devices, not their names (PyTorch 2.13: False both ways)
    assert (cr.device("cpu") == "cpu", "cpu" == cr.device("cpu")) == (
        torch.device("cpu") == "cpu",
        "cpu" == torch.device("cpu"),
    )
    assert cr.device("cpu") != "cpu" and cr.device("cpu") == cr.device("cpu")


def test_an_unknown_device_type_is_refused_as_torch_refuses_it():
    assert_same_error(lambda L: L.device("foo"))


@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.zeros(2, device="cuda"),
        lambda L: L.ones(2, 3, device="cuda:0"),
        lambda L: L.full((2,), 1.0, device=L.device("cuda")),
        lambda L: L.arange(3, device="cuda"),
        lambda L: L.eye(2, device="cuda"),
        lambda L: L.tensor([1.0], device="cuda"),
        lambda L: L.zeros_like(L.ones(2), device="cuda"),
        lambda L: L.ones(2).cuda(),
        lambda L: L.ones(2).to("cuda"),
        lambda L: L.cuda.current_device(),
        lambda L: L.cuda.synchronize(),
    ],
)
def test_using_cuda_raises_torch_s_error(fn):
    assert_same_error(fn, "Torch not compiled with CUDA enabled")


def test_a_module_moved_to_cuda_raises_torch_s_error():
    def move(L):
        return L.nn.Sequential(L.nn.ParameterList([L.nn.Parameter(L.ones(2))])).to("cuda")

    assert_same_error(move, "Torch not compiled with CUDA enabled")


def test_cpu_everywhere_is_accepted():
    x = cr.zeros(2, device="cpu")
    assert x.to("cpu") is x and x.device == cr.device("cpu")
    assert cr.ones(2, device=cr.device("cpu")).tolist() == [1.0, 1.0]


@pytest.mark.parametrize(
    "query",
    [
        lambda L: L.cuda.is_available(),
        lambda L: L.cuda.device_count(),
        lambda L: L.cuda.is_initialized(),
        lambda L: L.accelerator.is_available(),
        lambda L: L.accelerator.current_accelerator(),
        lambda L: L.accelerator.device_count(),
        lambda L: L.backends.mps.is_available(),
        lambda L: L.backends.mps.is_built(),
        lambda L: L.backends.cudnn.is_available(),
        lambda L: L.backends.cudnn.enabled,
        lambda L: L.backends.cudnn.benchmark,
        lambda L: L.backends.cudnn.deterministic,
        lambda L: L.cuda.manual_seed(0),
        lambda L: L.cuda.manual_seed_all(0),
    ],
)
def test_queries_answer_as_a_cpu_only_torch(query):
    c, t = both(query)
    assert c == t


def test_the_tutorials_device_choice_picks_the_cpu():
    def choose(L):
        accel = L.accelerator.current_accelerator()
        name = accel.type if L.accelerator.is_available() else "cpu"
        dev = L.device("cuda" if L.cuda.is_available() else name)
        return L.ones(2, device=dev).device

    c, t = both(choose)
    assert repr(c) == repr(t)


def test_backend_flags_can_be_set():
    old = cr.backends.cudnn.benchmark
    try:
        cr.backends.cudnn.benchmark = True
        assert cr.backends.cudnn.benchmark is True
    finally:
        cr.backends.cudnn.benchmark = old
    assert torch.backends.cudnn.benchmark is False


# ----- device= everywhere PyTorch takes it: a table of creation functions x devices -------

CREATORS = {
    "tensor": lambda L, d: L.tensor([1.0], device=d),
    "as_tensor": lambda L, d: L.as_tensor([1.0], device=d),
    "asarray": lambda L, d: L.asarray([1.0], device=d),
    "zeros": lambda L, d: L.zeros(2, device=d),
    "ones": lambda L, d: L.ones(2, device=d),
    "full": lambda L, d: L.full((2,), 1.0, device=d),
    "empty": lambda L, d: L.empty(2, device=d),
    "arange": lambda L, d: L.arange(3, device=d),
    "linspace": lambda L, d: L.linspace(0, 1, 3, device=d),
    "logspace": lambda L, d: L.logspace(0, 1, 3, device=d),
    "eye": lambda L, d: L.eye(2, device=d),
    "zeros_like": lambda L, d: L.zeros_like(L.ones(2, 3), device=d),
    "ones_like": lambda L, d: L.ones_like(L.ones(2, 3), device=d),
    "full_like": lambda L, d: L.full_like(L.ones(2, 3), 2.0, device=d),
    "empty_like": lambda L, d: L.empty_like(L.ones(2, 3), device=d),
    "rand": lambda L, d: L.rand(2, device=d),
    "randn": lambda L, d: L.randn(2, device=d),
    "randint": lambda L, d: L.randint(0, 5, (2,), device=d),
    "randperm": lambda L, d: L.randperm(4, device=d),
    "rand_like": lambda L, d: L.rand_like(L.ones(2, 3), device=d),
    "randn_like": lambda L, d: L.randn_like(L.ones(2, 3), device=d),
    "randint_like": lambda L, d: L.randint_like(L.ones(2, 3), 5, device=d),
    "normal": lambda L, d: L.normal(0.0, 1.0, (2,), device=d),
    "tril_indices": lambda L, d: L.tril_indices(3, 3, device=d),
    "triu_indices": lambda L, d: L.triu_indices(3, 3, device=d),
    "new_zeros": lambda L, d: L.ones(2).new_zeros(2, device=d),
    "new_ones": lambda L, d: L.ones(2).new_ones(2, device=d),
    "new_full": lambda L, d: L.ones(2).new_full((2,), 1.0, device=d),
    "new_empty": lambda L, d: L.ones(2).new_empty(2, device=d),
    "new_tensor": lambda L, d: L.ones(2).new_tensor([1.0], device=d),
    "Tensor.to": lambda L, d: L.ones(2).to(d),
    "Tensor.to(device=)": lambda L, d: L.ones(2).to(device=d),
    "Tensor.to(device, dtype)": lambda L, d: L.ones(2).to(d, L.float64),
    "Generator": lambda L, d: L.Generator(device=d),
    "nn.Linear": lambda L, d: L.nn.Linear(2, 2, device=d),
    "nn.Bilinear": lambda L, d: L.nn.Bilinear(2, 2, 2, device=d),
    "nn.Conv1d": lambda L, d: L.nn.Conv1d(1, 2, 3, device=d),
    "nn.Conv2d": lambda L, d: L.nn.Conv2d(1, 2, 3, device=d),
    "nn.ConvTranspose2d": lambda L, d: L.nn.ConvTranspose2d(1, 2, 3, device=d),
    "nn.Embedding": lambda L, d: L.nn.Embedding(3, 2, device=d),
    "nn.EmbeddingBag": lambda L, d: L.nn.EmbeddingBag(3, 2, device=d),
    "nn.RNN": lambda L, d: L.nn.RNN(2, 2, device=d),
    "nn.LSTM": lambda L, d: L.nn.LSTM(2, 2, device=d),
    "nn.GRU": lambda L, d: L.nn.GRU(2, 2, device=d),
    "nn.LSTMCell": lambda L, d: L.nn.LSTMCell(2, 2, device=d),
    "nn.GRUCell": lambda L, d: L.nn.GRUCell(2, 2, device=d),
    "nn.BatchNorm1d": lambda L, d: L.nn.BatchNorm1d(2, device=d),
    "nn.LayerNorm": lambda L, d: L.nn.LayerNorm(2, device=d),
    "nn.GroupNorm": lambda L, d: L.nn.GroupNorm(1, 2, device=d),
    "nn.InstanceNorm1d": lambda L, d: L.nn.InstanceNorm1d(2, affine=True, device=d),
    "nn.MultiheadAttention": lambda L, d: L.nn.MultiheadAttention(4, 2, device=d),
    "nn.TransformerEncoderLayer": lambda L, d: L.nn.TransformerEncoderLayer(4, 2, 8, device=d),
    "Module.to": lambda L, d: L.nn.Linear(2, 2).to(d),
    "Module.to(device=)": lambda L, d: L.nn.Linear(2, 2).to(device=d),
    "torch.device": lambda L, d: L.device(d),
    "set_default_device": lambda L, d: _set_and_get_default(L, d),
}

DEVICES = ["cpu", "cpu:0", "cuda", "cuda:0", "cuda:1", "xpu", "xpu:0", "mps", "foo", "cuda:x", 0]


def _set_and_get_default(L, d):
    try:
        L.set_default_device(d)
        return L.get_default_device()
    finally:
        L.set_default_device(None)


def _device_of(result):
    """Where a result lives: a tensor's, a generator's or a device's device, or the set of
    a module's parameters' devices."""
    if hasattr(result, "parameters"):
        return {str(p.device) for p in result.parameters()}
    return str(getattr(result, "device", result))


def _outcome(L, make, d):
    d = L.device("cuda") if d == "device('cuda')" else d
    try:
        result = make(L, d)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return type(e), str(e)
    return "ok", _device_of(result)


# Known difference: where PyTorch reaches its dispatcher for an MPS tensor (the creation
# functions that allocate empty memory first), it raises NotImplementedError with a dump of
# its dispatch table; chainrule raises the RuntimeError (NotImplementedError's base class)
# PyTorch raises for the same device in tensor() and Tensor.to().
MPS = (RuntimeError, "PyTorch is not linked with support for mps devices")


@pytest.mark.parametrize("d", [*DEVICES, "device('cuda')"], ids=str)
@pytest.mark.parametrize("name", sorted(CREATORS))
def test_device_argument_gives_torch_s_result_or_error(name, d):
    make = CREATORS[name]
    want = _outcome(torch, make, d)
    got = _outcome(cr, make, d)
    if d == "mps" and want[0] is NotImplementedError:
        assert issubclass(want[0], MPS[0]) and got == MPS
        return
    assert got == want


def test_default_device_is_the_cpu_as_torch_names_it():
    for d in (None, "cpu", "cpu:0", cr.device("cpu")):
        got = _set_and_get_default(cr, d) if d is not None else cr.get_default_device()
        want = (
            _set_and_get_default(torch, d if not isinstance(d, cr.device) else "cpu")
            if d is not None
            else torch.get_default_device()
        )
        assert repr(got) == repr(want)
    try:
        cr.set_default_device("cpu")
        assert cr.zeros(2).device == cr.device("cpu")
        assert cr.nn.Linear(2, 2).weight.device == cr.device("cpu")
    finally:
        cr.set_default_device(None)
    assert repr(cr.get_default_device()) == "device(type='cpu')"


def test_logspace_as_torch():
    for args, kw in [
        ((0, 2, 3), {}),
        ((0, 3, 4), {"base": 2}),
        ((-1, 1, 5), {}),
        ((0, 1, 3), {"dtype": "int64"}),
        ((0, 1.5, 3), {"base": 2, "dtype": "int64"}),
        ((1, 0, 4), {"dtype": "float64"}),
    ]:
        kw_c = {k: getattr(cr, v) if k == "dtype" else v for k, v in kw.items()}
        kw_t = {k: getattr(torch, v) if k == "dtype" else v for k, v in kw.items()}
        c, t = cr.logspace(*args, **kw_c), torch.logspace(*args, **kw_t)
        assert str(c.dtype) == str(t.dtype)
        assert c.tolist() == pytest.approx(t.tolist(), rel=1e-6)
    assert_same_error(lambda L: L.logspace(0, 1, -1))
