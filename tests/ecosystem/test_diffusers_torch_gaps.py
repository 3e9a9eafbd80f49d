"""The PyTorch names diffusers reaches for, against PyTorch: ``torch.Stream`` and
``torch.Event`` on the CPU (diffusers annotates its offloading hooks with them),
``torch.get_device_module`` (its device backend proxy), ``torch.distributed.device_mesh``
as an attribute of ``torch.distributed``, and FSDP's ``CPUOffload``, ``ShardingStrategy``,
``BackwardPrefetch`` and the auto-wrap policies of ``torch.distributed.fsdp.wrap`` (its
training utilities import them)."""

from __future__ import annotations

import warnings
from collections import OrderedDict

import numpy as np
import pytest

import chainrule as cr
from oracle import assert_same_error

torch = pytest.importorskip("torch")
from torch.distributed.fsdp import wrap as torch_wrap  # noqa: E402

from chainrule.distributed.fsdp import wrap as cr_wrap  # noqa: E402


@pytest.mark.parametrize(
    "make",
    [
        lambda t: t.Stream("cpu"),
        lambda t: t.Stream(),
        lambda t: t.Stream(device="cpu", priority=1),
        lambda t: t.Stream("meta"),
        lambda t: t.Stream(stream_id=3, device_type=0, device_index=0),
        lambda t: t.Stream(stream_id=3, device_type=9, device_index=0),
        lambda t: t.Event("cpu"),
        lambda t: t.Event(enable_timing=True),
    ],
)
def test_stream_and_event_repr(make) -> None:
    assert repr(make(cr)) == repr(make(torch))


def test_stream_and_event_queries() -> None:
    for lib in (cr, torch):
        stream, event = lib.Stream("cpu"), lib.Event("cpu")
        assert stream.query() and event.query()
        assert stream.synchronize() is None and event.synchronize() is None
        assert event.wait(stream) is None and stream.wait_event(event) is None
        assert not stream.is_capturing()
        assert (stream.device_type, stream.device_index, stream.stream_id) == (0, -1, 0)
        assert stream == lib.Stream("cpu") and hash(stream) == hash(lib.Stream("cpu"))
        assert str(stream.device) == "cpu" and str(event.device) == "cpu"
        assert event.event_id == 0
        assert lib.Stream("meta").device_type == 14 and stream != lib.Stream("meta")
    ours = cr.Stream(stream_id=3, device_type=0, device_index=0)
    theirs = torch.Stream(stream_id=3, device_type=0, device_index=0)
    assert str(ours.device) == str(theirs.device) == "cpu:0"


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.Stream("cpu").record_event(),
        lambda t: t.Stream("cpu").wait_stream(t.Stream("cpu")),
        lambda t: t.Event("cpu").record(),
        lambda t: t.Event("cpu").record(t.Stream("cpu")),
        lambda t: t.Event("cpu").elapsed_time(t.Event("cpu")),
        lambda t: t.Event("cpu", enable_timing=True).elapsed_time(t.Event(enable_timing=True)),
        lambda t: t.Event("cpu").ipc_handle(),
        lambda t: t.Stream("cpu").native_handle,
        lambda t: t.Stream("cuda"),
        lambda t: t.Event("cuda:0"),
        lambda t: t.Stream(1),
    ],
)
def test_stream_and_event_refusals(call) -> None:
    assert_same_error(call)


@pytest.mark.parametrize("device", [None, "cpu", "cuda", "cuda:0"])
def test_get_device_module(device) -> None:
    for arg in (device, None if device is None else cr.device(device)):
        assert cr.get_device_module(arg).__name__ == "chainrule." + torch.get_device_module(
            device
        ).__name__.removeprefix("torch.")


@pytest.mark.parametrize("device", ["meta", "xla", "foo", 3])
def test_get_device_module_refusals(device) -> None:
    assert_same_error(lambda t: t.get_device_module(device))


def test_device_mesh_is_an_attribute() -> None:
    assert cr.distributed.device_mesh.DeviceMesh is cr.distributed.DeviceMesh
    assert cr.distributed.init_device_mesh is cr.distributed.device_mesh.init_device_mesh
    with pytest.raises(NotImplementedError, match="DeviceMesh"):
        cr.distributed.init_device_mesh("cpu", (1,))


def test_fsdp_settings() -> None:
    fsdp, tfsdp = cr.distributed.fsdp, torch.distributed.fsdp
    for name in ("ShardingStrategy", "BackwardPrefetch"):
        ours, theirs = getattr(fsdp, name), getattr(tfsdp, name)
        assert [(m.name, m.value) for m in ours] == [(m.name, m.value) for m in theirs]
        assert list(ours.__members__) == list(theirs.__members__)
    assert fsdp.CPUOffload() == fsdp.CPUOffload(offload_params=False)
    assert repr(fsdp.CPUOffload(True)) == "CPUOffload(offload_params=True)"
    assert tfsdp.CPUOffload(True).offload_params == fsdp.CPUOffload(True).offload_params


def _modules(lib):
    nn = lib.nn
    return [
        nn.Linear(300, 300),
        nn.Linear(2, 2),
        nn.MultiheadAttention(4, 2),
        nn.ModuleList([nn.Linear(300, 300)]),
        nn.TransformerEncoderLayer(4, 2, 8),
    ]


