"""``DataParallel`` and ``data_parallel``: one process, the batch split over the GPUs.

``DataParallel(module)`` keeps ``module`` as its ``.module`` (so its ``state_dict`` keys
start with ``module.``). Without CUDA it calls the module directly, as PyTorch does on a
CPU-only build. With CUDA and several devices, each forward scatters the inputs along
``dim`` (chunks y_i of the batch, one per device), replicates the module onto each device,
applies replica i to y_i and gathers the outputs back on ``output_device``: the forward is
the module applied to the whole batch, and the gradients flow back through the copies to
the module's own parameters (d loss/d w = sum over the replicas of their gradients).

chainrule differs from PyTorch in one way: the replicas run one after another in this
thread (PyTorch runs one thread per device). The numbers are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any

from ... import cuda
from ..._tensor import Tensor, device
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel", "gather", "parallel_apply", "replicate", "scatter"]


def _device_index(d: Any) -> int:
    """The CUDA index of ``d`` (an int, 'cuda:i' or a device); 'cpu' is refused as
    PyTorch's ``_get_device_index(d, optional=True)`` refuses it."""
    if isinstance(d, int):
        return d
    d = device(d)
    if d.type == "cpu":
        raise ValueError(f"Expected a non cpu device, but got: {d}")
    return cuda.current_device() if d.index is None else d.index


def _cuda(index: int) -> device:
    return device("cuda", index)


def _accelerated(t: Tensor) -> bool:
    return t.device.type != "cpu"


def _is_namedtuple(obj: Any) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def scatter(inputs: Any, target_gpus: Sequence[Any], dim: int = 0) -> Any:
    """Split each tensor in ``inputs`` into ``len(target_gpus)`` chunks along ``dim``, chunk i
    on device i; other objects are repeated. One element per device (fewer when a tensor has
    fewer rows than devices). The chunks are differentiable copies: the gradient of the
    whole tensor is the concatenation of the chunks' gradients."""
    indices = [_device_index(d) for d in target_gpus]

    def split(obj: Any) -> Any:
        if isinstance(obj, Tensor):
            chunks = obj.chunk(len(indices), dim)
            return tuple(c.to(_cuda(i)) for c, i in zip(chunks, indices))
        if _is_namedtuple(obj):
            return [type(obj)(*parts) for parts in zip(*map(split, obj))]
        if isinstance(obj, tuple) and obj:
            return list(zip(*map(split, obj)))
        if isinstance(obj, list) and obj:
            return [list(parts) for parts in zip(*map(split, obj))]
        if isinstance(obj, dict) and obj:
            return [type(obj)(parts) for parts in zip(*map(split, obj.items()))]
        return [obj for _ in indices]

    return split(inputs)


def _scatter_kwargs(
    inputs: tuple, kwargs: dict | None, target_gpus: Sequence[Any], dim: int = 0
) -> tuple[tuple, tuple]:
    """``scatter`` for the positional and the keyword arguments, padded to the same length."""
    scattered = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kw = scatter(kwargs, target_gpus, dim) if kwargs else []
    scattered.extend(() for _ in range(len(scattered_kw) - len(scattered)))
    scattered_kw.extend({} for _ in range(len(scattered) - len(scattered_kw)))
    return tuple(scattered), tuple(scattered_kw)


def gather(outputs: Any, target_device: Any, dim: int = 0) -> Any:
    """Concatenate the per-device ``outputs`` along ``dim`` on ``target_device`` (-1: the CPU);
    the gradient of each part is its slice of the gradient of the whole."""

    def join(parts: Sequence[Any]) -> Any:
        first = parts[0]
        if isinstance(first, Tensor):
            if not all(_accelerated(p) for p in parts):
                raise AssertionError("Gather function not implemented for CPU tensors")
            where = device("cpu") if target_device == -1 else _cuda(_device_index(target_device))
            from ... import cat

            return cat([p.to(where) for p in parts], dim)
        if first is None:
            return None
        if isinstance(first, dict):
            if not all(len(first) == len(p) for p in parts):
                raise ValueError("All dicts must have the same number of keys")
            return type(first)((k, join([p[k] for p in parts])) for k in first)
        if _is_namedtuple(first):
            return type(first)._make(map(join, zip(*parts)))
        return type(first)(map(join, zip(*parts)))

    return join(outputs)


