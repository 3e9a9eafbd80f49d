"""The Tensor: an array from the backend, plus what autograd needs to know about it.

Here are its fields, its metadata and its conversions to Python and NumPy, nothing
else. Ops are defined in ``chainrule/ops/``; the methods and operators that run them
(``x.exp()``, ``x + y``, ``x.to(...)``, ``x.backward()``) are attached to this class from
the name table (``chainrule/api/``). How in-place writes, views and forward-mode
tangents are recorded is in ``chainrule/autograd/``.
"""

from __future__ import annotations

import copy
import numbers
import warnings
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from . import _backend, _dtypes, _import_hook, _layout, _memory_format, _meta, _modes
from ._backend import ndarray
from ._dtypes import dtype as DType
from ._meta import MetaArray
from ._modes import state as _mode
from .utils.hooks import RemovableHandle

_new = object.__new__


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key: Any) -> Any:  # an int, or a Size for a slice
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other: tuple) -> Size:
        return Size(tuple(self) + tuple(other))


class device:  # noqa: N801 - PyTorch's spelling
    """Where a tensor lives. Any of PyTorch's device types can be named; chainrule's
    tensors live on one, the CPU (allocating elsewhere raises, as a CPU build of PyTorch
    does)."""

    __slots__ = ("type", "index")

    def __init__(self, type: str | device = "cpu", index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            if _backend.module_of_device("cuda") is None:
                raise RuntimeError(NO_ACCELERATOR)
            type, index = "cuda", type  # an index names a device of the accelerator
        name, colon, idx = str(type).partition(":")
        if name not in DEVICE_TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device "
                f"string: {type}"
            )
        if colon and not (idx.isdigit() and idx.isascii()):
            raise RuntimeError(f"Invalid device string: '{type}'")
        self.type = name
        self.index = int(idx) if idx else index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        # (a device equals devices only: torch.device("cpu") == "cpu" is False, as in PyTorch)
        return isinstance(other, device) and other.type == self.type and other.index == self.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __enter__(self) -> device:
        """``with torch.device("meta"):``: the factories' default device inside."""
        check_device(self)
        _device_stack.append(_meta.set_default(None if self.type == "cpu" else self))
        return self

    def __exit__(self, *exc: Any) -> None:
        _meta.set_default(_device_stack.pop())


DEVICE_TYPES = (
    "cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta "
    "hpu mtia privateuseone"
).split()


_device_type = device
NO_ACCELERATOR = "Cannot access accelerator device when none is available."

# The error a CPU-only build of PyTorch raises for a device it was built without: the
# accelerators with a Python module assert, the others are not linked in.
NOT_COMPILED = {"cuda": "CUDA", "xpu": "XPU"}

_device_stack: list[Any] = []  # the default devices the ``with device(...)`` blocks replaced


def device_error(where: device) -> BaseException:
    """PyTorch's error (a CPU-only build) for allocating on a device other than the CPU."""
    if where.type in NOT_COMPILED:
        return AssertionError(f"Torch not compiled with {NOT_COMPILED[where.type]} enabled")
    return RuntimeError(f"PyTorch is not linked with support for {where.type} devices")


def check_device(dev: Any) -> None:
    """Raise unless ``dev`` (a device, its name, or None for the default device) is the
    CPU or the meta device (``_meta.py``), with the error a CPU-only build of PyTorch
    raises for the device named."""
    if dev is None:
        dev = _meta.default_device()
        if dev is None:
            return
    if dev == "cpu":
        return
    where = dev if isinstance(dev, device) else device(dev)
    if where.type not in ("cpu", "meta"):
        if where.type == "cuda" and _backend.module_of_device("cuda") is not None:
            return
        raise device_error(where)


def device_of_array(arr: Any) -> device:
    """The device an array lives on: the CPU, the meta device, or a GPU ('cuda:0')."""
    t = type(arr)
    if t is ndarray:
        return _CPU
    if t is MetaArray:
        return _META
    kind = _backend.device_type(arr)
    if kind == "cpu":
        return _CPU
    return device(kind, int(arr.device.id))


def mixed_devices(a: device, b: device) -> RuntimeError:
    """PyTorch's error for an op whose tensors live on two devices."""
    return RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{a} and {b}!"
    )


def move(t: Tensor, where: device) -> Tensor:
    """``t`` copied onto the device ``where`` (itself when it is there already), in the graph:
    the gradient flows back to ``t``'s device (``copies.to_device``)."""
    from .autograd.registry import op

    if device_of_array(t._data) == where:
        return t
    return op("to_device")(t, device=where.type, source=_backend.device_type(t._data))


