"""chainrule on 'cuda': tensors and modules moved there and back, gradients and optimizer
state on the device, PyTorch's errors for mixing devices and for NumPy conversion, and the
``torch.cuda`` queries. Values are compared with the same computation on the CPU (and with
PyTorch's where it has CUDA)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from devices import standin

CUDA0 = cr.device("cuda", 0)


def host(t) -> np.ndarray:
    return t.detach().cpu().numpy()


def test_a_tensor_made_on_cuda_lives_there():
    for x in (
        cr.zeros(2, 3, device="cuda"),
        cr.ones(2, device="cuda:0"),
        cr.tensor([1.0, 2.0], device=cr.device("cuda", 0)),
        cr.arange(4, device="cuda"),
        cr.randn(3, device="cuda"),
        cr.ones(2).cuda(),
        cr.ones(2).to("cuda"),
        cr.zeros_like(cr.ones(2, device="cuda")),
    ):
        assert x.device == CUDA0 and x.is_cuda and str(x.device) == "cuda:0"


def test_to_and_cpu_round_trip_the_values():
    a = np.arange(6.0).reshape(2, 3)
    x = cr.tensor(a)
    y = x.to("cuda")
    assert y.is_cuda and not x.is_cuda
    np.testing.assert_array_equal(y.cpu().numpy(), a)
    assert y.to("cuda") is y and x.cpu() is x
    z = y.to("cpu", cr.float32)
    assert z.device == cr.device("cpu") and z.dtype is cr.float32


def test_ops_on_cuda_give_the_cpu_s_values_and_gradients():
    a = np.random.default_rng(0).standard_normal((4, 5))
    b = np.random.default_rng(1).standard_normal((5, 3))
    results = []
    for dev in ("cpu", "cuda"):
        x = cr.tensor(a, device=dev, requires_grad=True)
        w = cr.tensor(b, device=dev, requires_grad=True)
        out = ((x @ w).tanh() * 2 + x.sum(1, keepdim=True).exp()).softmax(-1).log().mean()
        out.backward()
        assert x.grad.device == x.device and w.grad.device == w.device
        results.append((out.item(), host(x.grad), host(w.grad)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-10)


def test_mixing_devices_raises_torch_s_error():
    x = cr.ones(2, device="cuda")
    with pytest.raises(RuntimeError) as err:
        x + cr.ones(2)
    assert str(err.value) == (
        "Expected all tensors to be on the same device, but found at least two devices, "
        "cuda:0 and cpu!"
    )
    with pytest.raises(RuntimeError, match="cpu and cuda:0"):
        cr.ones(2) * x


def test_a_0d_cpu_tensor_goes_with_cuda_tensors_as_in_torch():
    x = cr.ones(2, device="cuda")
    y = x * cr.tensor(3.0)
    assert y.is_cuda and y.cpu().tolist() == [3.0, 3.0]


def test_numpy_of_a_cuda_tensor_raises_torch_s_error():
    with pytest.raises(TypeError) as err:
        cr.ones(2, device="cuda").numpy()
    assert str(err.value) == (
        "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
        "to host memory first."
    )
    np.testing.assert_array_equal(cr.ones(2, device="cuda").numpy(force=True), [1.0, 1.0])


def test_printing_shows_the_device_as_torch():
    assert repr(cr.tensor([1.0, 2.0], device="cuda")) == "tensor([1., 2.], device='cuda:0')"
    x = cr.tensor([1.0], device="cuda", requires_grad=True)
    assert repr(x * 2) == "tensor([2.], device='cuda:0', grad_fn=<MulBackward0>)"


def test_the_gradient_of_a_copy_flows_back_to_the_cpu():
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    y = x.cuda() * 3
    assert y.grad_fn.next_functions[0][0].name() == "ToCopyBackward0"
    y.sum().backward()
    assert x.grad.device == cr.device("cpu") and x.grad.tolist() == [3.0, 3.0]


def test_a_module_moves_and_trains_on_cuda():
    cr.manual_seed(0)
    model = cr.nn.Sequential(cr.nn.Linear(4, 8), cr.nn.ReLU(), cr.nn.Linear(8, 3))
    cpu_model = cr.nn.Sequential(cr.nn.Linear(4, 8), cr.nn.ReLU(), cr.nn.Linear(8, 3))
    cpu_model.load_state_dict(model.state_dict())
    model.to("cuda")
    assert all(p.is_cuda for p in model.parameters())
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    t = np.array([0, 1, 2, 1, 0])
    losses = []
    for m, dev in ((cpu_model, "cpu"), (model, "cuda")):
        opt = cr.optim.Adam(m.parameters(), lr=0.01)
        for _ in range(3):
            opt.zero_grad()
            loss = cr.nn.functional.cross_entropy(
                m(cr.tensor(x, device=dev)), cr.tensor(t, device=dev)
            )
            loss.backward()
            opt.step()
        losses.append(loss.item())
        state = opt.state[next(iter(m.parameters()))]
        assert state["exp_avg"].device == next(iter(m.parameters())).device
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)
    model.cpu()
    assert all(not p.is_cuda for p in model.parameters())


def test_a_lenet_step_on_cuda_matches_the_cpu():
    F = cr.nn.functional
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 1, 12, 12)).astype(np.float32)
    w = rng.standard_normal((3, 1, 3, 3)).astype(np.float32)
    grads = []
    for dev in ("cpu", "cuda"):
        wt = cr.tensor(w, device=dev, requires_grad=True)
        h = F.max_pool2d(F.relu(F.conv2d(cr.tensor(x, device=dev), wt)), 2)
        F.cross_entropy(h.flatten(1), cr.tensor([0, 1, 2, 3], device=dev)).backward()
        grads.append(host(wt.grad))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_a_recurrent_step_on_cuda_matches_the_cpu(cls):
    """The whole-layer ops (their forward and backward written on preallocated arrays, in
    place) run on the device's arrays: both directions, both dtypes."""
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal((5, 2, 3)).astype(dtype)
        grads = []
        for dev in ("cpu", "cuda"):
            cr.manual_seed(0)
            mod = getattr(cr.nn, cls)(3, 4, bidirectional=True).to(dev, cr.from_numpy(x).dtype)
            out, _ = mod(cr.tensor(x, device=dev))
            (out * out).sum().backward()
            grads.append([host(out)] + [host(p.grad) for p in mod.parameters()])
        for a, b in zip(*grads):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_cuda_queries():
    assert cr.cuda.is_available() and cr.cuda.device_count() >= 1
    assert cr.cuda.current_device() == 0 and cr.cuda.is_initialized()
    assert isinstance(cr.cuda.get_device_name(), str)
    cr.cuda.synchronize()
    cr.cuda.manual_seed(0)
    cr.cuda.manual_seed_all(0)
    x = cr.ones(1000, device="cuda")
    assert cr.cuda.max_memory_allocated() >= cr.cuda.memory_allocated() >= 0
    del x
    cr.cuda.empty_cache()
    start, end = cr.cuda.Event(enable_timing=True), cr.cuda.Event(enable_timing=True)
    start.record()
    cr.ones(10, device="cuda").sum()
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 0.0


