"""Which ops autocast casts, and to what: PyTorch's CPU autocast lists, by chainrule op.

- lower precision: the op runs on its floating inputs cast to the autocast dtype;
- float32: the op runs on its float16 and bfloat16 inputs cast to float32;
- float64 inputs are never cast (PyTorch's "eligible" inputs are the other floating ones),
  and an op given an explicit ``dtype=`` is left alone.

PyTorch uses the same lists whichever the autocast dtype (bfloat16, the default, or
float16). PyTorch's third list, "promote" (cat, stack, index_copy), casts to the widest input
dtype, which is what cat's and stack's own type promotion gives: they need no entry here;
index_copy's parser, which refuses mixed dtypes outside autocast, promotes them inside.

The lists name chainrule's ops (``autograd.registry``), the primitives the public functions
call: ``F.linear`` is ``addmm`` or ``matmul``, ``F.conv*`` is ``convolution``. A public
function that PyTorch lists but chainrule composes from unlisted primitives (``l1_loss``,
``kl_div``, ``cross_entropy``, the embedding and margin losses, ``cdist``, ``quantile``) is
cast as a whole only where it is wrapped in ``runs_in_float32``; otherwise its pieces run in
the input dtype.

``activate`` installs ``cast_inputs`` as the recording's autocast hook
(``recording.AUTOCAST``) while some thread has autocast on: only then do ops consult it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .. import _dtypes
from .._modes import usual as _usual
from .._tensor import Tensor
from ..autograd import recording
from .autocast_mode import switches

LOWER_PRECISION = frozenset(
    {
        "mm",
        "matmul",
        "bmm",
        "baddbmm",
        "addmm",
        "addbmm",
        "convolution",  # conv1d/2d/3d, conv_transpose1d/2d/3d
        "prelu",
        "scaled_dot_product_attention",
        "lstm_layer",  # PyTorch's mkldnn_rnn_layer (nn.LSTM)
        "rnn_layer",  # nn.RNN: PyTorch's cell is linear's (the GRU's is not on a list)
    }
)

FLOAT32 = frozenset(
    {
        # losses
        "mse_loss",
        "huber_loss",
        "smooth_l1_loss",
        "nll_loss",
        "binary_cross_entropy",
        "binary_cross_entropy_with_logits",
        "soft_margin_loss",
        "multi_margin_loss",
        "multilabel_margin_loss",
        "ctc_loss",
        # reductions and linear algebra
        "prod",
        "trace",
        "cholesky",
        "cholesky_legacy",
        "inv",
        "qr_q",
        "qr_r",
        "svd_u",
        "svd_vh",
        "svdvals",
        "eigh_vectors",
        "eigvalsh",
        "solve",
        "lstsq",
        "geqrf_a",
        "geqrf_tau",
        # sampling, padding, pooling that PyTorch runs in float32 at every dimension
        "grid_sampler",
        "replication_pad",
        "max_unpool",
        "fractional_max_pool",
    }
)


# ops PyTorch runs in float32 at some spatial dimensions only: those dimensions (the op's
# ``taps`` hold one entry per spatial dimension; ``spatial`` is their number)
FLOAT32_AT = {
    "avg_pool": (3,),
    "adaptive_avg_pool": (3,),
    "max_pool": (3,),
    "adaptive_max_pool": (3,),
    "reflection_pad": (1, 2),
}


def _dimensions(params: dict) -> int | None:
    taps = params.get("taps")
    return len(taps) if taps is not None else params.get("spatial")


def runs_in_float32(function: Callable) -> Callable:
    """``function`` (a public function composed of several ops) run, inside a CPU autocast,
    on its floating inputs cast to float32 and with autocast off for the ops it is made of,
    as PyTorch's float32 list runs it as a whole (``F.cross_entropy``: its log_softmax in
    float32 too; ``linalg.lu_solve``: its products too). Outside, one flag read."""

    @functools.wraps(function)
    def in_float32(*args: Any, **kwargs: Any) -> Any:
        if _usual[0] or recording.AUTOCAST[0] is None or not switches.enabled["cpu"]:
            return function(*args, **kwargs)
        f32 = _dtypes.float32
        args = tuple(a.to(f32) if _eligible(a, f32) else a for a in args)
        kwargs = {k: v.to(f32) if _eligible(v, f32) else v for k, v in kwargs.items()}
        switches.enabled["cpu"] = False  # (this thread's: the inner ops run as they are)
        try:
            return function(*args, **kwargs)
        finally:
            switches.enabled["cpu"] = True

    return in_float32


def target(op_name: str, params: dict) -> Any:
    """The dtype autocast casts ``op_name``'s inputs to in this thread, or None."""
    if not switches.enabled["cpu"] or params.get("dtype") is not None:
        return None
    if op_name in LOWER_PRECISION:
        return switches.dtype["cpu"]
    if op_name in FLOAT32:
        return _dtypes.float32
    if op_name in FLOAT32_AT and _dimensions(params) in FLOAT32_AT[op_name]:
        return _dtypes.float32
    return None


def cast_early(op_name: str, *tensors: Any) -> tuple:
    """``tensors`` cast as autocast casts ``op_name``'s inputs, for a parser that checks
    their dtypes before the op runs (PyTorch's autocast casts before its checks)."""
    if _usual[0] or recording.AUTOCAST[0] is None:
        return tensors
    dtype = target(op_name, {})
    if dtype is None:
        return tensors
    return tuple(a.to(dtype) if _eligible(a, dtype) else a for a in tensors)


def _eligible(a: Any, dtype: Any) -> bool:
    """A floating tensor autocast casts: not float64, not already ``dtype``."""
    return (
        isinstance(a, Tensor)
        and a._dtype is not dtype
        and a._dtype._category == 2
        and a._dtype is not _dtypes.float64
    )


def cast_inputs(op: Any, args: tuple, params: dict) -> tuple[tuple, dict]:
    """(args, params) with the eligible inputs cast (recorded casts) as the policy says for
    ``op``; ``args`` itself when nothing is cast."""
    dtype = target(op.name, params)
    if dtype is None or not any(_eligible(a, dtype) for a in args):
        return args, params
    args = tuple(a.to(dtype) if _eligible(a, dtype) else a for a in args)
    if op.name == "scaled_dot_product_attention":
        # the probabilities F.scaled_dot_product_attention computed from the uncast inputs
        # are recomputed from the cast ones; a dropout mask follows the dtype
        mask = params.get("dropout_mask")
        if mask is not None:
            mask = mask.astype(dtype.np)
        params = {**params, "probabilities": None, "dropout_mask": mask}
    return args, params


def activate(on: bool) -> None:
    """Make ops consult ``cast_inputs`` (on) or not (off)."""
    recording.AUTOCAST[0] = cast_inputs if on else None