_CPU = device("cpu")
_META = device("meta")


def set_default_device(device: str | device | int | None) -> None:
    """Make ``device`` the one tensors are created on: the CPU (``'cpu'``, ``'cpu:0'``,
    a ``device``), the meta device, or None for the CPU again; any other raises
    PyTorch's error for it. (The default lives in ``_meta``, which the factories read.)"""
    if device is None:
        _meta.set_default(None)
        return
    where = device if isinstance(device, _device_type) else _device_type(device)
    if where.type == "cuda" and where.index is None:
        check_device(where)  # PyTorch's error without CUDA
    elif where.type not in ("cpu", "meta", "cuda") and where.index is None:
        # PyTorch asks the accelerator for its current index, and a CPU-only build has none
        raise device_error(where)
    _meta.set_default(None if where == _CPU else where)


def get_default_device() -> device:
    """The device tensors are created on (the CPU unless ``set_default_device`` or a
    ``with device(...)`` block says otherwise)."""
    return _meta.default_device() or _CPU


def _no_data(t: Tensor, what: str) -> None:
    """PyTorch's errors for reading a meta tensor's values, which it does not have."""
    if type(t._data) is MetaArray:
        if what == "item":
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        if what == "numpy":
            raise TypeError(
                "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the "
                "tensor to host memory first."
            )
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")


_WARNED_FLOAT: list = []  # float() of a tensor requiring grad warned already (once)
# the leaves whose grad_dtype was set: id -> (a weak reference, the dtype or None); the
# engine casts their gradients to it (autograd/engine.py), and reads this only when set
GRAD_DTYPES: dict = {}


def _make(
    data: ndarray,
    dtype: DType,
    requires_grad: bool = False,
    grad_fn: Any = None,
    output_nr: int = 0,
    vc: list[int] | None = None,
) -> Tensor:
    """Build a Tensor around ``data`` without checks: the engine's and ops' fast path."""
    t = _new(Tensor)
    t._data = data
    t._dtype = dtype
    t._requires_grad = requires_grad
    t._grad_fn = grad_fn
    t._output_nr = output_nr
    t._grad = None
    # (inside inference_mode a new tensor is an inference tensor: its counter says so; the
    # thread-local mode is read only while some thread is in inference mode)
    if vc is None and _inference_contexts and _mode.inference:
        vc = InferenceCounter((0, -1))
    t._vc = vc
    t._acc = None
    t._retains_grad = False
    t._hooks = None
    t._post_hooks = None
    t._view = None
    return t


# how many inference_mode contexts are open, in any thread (grad_mode keeps it): while 0,
# making a tensor reads nothing more than this global
_inference_contexts = 0

# called with each Tensor subclass once defined (multiprocessing registers its reduction)
SUBCLASS_HOOKS: list = []

# nn.Parameter once nn is imported (nn/parameter.py sets it): the one subclass the
# specialised entries (autograd/entries.py) take as a plain tensor, checked after Tensor
PARAMETER: list = [None]


def _inference_opened(n: int) -> None:
    """inference_mode's entry (+1) and exit (-1)."""
    global _inference_contexts
    _inference_contexts += n
    _modes.mark("inference", _inference_contexts > 0)


def _grad_enabled() -> bool:
    return _mode.enabled


class InferenceCounter(list):
    """The version counter of an inference tensor (made under ``inference_mode``): the
    machinery may bump it, but no version can be read from it, and a tensor holding it can
    be neither saved for backward nor written in place outside inference mode. Views of an
    inference tensor share it, so they are inference tensors too, as in PyTorch."""

    __slots__ = ()


INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead "
    "of `torch.inference_mode()`."
)


def check_inference_write(t: Tensor) -> None:
    """PyTorch's refusal to write into an inference tensor outside inference mode."""
    if t._vc.__class__ is InferenceCounter and not _mode.inference:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed."
            "You can make a clone to get a normal tensor before doing inplace update."
            "See https://github.com/pytorch/rfcs/pull/17 for more details."
        )


def _counter(t: Tensor) -> list[int]:
    """The tensor's version counter, made on first need (views and saves share it). The
    node that made ``t`` is told: if it saved ``t`` (its output) when t had no counter, it
    checks this one from now on (``Node._counter_made``)."""
    vc = t._vc
    if vc is None:
        # [version, version after the last in-place op recorded in a graph]
        vc = t._vc = [0, -1]
        if t._grad_fn is not None:
            t._grad_fn._counter_made(t, vc)
    return vc