@pytest.mark.parametrize("recurse", [True, False])
def test_auto_wrap_policies(recurse) -> None:
    cases = [
        ("always_wrap_policy", {}),
        ("lambda_auto_wrap_policy", {"lambda_fn": None}),
        ("transformer_auto_wrap_policy", {"transformer_layer_cls": None}),
        ("size_based_auto_wrap_policy", {"min_num_params": 1000}),
        ("size_based_auto_wrap_policy", {"min_num_params": 10}),
        ("size_based_auto_wrap_policy", {"min_num_params": 10, "force_leaf_modules": set()}),
    ]
    for name, kwargs in cases:
        got, want = [], []
        for lib, mod, out in ((cr, cr_wrap, got), (torch, torch_wrap, want)):
            extra = dict(kwargs)
            if "lambda_fn" in extra:
                extra["lambda_fn"] = lambda m, lib=lib: isinstance(m, lib.nn.Linear)
            if "transformer_layer_cls" in extra:
                extra["transformer_layer_cls"] = {lib.nn.TransformerEncoderLayer}
            for module in _modules(lib):
                numel = sum(p.numel() for p in module.parameters())
                out.append(getattr(mod, name)(module, recurse, numel, **extra))
        assert got == want, name


def test_out_of_memory_error_class() -> None:
    assert issubclass(cr.OutOfMemoryError, RuntimeError)
    assert issubclass(torch.OutOfMemoryError, RuntimeError)
    assert cr.cuda.OutOfMemoryError is cr.OutOfMemoryError
    assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
    with pytest.raises(cr.OutOfMemoryError, match="out of memory"):
        raise cr.cuda.OutOfMemoryError("out of memory")


def test_get_accelerator() -> None:
    want = torch._C._get_accelerator()
    if torch.accelerator.is_available() or cr.accelerator.is_available():
        pytest.skip("compares the CPU-only answer")
    assert cr._C._get_accelerator() == cr.device(want.type)
    assert str(cr._C._get_accelerator()) == str(want) == "cpu"


def _resampler(lib):
    """A module whose forward interpolates in every exportable mode, and builds a range
    from keyword bounds (as diffusers' timestep embedding does)."""
    F = lib.nn.functional

    class Resample(lib.nn.Module):
        def forward(self, x):
            x1, x3 = x[:, :, 0], x[:, :, None]
            steps = lib.arange(start=0, end=3, dtype=lib.float32) + lib.arange(0, end=3)
            return (
                F.interpolate(x, scale_factor=2.0, mode="nearest") * steps.sum(),
                F.interpolate(x, size=(5, 4), mode="nearest"),
                F.interpolate(x, scale_factor=2.0, mode="bilinear"),
                F.interpolate(x, size=5, mode="bicubic", align_corners=True),
                F.interpolate(
                    x, scale_factor=1.5, mode="nearest-exact", recompute_scale_factor=True
                ),
                F.interpolate(x1, scale_factor=2, mode="linear"),
                F.interpolate(x3, scale_factor=(1, 2, 2), mode="trilinear"),
                F.interpolate(x1, size=7),
            )

    return Resample()


def _calls(program) -> list:
    return [
        (str(n.target).replace("aten::", "aten."), [a for a in n.args if not hasattr(a, "op")])
        for n in program.graph.nodes
        if n.op == "call_function" and "upsample" in str(n.target)
    ]


def test_export_writes_interpolate_as_pytorch(tmp_path) -> None:
    x = np.random.default_rng(0).standard_normal((1, 2, 3, 3)).astype(np.float32)
    want = torch.export.export(_resampler(torch), (torch.tensor(x),))
    got = cr.export.export(_resampler(cr), (cr.tensor(x),))
    assert _calls(got) == _calls(want)
    for ours, theirs in zip(got.module()(cr.tensor(x)), want.module()(torch.tensor(x))):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-6)
    torch.export.save(want, tmp_path / "resample.pt2")
    loaded = cr.export.load(tmp_path / "resample.pt2").module()
    for ours, theirs in zip(loaded(cr.tensor(x)), want.module()(torch.tensor(x))):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-6)


class _CrOutput(OrderedDict):
    """A model output class (a dict subclass, as diffusers' and transformers' are)."""


class _TorchOutput(OrderedDict):
    """The same for PyTorch (each library registers its own class)."""


def _registered_output(lib):
    """A module returning a dict subclass registered as a pytree node (as diffusers and
    transformers register their output classes)."""
    Output = _CrOutput if lib is cr else _TorchOutput
    name = f"test_gaps.{Output.__name__}"
    pytree = lib.utils._pytree
    pytree.register_pytree_node(
        Output,
        pytree._dict_flatten,
        lambda values, context: Output(pytree._dict_unflatten(values, context)),
        serialized_type_name=name,
    )

    class Net(lib.nn.Module):
        def forward(self, x):
            return Output(sample=x * 2, other=x + 1)

    return Net(), Output


def test_export_keeps_registered_outputs() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for lib in (cr, torch):
        net, output = _registered_output(lib)
        out = lib.export.export(net, (lib.tensor(x),)).module()(lib.tensor(x))
        assert type(out) is output and list(out) == ["sample", "other"]
        np.testing.assert_array_equal(out["sample"].numpy(), x * 2)
    # (torch.jit.trace giving such outputs as dicts: test_diffusers.py's trace_and_export)


def test_inductor_mark_step() -> None:
    """diffusers' ControlNet pipelines call it on every step when the models are compiled
    (chainrule's compiled models run eagerly: there are no CUDA graphs to mark)."""
    import chainrule._inductor as inductor

    before = inductor._mark_step_counter
    assert cr._inductor.cudagraph_mark_step_begin() is None
    with warnings.catch_warnings():  # (importing PyTorch's warns of torch.jit deprecations)
        warnings.simplefilter("ignore", DeprecationWarning)
        import torch._inductor

        assert torch._inductor.cudagraph_mark_step_begin() is None
    assert inductor._mark_step_counter == before - 1
    with pytest.raises(NotImplementedError, match="torch._inductor"):
        getattr(cr._inductor, "standalone_compile")  # noqa: B009 - the lookup is the test