def test_against_torch_on_its_device():
    """The same computation with PyTorch (on CUDA where it has it)."""
    dev = "cuda" if torch.cuda.is_available() and not standin() else "cpu"
    a = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    ours = cr.tensor(a, device="cuda", requires_grad=True)
    theirs = torch.tensor(a, device=dev, requires_grad=True)
    for lib, x in ((cr, ours), (torch, theirs)):
        lib.nn.functional.gelu(x).pow(2).sum().backward()
    np.testing.assert_allclose(host(ours.grad), theirs.grad.cpu().numpy(), rtol=1e-5)


def test_a_saved_cuda_tensor_loads_onto_the_cpu_with_map_location(tmp_path):
    path = tmp_path / "t.pt"
    cr.save({"w": cr.arange(6.0, device="cuda").reshape(2, 3)}, path)
    back = cr.load(path, map_location="cpu")["w"]
    assert back.device == cr.device("cpu") and back.tolist() == [[0, 1, 2], [3, 4, 5]]
    theirs = torch.load(path, map_location="cpu")["w"]  # PyTorch reads the file too
    assert theirs.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_a_saved_cuda_tensor_loads_back_onto_cuda_sharing_its_storage(tmp_path):
    path = tmp_path / "t.pt"
    w = cr.arange(6.0, device="cuda").reshape(2, 3)
    cr.save({"w": w, "row": w[1], "host": cr.ones(2)}, path)
    for map_location, host in ((None, "cpu"), ({"cpu": "cpu"}, "cpu"), ("cuda", CUDA0)):
        back = cr.load(path, map_location=map_location)
        assert back["w"].device == CUDA0 and back["row"].device == CUDA0
        assert back["host"].device == cr.device(host)
        assert back["w"].tolist() == [[0, 1, 2], [3, 4, 5]] and back["row"].tolist() == [3, 4, 5]
        back["w"][1, 0] = 30.0  # the view reads the same storage on the device, as saved
        assert back["row"].tolist() == [30, 4, 5]
    onto_cpu = cr.load(path, map_location={"cuda:0": "cpu"})
    assert onto_cpu["w"].device == cr.device("cpu") and onto_cpu["row"].tolist() == [3, 4, 5]
    missing = f"cuda:{cr.cuda.device_count()}"
    with pytest.raises(RuntimeError, match=r"torch\.cuda\.device_count\(\) is"):
        cr.load(path, map_location={"cuda:0": missing})


