"""chainrule: PyTorch's autograd on NumPy, with an engine you can read.

``import chainrule as torch`` runs scripts written for PyTorch's tutorials.
"""

from __future__ import annotations

from math import e, inf, nan, pi  # noqa: E402, F401  (torch.e, torch.inf, torch.nan, torch.pi)

from . import (  # noqa: E402, F401
    _dtypes,  # noqa: E402
    accelerator,  # torch.accelerator: none
    api,  # noqa: E402
    autograd,
    backends,  # torch.backends: flags and availability
    cuda,  # torch.cuda as a CPU-only build has it
    distributed,  # torch.distributed on MPI (mpi4py imported only by init_process_group)
    explain,  # noqa: E402, F401  (callable: chainrule.explain(y, v))
    func,  # torch.func's transforms
    linalg,  # torch.linalg
    nn,
    ops,  # noqa: E402, F401  (every op family: defines and registers the ops)
    optim,  # torch.optim: optimizers, lr schedulers, weight averaging
    serialization,  # torch.serialization: save and load in PyTorch's format
    special,  # torch.special
    utils,  # torch.utils: hooks, data
)
from ._creation import (  # noqa: E402, F401
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    frombuffer,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from ._determinism import (  # noqa: E402, F401
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    get_float32_matmul_precision,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    use_deterministic_algorithms,
)
from ._dtypes import (  # noqa: E402, F401
    bfloat16,
    bool,
    cdouble,
    cfloat,
    chalf,
    complex32,
    complex64,
    complex128,
    double,
    dtype,
    finfo,
    float,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    iinfo,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    promote_types,
    qint8,
    qint32,
    quint2x4,
    quint4x2,
    quint8,
    set_default_dtype,
    short,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._from_file import from_file  # noqa: E402, F401
from ._layout import (  # noqa: E402, F401
    _mkldnn,
    jagged,
    layout,
    sparse_bsc,
    sparse_bsr,
    sparse_coo,
    sparse_csc,
    sparse_csr,
    strided,
)
from ._memory_format import (  # noqa: E402, F401
    channels_last,
    channels_last_3d,
    contiguous_format,
    legacy_contiguous_format,
    memory_format,
    preserve_format,
)
from ._printing import get_printoptions, set_printoptions  # noqa: E402, F401
from ._random import (  # noqa: E402, F401
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
)
from ._tensor import (  # noqa: E402, F401
    Size,
    Tensor,
    device,
    get_default_device,
    set_default_device,
)
from ._threads import (  # noqa: E402, F401
    get_num_interop_threads,
    get_num_threads,
    init_num_threads,
    set_num_interop_threads,
    set_num_threads,
)
from .autograd import forward_ad  # noqa: E402, F401  (needs the ops, so imported last)
from .autograd.anomaly_mode import (  # noqa: E402, F401
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from .autograd.grad_mode import (  # noqa: E402, F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .func import vmap  # noqa: E402, F401  (torch.vmap is torch.func.vmap)
from .serialization import load, save  # noqa: E402, F401
from .serialization.safetensors import load_safetensors, save_safetensors  # noqa: E402, F401

# chainrule.*, the Tensor methods and operators, chainrule.linalg, chainrule.special and
# chainrule.nn.functional, from the name table (api/table.py)
api.install()

from . import multiprocessing as _multiprocessing  # noqa: E402  (how tensors cross processes)
from . import torch_version as _torch_version  # noqa: E402
from .utils import data as _utils_data  # noqa: E402  (torch.utils.data, after the ops)

del _utils_data, _multiprocessing

# chainrule's own release, and the PyTorch release whose API it follows: programs written
# for PyTorch branch on ``torch.__version__`` (a TorchVersion, compared as a version), so it
# names that release, with chainrule's release as the local part: 2.13.0+chainrule.0.1.0
_RELEASE = "0.1.0"
_PYTORCH_API = "2.13.0"
__version__ = _torch_version.TorchVersion(f"{_PYTORCH_API}+chainrule.{_RELEASE}")


def is_tensor(obj: object) -> bool:
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    return input.numel()


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


# torch's functions of sparse tensors (chainrule/sparse, loaded on first use)
_SPARSE_FUNCTIONS = (
    "sparse_coo_tensor sparse_csr_tensor sparse_csc_tensor sparse_compressed_tensor smm hspmm "
    "hsmm dsmm spmm sspaddmm saddmm"
).split()


_CHECKS = ("_check", "_check_index", "_check_value", "_check_type", "_check_not_implemented")
_CHECKS += ("_check_is_size", "_check_tensor_all", "_assert_async")

# torch's quantization names (chainrule/_quantized.py, chainrule/_fake_quantize.py)
_QUANTIZED_NAMES = (
    "quantize_per_tensor quantize_per_channel dequantize int_repr q_scale q_zero_point "
    "q_per_channel_scales q_per_channel_zero_points q_per_channel_axis qscheme "
    "per_tensor_affine per_channel_affine per_tensor_symmetric per_channel_symmetric "
    "per_channel_affine_float_qparams fake_quantize_per_tensor_affine "
    "fake_quantize_per_channel_affine quantize_per_tensor_dynamic _choose_qparams_per_tensor"
).split()


# this package's own name: under ``chainrule run`` its ``__name__`` reads "torch" (as
# PyTorch's), and the lazy imports below go by the package's own name, not the hook's alias
_PACKAGE = "chainrule"


def __getattr__(name: str):
    lazy = ("testing", "distributions", "random", "cpu", "compiler", "profiler", "storage")
    lazy += ("signal", "version", "types", "jit", "multiprocessing", "fft", "_C", "sparse")
    lazy += ("futures", "masked", "hub", "fx", "nested", "library", "__config__", "onnx")
    lazy += ("export", "_dynamo", "_inductor")
    lazy += ("quasirandom", "monitor")  # (torch.quasirandom, torch.monitor)
    lazy += ("_tensor_str",)  # (torch._tensor_str: print options, values text)
    lazy += ("_guards", "_utils", "_functorch")  # (private modules libraries reach for)
    lazy += ("_higher_order_ops",)  # (control flow: cond, while_loop, scan, map)
    if name in lazy:  # (loaded on first use)
        import importlib

        return importlib.import_module(f"{_PACKAGE}.{name}")
    if name == "torch":  # (torch.torch is the torch module itself, as in PyTorch)
        import sys

        return sys.modules[_PACKAGE]
    if name == "_subclasses":  # (torch._subclasses: no fake tensors here)
        import importlib

        return importlib.import_module(f"{_PACKAGE}._subclasses")
    if name in _CHECKS:  # (torch._check and its family, torch._assert_async: chainrule/_checks.py)
        import importlib

        return getattr(importlib.import_module(f"{_PACKAGE}._checks"), name)
    if name in ("SymInt", "SymFloat", "SymBool"):  # (chainrule/_symbolic.py)
        import importlib

        return getattr(importlib.import_module(f"{_PACKAGE}._symbolic"), name)
    if name == "from_dlpack":  # (torch.from_dlpack: chainrule/utils/dlpack.py)
        from .utils.dlpack import from_dlpack

        return from_dlpack
    if name == "_assert":  # (torch._assert: an assert torch.fx records; chainrule/fx)
        from .fx.graph import _assert

        return _assert
    if name in ("_convert_indices_from_coo_to_csr", "_convert_indices_from_csr_to_coo"):
        from .sparse import _convert  # (row indices <-> compressed row pointers)

        return getattr(_convert, name)
    if name in _SPARSE_FUNCTIONS:  # (sparse tensors: chainrule/sparse)
        from .sparse import _tensor

        return _tensor.public(name)
    if name in ("UntypedStorage", "TypedStorage", "StorageBase"):
        from . import storage

        return getattr(storage, name)
    if name in ("PyTorchFileReader", "ScriptModule", "ScriptObject"):  # (torch._C's)
        from . import _C

        return getattr(_C, name)
    if name.startswith("_foreach_"):  # (torch._foreach_add_ ...: chainrule/_foreach.py)
        from . import _foreach

        return _foreach.get(name)
    if name in ("ao", "quantization"):  # (torch.ao, torch.quantization: chainrule/ao)
        import importlib

        return importlib.import_module(f"{_PACKAGE}.{name}")
    if name in _QUANTIZED_NAMES:  # (quantized tensors, fake quantization: _quantized.py ...)
        from . import _fake_quantize, _quantized  # (by chainrule's name: "qscheme" is a class)

        return getattr(_fake_quantize if "fake_quant" in name else _quantized, name)
    if name == "get_device_module":  # (torch.get_device_module: torch.cpu, torch.cuda)
        from ._device_module import get_device_module

        return get_device_module
    if name == "OutOfMemoryError":  # (torch.OutOfMemoryError: a device allocator's)
        from ._device_errors import OutOfMemoryError

        return OutOfMemoryError
    if name in ("Stream", "Event"):  # (torch.Stream, torch.Event: host ones)
        from . import _streams

        return getattr(_streams, name)
    if name == "Future":  # (torch.Future: the class of torch.futures.Future's futures)
        from .jit._future import Future

        return Future
    if name == "typename":  # (torch.typename: 'torch.FloatTensor', a class's dotted path)
        from .nn.modules.module import typename

        return typename
    if name in ("cond", "while_loop"):  # (torch.cond, torch.while_loop: control flow)
        from . import _higher_order_ops

        return getattr(_higher_order_ops, name)
    if name == "compile":  # torch.compile: compiled code runs eagerly here
        from .compiler import compile

        return compile
    if name == "set_vital":  # (PyTorch 2.13's: deprecated, warns and records nothing)
        import warnings

        warnings.warn(f"'{name}' is deprecated, please do not call", stacklevel=2)
        return lambda *args: None
    if name in ("amp", "autocast", "is_autocast_enabled", "get_autocast_dtype") or name in (
        "set_autocast_dtype",
        "set_autocast_enabled",
    ):
        import importlib  # (torch.amp, its autocast and state queries)

        amp = importlib.import_module(f"{_PACKAGE}.amp")
        return amp if name == "amp" else getattr(amp, name)
    from chainrule._missing import (
        missing,
    )  # (absolute: under `chainrule run` these modules are also torch.*)

    raise missing("torch", name)