def _replica(module: Module, where: device, detach: bool, memo: dict) -> Module:
    """A shallow copy of ``module`` (and its submodules) whose parameters and buffers are
    copies on ``where``: differentiable copies of the parameters unless ``detach``."""
    if id(module) in memo:
        return memo[id(module)]
    maker = getattr(module, "_replicate_for_data_parallel", None)
    copy = maker() if maker is not None else _shallow(module)
    memo[id(module)] = copy
    params = {}
    for name, p in module._parameters.items():
        q = None if p is None else p.to(where)
        params[name] = q.detach() if detach and q is not None else q
    object.__setattr__(copy, "_parameters", params)
    bufs = {n: None if b is None else b.to(where) for n, b in module._buffers.items()}
    object.__setattr__(copy, "_buffers", bufs)
    children = {
        n: None if m is None else _replica(m, where, detach, memo)
        for n, m in module._modules.items()
    }
    object.__setattr__(copy, "_modules", children)
    return copy


def _shallow(module: Module) -> Module:
    copy = object.__new__(type(module))
    copy.__dict__.update(module.__dict__)
    return copy


def replicate(network: Module, devices: Sequence[Any], detach: bool = False) -> list[Module]:
    """One copy of ``network`` per device, its tensors moved there (see ``_replica``)."""
    wheres = [_cuda(_device_index(d)) for d in devices]
    return [_replica(network, w, detach, {}) for w in wheres]


def parallel_apply(
    modules: Sequence[Module],
    inputs: Sequence[Any],
    kwargs_tup: Sequence[dict] | None = None,
    devices: Sequence[Any] | None = None,
) -> list[Any]:
    """``[modules[i](*inputs[i], **kwargs_tup[i])]``, one after another (PyTorch: one
    thread per module)."""
    if len(modules) != len(inputs):
        raise AssertionError(
            f"The number of modules {len(modules)} is not equal to the number of inputs "
            f"{len(inputs)}"
        )
    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    kwargs_tup = kwargs_tup if kwargs_tup is not None else ({},) * len(modules)
    results = []
    for module, args, kwargs in zip(modules, inputs, kwargs_tup):
        args = args if isinstance(args, (list, tuple)) else (args,)
        results.append(module(*args, **kwargs))
    return results


def _check_on(module: Module, src: device) -> None:
    for t in chain(module.parameters(), module.buffers()):
        if t.device != src:
            raise RuntimeError(
                "module must have its parameters and buffers "
                f"on device {src} (device_ids[0]) but found one of "
                f"them on device: {t.device}"
            )


def _run(
    module: Module, inputs: tuple, kwargs: dict | None, ids: list[int], out: int, dim: int
) -> Any:
    """Scatter, replicate, apply, gather (the module alone for one device)."""
    _check_on(module, _cuda(ids[0]))
    inputs, kwargs = _scatter_kwargs(inputs, kwargs, ids, dim)
    if not inputs and not kwargs:
        inputs, kwargs = ((),), ({},)
    if len(ids) == 1:
        return module(*inputs[0], **kwargs[0])
    used = ids[: len(inputs)]
    from ...autograd.grad_mode import is_grad_enabled

    replicas = replicate(module, used, not is_grad_enabled())
    return gather(parallel_apply(replicas, inputs, kwargs, used), out, dim)


class DataParallel(Module):
    """``module`` applied to the batch split along ``dim`` over ``device_ids`` (all GPUs by
    default), outputs gathered on ``output_device`` (default ``device_ids[0]``). Without
    CUDA, ``forward`` is ``module.forward``: ``device_ids`` is empty."""

    def __init__(
        self,
        module: Module,
        device_ids: Sequence[Any] | None = None,
        output_device: Any = None,
        dim: int = 0,
    ) -> None:
        super().__init__()
        if not cuda.is_available():
            self.module = module
            self.device_ids: list[int] = []
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_device_index(d) for d in device_ids]
        self.output_device = _device_index(output_device)
        self.src_device_obj = _cuda(self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        return _run(self.module, inputs, kwargs, self.device_ids, self.output_device, self.dim)


def data_parallel(
    module: Module,
    inputs: Any,
    device_ids: Sequence[Any] | None = None,
    output_device: Any = None,
    dim: int = 0,
    module_kwargs: dict | None = None,
) -> Any:
    """``DataParallel(module, device_ids, output_device, dim)(*inputs, **module_kwargs)`` as a
    function; it needs CUDA (PyTorch: "device type could not be determined" without)."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    if not cuda.is_available():
        raise RuntimeError("device type could not be determined")
    if device_ids is None:
        device_ids = list(range(cuda.device_count()))
    if output_device is None:
        output_device = device_ids[0]
    ids = [_device_index(d) for d in device_ids]
    return _run(module, inputs, module_kwargs, ids, _device_index(output_device), dim)