def test_the_accelerator_is_cuda():
    assert cr.accelerator.is_available() and cr.accelerator.device_count() >= 1
    assert cr.accelerator.current_accelerator() == cr.device("cuda")


def test_func_hessians_and_custom_functions_on_cuda_give_the_cpu_s_values():
    """torch.func's Jacobians stack their rows where the function's tensors are, and a
    custom Function's missing gradients and tangents are zeros made there."""

    class Cube(cr.autograd.Function):
        @staticmethod
        def forward(x):
            return x**3, x * 2  # (the second output gets no gradient: zeros are made)

        @staticmethod
        def backward(ctx, g, g2):
            (x,) = ctx.saved_tensors
            return 3 * x**2 * g + 2 * g2

        @staticmethod
        def jvp(ctx, t):
            return 3 * ctx.x**2 * t, 2 * t

        @staticmethod
        def setup_context(ctx, inputs, output):
            (ctx.x,) = inputs
            ctx.save_for_backward(*inputs)

    a = np.array([0.5, -1.0, 2.0])
    results = []
    for dev in ("cpu", "cuda"):
        x = cr.tensor(a, device=dev)
        h = cr.func.jacfwd(cr.func.jacrev(lambda v: (v.sin() * v).sum()))(x)
        j = cr.func.jacrev(lambda v: Cube.apply(v)[0])(x)
        t = cr.func.jvp(lambda v: Cube.apply(v)[0], (x,), (cr.ones_like(x),))[1]
        assert h.device == j.device == t.device == x.device
        results.append((host(h), host(j), host(t)))
    for ours, cpu in zip(results[1], results[0], strict=True):
        np.testing.assert_allclose(ours, cpu, rtol=1e-12)


def test_repeat_interleave_takes_its_counts_on_the_host_as_cupy_needs():
    # CuPy's repeat refuses counts in a device array (the stand-in too): they are read back
    x = cr.arange(3.0, device="cuda", requires_grad=True)
    counts = cr.tensor([1, 2, 0], device="cuda")
    y = cr.repeat_interleave(x, counts)
    y.backward(cr.tensor([1.0, 2.0, 3.0], device="cuda"))
    assert y.is_cuda and x.grad.is_cuda
    np.testing.assert_array_equal(host(y), [0.0, 1.0, 1.0])
    np.testing.assert_array_equal(host(x.grad), [1.0, 5.0, 0.0])
    np.testing.assert_array_equal(host(cr.repeat_interleave(counts)), [0, 1, 1])