def wrap(data: Any) -> Tensor:
    """A Tensor around a backend array (or scalar), its dtype read off the array."""
    if type(data) is not ndarray:
        data = _backend.asanyarray(data)  # (a MetaArray or a device array stays one)
    return _make(data, _dtypes.from_numpy_dtype(data.dtype))


class Tensor:
    """A multi-dimensional array that can record the operations applied to it."""

    __slots__ = (
        "_data",  # the backend array
        "_dtype",  # chainrule dtype
        "_requires_grad",
        "_grad_fn",  # the Node that made this tensor (None for leaves)
        "_output_nr",  # which output of _grad_fn this tensor is
        "_grad",
        "_vc",  # version counter: a one-element list shared with views, or None (version 0)
        "_acc",  # weak reference to this leaf's AccumulateGrad node
        "_retains_grad",
        "_hooks",  # gradient hooks on a leaf
        "_post_hooks",  # hooks run after a leaf's .grad is updated (None: none yet)
        "_fw",  # forward-mode tangent; set only inside a dual level (read with getattr)
        "_view",  # for a view: (base, ((op, params), ...) from base to view, version), else None
        "_cf_version",  # for an input a custom Function returned as-is: the version then (getattr)
        "__weakref__",
        "__dict__",  # attributes code sets on a tensor, as on PyTorch's (made on first use)
    )

    # (``Tensor(2, 3)``, the legacy constructor, is installed with the methods: api/)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    # ----- subclasses (chainrule/overrides.py) ---------------------------------------

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass that does not opt out of ``__torch_function__`` turns dispatch on;
        the legacy constructor (``Sub([1, 2])``) makes instances of it."""
        super().__init_subclass__(**kwargs)
        legacy = Tensor.__new__
        if cls.__new__ is legacy:

            def __new__(sub: type, *args: Any, **kwargs: Any) -> Any:  # noqa: N807
                return _retype(legacy(sub, *args, **kwargs), sub)

            cls.__new__ = staticmethod(__new__)  # type: ignore[method-assign,assignment]
        from . import overrides

        if not getattr(cls, "_dispatch_when_made", False):  # (else: _retype turns it on)
            overrides._class_defined(cls)
        for hook in SUBCLASS_HOOKS:
            hook(cls)

    @classmethod
    def __torch_function__(
        cls, func: Callable, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        """Run ``func`` and return its tensors as ``cls`` (``overrides.default_torch_function``)."""
        from . import overrides

        return overrides.default_torch_function(cls, func, types, args, kwargs)

    def as_subclass(self, cls: type) -> Any:
        """This tensor as an instance of the Tensor subclass ``cls``: the same memory, and in
        the graph as an alias of it (``AliasBackward0``), as PyTorch's."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(
                "Creating a Tensor subclass from a class that does not inherit from Tensor is "
                "not possible. Make sure your class inherits from Tensor."
            )
        from .autograd.registry import op

        alias = op("getitem")(self, key=Ellipsis)  # a view of all of it: AliasBackward0
        return alias if cls is Tensor else _retype(alias, cls)

    @staticmethod
    def _make_subclass(cls: type, data: Tensor, require_grad: bool = False, **kwargs: Any) -> Any:
        """A new leaf of the Tensor subclass ``cls`` sharing ``data``'s memory (detached), as
        a subclass's ``__new__`` makes its instances."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(
                "Creating a Tensor subclass from a class that does not inherit from Tensor is "
                "not possible. Make sure your class inherits from Tensor."
            )
        t = _retype(_make(data._data, data._dtype, vc=_counter(data)), cls)
        return t.requires_grad_(require_grad) if require_grad else t

    @staticmethod
    def _make_wrapper_subclass(cls: type, *args: Any, **kwargs: Any) -> Any:
        """A wrapper subclass instance (no storage; its ops go to ``__torch_dispatch__``):
        not in chainrule, which has no ATen-level dispatch (NotImplementedInChainrule)."""
        from ._missing import NotImplementedInChainrule

        raise NotImplementedInChainrule(
            f"torch.Tensor._make_wrapper_subclass (making {getattr(cls, '__name__', cls)}): "
            "chainrule has no __torch_dispatch__ (ATen-level dispatch), so wrapper tensor "
            "subclasses cannot be made; use plain tensors instead"
        )

    # ----- autograd attributes -------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if value.__class__ is not bool:
            raise RuntimeError("requires_grad must be a bool")
        if self._grad_fn is not None and value:  # (requires_grad_(True) lets it pass)
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        if value and self._dtype._category < 2:  # (the setter's words, not requires_grad_'s)
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
            )
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place on a leaf; returns self."""
        if requires_grad.__class__ is not bool:
            raise TypeError(
                "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                f"{type(requires_grad).__name__}"
            )
        if self._grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to "
                "use a computed variable in a subgraph that doesn't require differentiation "
                "use var_no_grad = var.detach()."
            )
        if requires_grad and self._dtype._category < 2:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._vc.__class__ is InferenceCounter and not _mode.inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                "allowed."
            )
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad_fn(self) -> Any:  # a Node of autograd/graph.py, or None
        fn = self._grad_fn
        made_at = getattr(self, "_cf_version", None) if fn is not None else None
        if made_at is not None and made_at != self._vc[0]:
            raise RuntimeError(
                f"Output {self._output_nr} of {_node_name(fn)} is a view and its "
                "base or another view of its base has been modified inplace. This view was "
                "created inside a custom Function (or because an input was returned as-is) and "
                "the autograd logic to handle view+inplace would override the custom backward "
                "associated with the custom Function, leading to incorrect gradients. This "
                "behavior is forbidden. You can fix this by cloning the output of the custom "
                "Function."
            )
        return fn

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    def _is_view(self) -> bool:
        """Whether this tensor is a view of another (its ``_base``)."""
        return self._view is not None

    @property
    def _base(self) -> Tensor | None:
        """The tensor this one is a view of (PyTorch's ``_base``), None for one that is not."""
        view = self._view
        return None if view is None else view[0]

    @property
    def grad_dtype(self) -> DType | None:
        """The dtype of this leaf's ``.grad`` (its own unless set; None: any dtype)."""
        entry = GRAD_DTYPES.get(id(self))
        return self._dtype if entry is None else entry[1]

    @grad_dtype.setter
    def grad_dtype(self, value: DType | None) -> None:
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if id(self) not in GRAD_DTYPES:
            weakref.finalize(self, GRAD_DTYPES.pop, id(self), None)
        GRAD_DTYPES[id(self)] = (
            weakref.ref(self),
            None if value is None else _dtypes.to_dtype(value),
        )

    @property
    def grad(self) -> Tensor | None:
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                "mistake, make sure you access the leaf Tensor instead. See "
                "github.com/pytorch/pytorch/pull/30531 for more information.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    "assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a "
                    f"tensor of size '{list(self.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size"
                )
            entry = GRAD_DTYPES.get(id(self)) if GRAD_DTYPES else None
            want = self._dtype if entry is None else entry[1]
            if want is not None and value._dtype is not want:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype "
                    f"'{_dtypes.type_meta_name(value._dtype)}' to a tensor with grad_dtype "
                    f"'{want.scalar_name}'. The gradient must match the tensor's grad_dtype "
                    "(defaults to the tensor's dtype). You can set the tensor's grad_dtype "
                    "attribute with a specific dtype, or None to allow any dtype. Set "
                    "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient "
                    "may break downstream systems that assume they match."
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` during backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        self._grad_fn._retain(self._output_nr, weakref.ref(self))

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a new one."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is None:
            if self._hooks is None:
                self._hooks = {}
            return RemovableHandle(self._hooks, hook)
        return self._grad_fn._tensor_pre_hook(self._output_nr, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        """Call ``hook(self)`` after backward has accumulated into this leaf's ``.grad``."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if getattr(self, "_post_hooks", None) is None:
            self._post_hooks = {}
        return RemovableHandle(self._post_hooks, hook)

    # ----- data views ------------------------------------------------------------

    @property
    def data(self) -> Tensor:
        """A tensor sharing this one's memory, detached from the graph (no version tracking)."""
        if self._vc.__class__ is InferenceCounter:  # (still an inference tensor)
            return _make(self._data, self._dtype, vc=InferenceCounter((0, -1)))
        return _make(self._data, self._dtype)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            kind = type(value)
            name = kind.__name__ if kind.__module__ == "builtins" else kind.__qualname__
            if kind.__module__ == "numpy":
                name = f"numpy.{name}"
            raise TypeError(f"Variable data has to be a tensor, but got {name}")
        if self._requires_grad and not (value._dtype.is_floating_point or value._dtype.is_complex):
            raise RuntimeError(
                "data set to a tensor that requires gradients must be floating point or "
                "complex dtype"
            )
        self._data = value._data
        self._dtype = value._dtype

    def detach(self) -> Tensor:
        """A new leaf sharing memory (and the version counter) with this tensor."""
        return _make(self._data, self._dtype, vc=_counter(self))

    def detach_(self) -> Tensor:
        """Detach in place: this tensor becomes a leaf that does not require grad."""
        if self._view is not None and not self.is_inference():  # (any view, as PyTorch)
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def _cdata(self) -> int:
        """An integer naming this tensor, as PyTorch's (the address of its C++ tensor, one
        per Python tensor object): equal for the same tensor object only."""
        return id(self)

    @property
    def _version(self) -> int:
        vc = self._vc
        if vc is None:
            return 0
        if vc.__class__ is InferenceCounter:
            raise RuntimeError("Inference tensors do not track version counter.")
        return vc[0]

    def _bump(self) -> None:
        check_inference_write(self)
        _counter(self)[0] += 1

    def is_inference(self) -> bool:
        """Whether this tensor was made under ``inference_mode`` (or is a view of one that was)."""
        return self._vc.__class__ is InferenceCounter

    # ----- metadata --------------------------------------------------------------

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None) -> Size | int:
        if dim is None:
            return Size(self._data.shape)
        if self._data.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def device(self) -> device:
        return device_of_array(self._data)

    @property
    def is_meta(self) -> bool:
        return type(self._data) is MetaArray

    @property
    def is_cuda(self) -> bool:
        return _backend.device_type(self._data) == "cuda"

    @property
    def is_maia(self) -> bool:
        return False  # (no MAIA device)

    @property
    def is_cpu(self) -> bool:
        return self.device.type == "cpu"

    def _false(self) -> bool:
        return False

    # devices chainrule has none of, and tensor kinds it has none of (MKL-DNN, quantized)
    is_mps = is_xpu = is_ipu = is_mtia = is_vulkan = is_xla = property(_false)
    is_mkldnn = is_quantized = property(_false)
    del _false

    def to_dense(self, dtype: DType | None = None, *, masked_grad: bool = True) -> Tensor:
        """self (every chainrule tensor is strided: dense already), cast to ``dtype``."""
        return self if dtype is None or dtype is self._dtype else self.to(dtype)

    @property
    def layout(self) -> Any:
        return _layout.strided

    @property
    def is_sparse(self) -> bool:
        return False  # (a sparse COO tensor is chainrule/sparse's subclass)

    @property
    def is_sparse_csr(self) -> bool:
        return False

    @property
    def is_nested(self) -> bool:
        return False  # (a nested tensor is chainrule/nested's subclass)

    def __dlpack__(self, **kwargs: Any) -> Any:
        """The tensor's memory as a DLPack capsule, for another library (utils/dlpack.py)."""
        from .utils.dlpack import tensor_dlpack

        return tensor_dlpack(self, **kwargs)

    def __dlpack_device__(self) -> tuple:
        from .utils.dlpack import tensor_dlpack_device

        return tensor_dlpack_device(self)

    def to_sparse(self, sparse_dim: int | None = None, **kwargs: Any) -> Tensor:
        """The sparse COO tensor of this tensor's nonzero elements (chainrule/sparse)."""
        from .sparse import _tensor

        return _tensor.to_sparse(self, sparse_dim, **kwargs)

    def to_sparse_coo(self, sparse_dim: int | None = None) -> Tensor:
        return self.to_sparse(sparse_dim)

    def to_sparse_csr(self, dense_dim: int | None = None) -> Tensor:
        """The CSR tensor of this 2-D tensor's nonzero elements (chainrule/sparse)."""
        from .sparse import _compressed

        return _compressed.to_sparse_csr(self)

    def to_sparse_csc(self, dense_dim: int | None = None) -> Tensor:
        from .sparse import _compressed

        return _compressed.to_sparse_csc(self)

    def smm(self, mat2: Tensor) -> Tensor:
        raise RuntimeError("tensor.sspaddmm(...) can only be called on sparse tensors")

    def sspaddmm(self, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        raise RuntimeError("tensor.sspaddmm(...) can only be called on sparse tensors")

    def is_set_to(self, tensor: Tensor) -> bool:
        """Whether both are views of the same memory with the same offset, size and strides."""
        a, b = self._data, tensor._data
        return (
            type(a) is type(b) is ndarray
            and a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
            and a.shape == b.shape
            and a.strides == b.strides
            and self._dtype is tensor._dtype
        )

    def sparse_mask(self, mask: Tensor) -> Tensor:
        """This tensor's elements at the sparse tensor ``mask``'s indices, as a sparse one."""
        if not mask.is_sparse:
            raise RuntimeError("sparse_mask expects mask to be sparse COO, got strided")
        from .sparse import _ops

        return _ops.sparse_mask(self, mask)

    def dim(self) -> int:
        return self._data.ndim

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def ndimension(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_signed(self) -> bool:
        """Whether the dtype holds negative values (every one but uint8 and bool)."""
        return self._dtype.is_signed

    def is_contiguous(self, memory_format: Any = None) -> bool:
        """Whether the strides are row-major, or those of ``memory_format``."""
        if memory_format is None:
            return bool(self._data.flags.c_contiguous)
        return _memory_format.is_contiguous_as(self._data, memory_format)

    def stride(self, dim: int | None = None) -> tuple[int, ...] | int:
        if self._data.size or any(self._data.strides):  # (a view of a non-empty array)
            strides = tuple(s // self._data.itemsize for s in self._data.strides)
        else:  # (NumPy gives a new empty array zero strides: PyTorch's are row-major, 0 as 1)
            strides, step = (), 1
            for n in reversed(self._data.shape):
                strides, step = (step, *strides), step * max(n, 1)
        return strides if dim is None else strides[_wrap_dim(dim, self._data.ndim)]

    def data_ptr(self) -> int:
        return _backend.address(self._data)

    # ----- conversion to Python and NumPy ----------------------------------------

    def item(self) -> int | float | bool:
        _no_data(self, "item")
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self) -> Any:
        _no_data(self, "copy")
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> ndarray:
        """The backend array itself (shared memory); refused for a tensor that requires grad
        while grad mode is on (as PyTorch: under no_grad it is allowed)."""
        if self._requires_grad and not force and _grad_enabled():
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead."
            )
        _no_data(self, "copy" if force else "numpy")
        if self._dtype._reduced:  # (bfloat16, float8: NumPy has none; PyTorch's error)
            raise TypeError(f"Got unsupported ScalarType {self._dtype.scalar_name}")
        if type(self._data) is not ndarray and type(self._data) is not MetaArray:
            if not force:
                raise TypeError(
                    f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() "
                    "to copy the tensor to host memory first."
                )
            return _backend.to_host(self._data)
        return self._data

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> ndarray:
        _no_data(self, "numpy")
        if self._requires_grad and _grad_enabled():  # (numpy()'s first check, as PyTorch's)
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead."
            )
        if self._dtype._reduced and dtype is None:  # (as numpy())
            raise TypeError(f"Got unsupported ScalarType {self._dtype.scalar_name}")
        if type(self._data) is not ndarray and type(self._data) is not MetaArray:
            self.numpy()  # PyTorch's TypeError for a tensor on a device
        if dtype is None:
            return self._data
        return self._data.astype(dtype, copy=False)

    def __array_wrap__(
        self, array: ndarray, context: Any = None, return_scalar: bool = False
    ) -> Tensor:
        """A NumPy ufunc's result on tensors, back as a tensor sharing its memory
        (``np.exp(t)``); boolean results come back as uint8, as PyTorch's do."""
        if array.dtype == bool:
            array = array.astype("uint8")
        return _make(array, _dtypes.from_numpy_dtype(array.dtype))

    def _scalar(self, kind: str) -> Any:
        _no_data(self, "item")
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        value = self._data.reshape(()).item()
        if value.__class__ is complex and kind != "complex":  # int(z), float(z): z's real
            # part where z is real (PyTorch's error where it is not, or an int not finite)
            c_type = "int64_t" if kind == "int" else "double"
            finite = value.real - value.real == 0
            if value.imag != 0 or kind == "int" and not finite:
                raise RuntimeError(f"value cannot be converted to type {c_type} without overflow")
            value = value.real
        return value

    def __bool__(self) -> bool:
        _no_data(self, "item")
        if self._data.size != 1:
            many = "more than one value" if self._data.size else "no values"
            raise RuntimeError(f"Boolean value of Tensor with {many} is ambiguous")
        return bool(self._data.reshape(()))

    def __float__(self) -> float:
        if self._requires_grad and not _WARNED_FLOAT and _grad_enabled():  # (once, as PyTorch)
            _WARNED_FLOAT.append(True)
            warnings.warn(
                "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                "behavior.\nConsider using tensor.detach() first.",
                UserWarning,
                stacklevel=2,
            )
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __index__(self) -> int:
        if self._data.size != 1 or self._dtype._category > 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __reversed__(self) -> Tensor:
        """``reversed(t)``: t flipped along dim 0 (a 0-d tensor is itself)."""
        return self if self._data.ndim == 0 else self.flip(0)

    def __contains__(self, element: Any) -> bool:
        if not isinstance(element, (Tensor, int, float, complex, bool, numbers.Number)):
            raise RuntimeError(
                "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                f"{type(element)}."
            )
        value = element._data if isinstance(element, Tensor) else element
        return bool((self._data == value).any())

    __hash__ = object.__hash__

    def __reduce_ex__(self, protocol: Any) -> tuple:
        state = self.__dict__
        if state:  # (attributes set on the tensor travel with it, as PyTorch's do)
            return (_rebuild, (self._data, self._dtype.name, self._requires_grad), dict(state))
        return (_rebuild, (self._data, self._dtype.name, self._requires_grad))

    def __deepcopy__(self, memo: dict) -> Tensor:
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment.  If you were attempting to deepcopy a module, "
                "this may be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        t = _make(self._data.copy(), self._dtype, self._requires_grad)
        if self._grad is not None:
            t._grad = _make(self._grad._data.copy(), self._grad._dtype)
        memo[id(self)] = t
        if self.__dict__:
            t.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return t

    # ----- printing ----------------------------------------------------------------

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        from ._printing import format_meta, format_tensor

        if type(self._data) is MetaArray:  # no values: the device and the size instead
            text = format_meta(self._data.shape, self._print_suffixes())
        else:
            text = format_tensor(_backend.to_host(self._data), self._print_suffixes())
        cls = self.__class__
        if cls is not Tensor and not _import_hook.is_chainrule_module(cls.__module__):
            # a user's subclass prints its name where "tensor" is, as PyTorch's (the values
            # keep their place under it: the rows after the first move by the difference);
            # chainrule's own (Parameter, Buffer) print as tensors
            name = cls.__name__
            pad = "\n" + " " * (len(name) + 1)
            text = name + text[len("tensor") :].replace("\n" + " " * len("tensor("), pad)
        return text

    def _print_suffixes(self) -> list[str]:
        suffixes = []
        if type(self._data) is not ndarray and type(self._data) is not MetaArray:
            suffixes.append(f"device='{self.device}'")
        dt = self._dtype
        shown = (
            dt is _dtypes.get_default_dtype()
            or dt is _dtypes.int64
            or dt is _dtypes.bool
            # (printing's rule: complex128 with a float64 default, else complex64)
            or dt
            is (
                _dtypes.complex128
                if _dtypes.get_default_dtype() is _dtypes.float64
                else _dtypes.complex64
            )
        )
        if self._data.size == 0 or type(self._data) is MetaArray:
            shown = dt is _dtypes.get_default_dtype()
        if not shown:
            suffixes.append(f"dtype={dt!r}")
        if self._grad_fn is not None:
            try:  # PyTorch's: the node's class name (CopySlices, without torch::autograd::)
                name = type(self.grad_fn).__name__
            except RuntimeError:  # a custom Function's view, written in place since
                name = "Invalid"
            suffixes.append(f"grad_fn=<{name}>")
        elif self._requires_grad:
            suffixes.append("requires_grad=True")
        return suffixes

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0 and type(self._data) is not MetaArray:
            return format(self._data.item(), spec)
        return object.__format__(self, spec)

    # ----- names chainrule lacks ----------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        """Called only when normal lookup fails: a PyTorch method chainrule does not have
        gets the clear "not implemented" error that missing functions give."""
        if name[0] == "_":  # unset private slots (_fw, _post_hooks), dunder protocols
            raise AttributeError(f"'Tensor' object has no attribute '{name}'")
        from chainrule._missing import (
            missing,
        )  # (absolute: under `chainrule run` these modules are also torch.*)

        raise missing("torch.Tensor", name)

    # ----- device ------------------------------------------------------------------

    def cpu(self) -> Tensor:
        _no_data(self, "copy")
        return move(self, _CPU)

    def cuda(self, device: Any = None, non_blocking: bool = False, **kwargs: Any) -> Tensor:
        where = "cuda" if device is None else device
        if isinstance(where, int):
            where = f"cuda:{where}"
        check_device(where)
        return move(self, _device_type("cuda", 0))

    # ----- for type checkers only --------------------------------------------------

    if TYPE_CHECKING:
        # The methods and operators are attached at import from the name table
        # (api/table.py), where type checkers do not see them: here are their types.
        # Methods read as Any; tests/api/test_typing.py checks the operators against
        # the table's.

        def __add__(self, other: Any) -> Tensor: ...
        def __radd__(self, other: Any) -> Tensor: ...
        def __sub__(self, other: Any) -> Tensor: ...
        def __rsub__(self, other: Any) -> Tensor: ...
        def __mul__(self, other: Any) -> Tensor: ...
        def __rmul__(self, other: Any) -> Tensor: ...
        def __truediv__(self, other: Any) -> Tensor: ...
        def __rtruediv__(self, other: Any) -> Tensor: ...
        def __pow__(self, other: Any) -> Tensor: ...
        def __rpow__(self, other: Any) -> Tensor: ...
        def __matmul__(self, other: Any) -> Tensor: ...
        def __rmatmul__(self, other: Any) -> Tensor: ...
        def __mod__(self, other: Any) -> Tensor: ...
        def __rmod__(self, other: Any) -> Tensor: ...
        def __floordiv__(self, other: Any) -> Tensor: ...
        def __rfloordiv__(self, other: Any) -> Tensor: ...
        def __and__(self, other: Any) -> Tensor: ...
        def __rand__(self, other: Any) -> Tensor: ...
        def __or__(self, other: Any) -> Tensor: ...
        def __ror__(self, other: Any) -> Tensor: ...
        def __xor__(self, other: Any) -> Tensor: ...
        def __rxor__(self, other: Any) -> Tensor: ...
        def __lshift__(self, other: Any) -> Tensor: ...
        def __rlshift__(self, other: Any) -> Tensor: ...
        def __rshift__(self, other: Any) -> Tensor: ...
        def __rrshift__(self, other: Any) -> Tensor: ...
        def __neg__(self) -> Tensor: ...
        def __pos__(self) -> Tensor: ...
        def __abs__(self) -> Tensor: ...
        def __invert__(self) -> Tensor: ...
        def __eq__(self, other: Any) -> Tensor: ...  # type: ignore[override]
        def __ne__(self, other: Any) -> Tensor: ...  # type: ignore[override]
        def __lt__(self, other: Any) -> Tensor: ...
        def __le__(self, other: Any) -> Tensor: ...
        def __gt__(self, other: Any) -> Tensor: ...
        def __ge__(self, other: Any) -> Tensor: ...
        def __iadd__(self, other: Any) -> Tensor: ...
        def __isub__(self, other: Any) -> Tensor: ...
        def __imul__(self, other: Any) -> Tensor: ...
        def __itruediv__(self, other: Any) -> Tensor: ...
        def __ipow__(self, other: Any) -> Tensor: ...
        def __imod__(self, other: Any) -> Tensor: ...
        def __ifloordiv__(self, other: Any) -> Tensor: ...
        def __iand__(self, other: Any) -> Tensor: ...
        def __ior__(self, other: Any) -> Tensor: ...
        def __ixor__(self, other: Any) -> Tensor: ...
        def __ilshift__(self, other: Any) -> Tensor: ...
        def __irshift__(self, other: Any) -> Tensor: ...
        def __getitem__(self, key: Any) -> Tensor: ...
        def __setitem__(self, key: Any, value: Any) -> None: ...


_SLOTS = tuple(n for n in Tensor.__slots__ if n != "__weakref__")


def _retype(t: Tensor, cls: type) -> Any:
    """A new tensor just made, ``t``, as an instance of the subclass ``cls``: the same fields
    (for a tensor nothing else holds yet: its node and views know it by its fields)."""
    from . import overrides

    if not overrides._state.classes:  # (dispatch was reset since ``cls`` was defined)
        overrides._class_defined(cls)
    out = _new(cls)
    for name in _SLOTS:
        try:
            setattr(out, name, getattr(t, name))
        except AttributeError:  # a slot set only when needed (_fw, _cf_version)
            pass
    return out


def _wrap_dim(dim: int, ndim: int) -> int:
    """A dim in [-ndim, ndim) as a non-negative index, with PyTorch's IndexError otherwise."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def _rebuild(data: ndarray, dtype_name: str, requires_grad: bool) -> Tensor:
    """A pickled tensor, checked: a known dtype and an array of exactly that dtype."""
    dt = {d.name: d for d in _dtypes.ALL}.get(dtype_name) if isinstance(dtype_name, str) else None
    if dt is None:
        raise RuntimeError(f"cannot unpickle a tensor of unknown dtype {dtype_name!r}")
    if type(data) is not ndarray or data.dtype != dt.np:
        raise RuntimeError(
            f"cannot unpickle a tensor: expected an array of {dt}, got "
            f"{getattr(data, 'dtype', type(data).__name__)}"
        )
    t = _make(data, dt)
    if requires_grad is True:
        t.requires_grad_(True)
    return t


def _node_name(fn: Any) -> str:
    """A node's name as PyTorch's view errors write it: ``MulBackward0`` as ``Mul``."""
    name = fn.name()
    cut = name.rfind("Backward")
    return name[:cut] if cut > 0 else name