def test_advanced_index_gradients_with_host_indices_land_on_cuda():
    # pack_padded_sequence and pad_sequence index with host arrays; their backward adds
    # into zeros on the device (CuPy's ufunc.at takes no host indices): the CPU's values
    from chainrule.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

    results = []
    for dev in ("cpu", "cuda"):
        cr.manual_seed(0)
        x = cr.randn(5, 3, 4).to(dev).requires_grad_()
        lstm = cr.nn.LSTM(4, 6).to(dev)
        packed = pack_padded_sequence(x, cr.tensor([5, 3, 2]))
        y, _ = pad_packed_sequence(lstm(packed)[0])
        seqs = [x[:3, 0], x[:2, 1]]
        (y.sum() + pad_sequence(seqs).pow(2).sum()).backward()
        assert x.grad.device.type == dev and lstm.weight_hh_l0.grad.device.type == dev
        results.append((host(x.grad), host(lstm.weight_hh_l0.grad)))
    for ours, cpu in zip(results[1], results[0], strict=True):
        np.testing.assert_allclose(ours, cpu, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("how", ["default device", "device=", ".to"])
def test_lazy_modules_materialize_on_their_device(how):
    # as PyTorch's: the placeholder is made on the device given (or the default one) and
    # moved by Module.to; its first forward gives it data there
    def make(cls, *args):
        if how == "device=":
            return cls(*args, device="cuda")
        if how == ".to":
            return cls(*args).to("cuda")
        with cr.device("cuda"):
            return cls(*args)

    x = cr.randn(2, 3, 5, 5, device="cuda")
    for module, inp in (
        (make(cr.nn.LazyLinear, 4), x[:, 0, 0]),
        (make(cr.nn.LazyConv2d, 4, 3), x),
        (make(cr.nn.LazyBatchNorm2d), x),
    ):
        out = module(inp)
        assert out.is_cuda
        for t in list(module.parameters()) + list(module.buffers()):
            assert t.is_cuda, (type(module).__name__, t.shape)


@pytest.mark.parametrize("lengths", ["tensors", "lists"])
@pytest.mark.parametrize("targets", ["padded", "concatenated"])
def test_ctc_loss_on_cuda_gives_the_cpu_s_loss_and_gradient(lengths, targets):
    results = []
    for dev in ("cpu", "cuda"):
        cr.manual_seed(0)
        lp = cr.randn(6, 2, 4).log_softmax(2).to(dev).requires_grad_()
        tg = cr.tensor([[1, 2, 3], [2, 1, 0]])
        tg = tg if targets == "padded" else cr.tensor([1, 2, 3, 2, 1])
        il, tl = [6, 5], [3, 2]
        if lengths == "tensors":
            il, tl = cr.tensor(il, device=dev), cr.tensor(tl, device=dev)
        loss = cr.nn.functional.ctc_loss(lp, tg.to(dev), il, tl)
        loss.backward()
        assert loss.device.type == dev and lp.grad.device.type == dev
        results.append((host(loss), host(lp.grad)))
    for ours, cpu in zip(results[1], results[0], strict=True):
        np.testing.assert_allclose(ours, cpu, rtol=1e-6, atol=1e-7)


def test_integer_average_pooling_on_cuda_truncates_as_on_the_cpu():
    # the divisor is made on the host: it joins the sums on the device
    x = cr.arange(-16, 16).reshape(1, 2, 4, 4)
    for kwargs in ({}, {"divisor_override": 3}, {"padding": 1, "count_include_pad": False}):
        cpu = cr.nn.functional.avg_pool2d(x, 2, **kwargs)
        ours = cr.nn.functional.avg_pool2d(x.to("cuda"), 2, **kwargs)
        assert ours.is_cuda and ours.dtype == cr.int64
        np.testing.assert_array_equal(host(ours), host(cpu))


def test_pack_padded_sequence_takes_its_lengths_on_the_cpu_as_torch():
    from chainrule.nn.utils.rnn import pack_padded_sequence

    x = cr.randn(4, 2, 3, device="cuda")
    with pytest.raises(RuntimeError) as err:
        pack_padded_sequence(x, cr.tensor([4, 2], device="cuda"))
    assert str(err.value) == (
        "'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor"
    )
    with cr.device("cuda"):  # a list becomes CPU lengths whatever the default device
        packed = pack_padded_sequence(x, [2, 4], enforce_sorted=False)
    assert packed.data.is_cuda and packed.batch_sizes.device.type == "cpu"
    assert packed.sorted_indices.is_cuda
    np.testing.assert_array_equal(host(packed.batch_sizes), [2, 2, 1, 1])
