"""Convolutions: ``convolution`` (PyTorch's aten::convolution, plain or transposed, every
dimensionality and groups), the weight's gradient ``convolution_weight``, and ``im2col`` /
``col2im`` (F.unfold and F.fold).

A convolution is bilinear: y = A(x, w). Its three contractions are one matrix product
each on x's sliding windows (``windows.correlate`` and its transposes): the output, the
input's gradient (a transposed convolution of g by w) and the weight's gradient (g against
x's windows). So each VJP and JVP here is again a convolution, and derivatives of any
order come from the same ops."""

from __future__ import annotations

import math

from .. import _memory_format, _threads
from .._backend import ndarray, xp
from ..autograd.recording import KEEP, array_of, defop
from . import depthwise, indexing, polyphase, reductions, shapes
from .windows import (
    add_windows,
    correlate,
    correlate_transpose,
    correlate_weight,
    out_size,
    pad_array,
    windows,
)

# ----- convolution -------------------------------------------------------------------------


def _convolution(
    x,
    weight,
    bias,
    stride=(1,),
    padding=(0,),
    dilation=(1,),
    transposed=False,
    output_padding=(0,),
    groups=1,
):
    """y[n, f, o] = bias[f] + Σ_{c,k} weight[f, c, k] · x[n, c, o·stride - padding +
    k·dilation] (x zero outside); transposed: the transpose of that map in x, applied to x"""
    y = _correlation(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    if x.ndim == 4 or (
        x.ndim == 5 and _channels_last_3d_kernel(x, weight, stride, dilation, transposed,
                                                 output_padding, groups)
    ):  # fmt: skip
        fmt = _memory_format.channels_last_of(x, weight)
        if fmt is not None:
            return _memory_format.as_format(y, fmt)
    if y.shape[0] == 1:
        return _memory_format.batch_of_one(y)
    return y


def _channels_last_3d_kernel(x, weight, stride, dilation, transposed, output_padding,
                             groups) -> bool:  # fmt: skip
    """Whether PyTorch's CPU kernel for this 3-d convolution keeps a channels-last layout:
    every 2-d kernel does (its output is channels-last when x or weight is), but of the 3-d
    ones only oneDNN's, which PyTorch picks for float32 (bfloat16, and complex64 as float32
    parts) where its size rules favour it; the others write row-major."""
    if x.dtype.name not in ("float32", "complex64", "bfloat16"):
        return False
    if _memory_format.channels_last_of(x, weight) is None:
        return False  # (before the rules below: the common case)
    return onednn_sizes(x.shape, weight.shape, stride, dilation, transposed, output_padding,
                        groups)  # fmt: skip


def onednn_sizes(x_shape, weight_shape, stride, dilation, transposed, output_padding,
                 groups) -> bool:  # fmt: skip
    """Whether PyTorch's CPU dispatch picks oneDNN for a float32 convolution of these
    sizes (a 1-d one runs as 2-d, of height 1): its size rules, and no output_padding
    reaching the stride."""
    if transposed and any(op >= s for op, s in zip(output_padding, stride)):
        return False
    if len(x_shape) == 3:
        x_shape, weight_shape = (
            (*x_shape[:2], 1, x_shape[2]),
            (*weight_shape[:2], 1, weight_shape[2]),
        )
    n, c, d, h = x_shape[:4]
    strided = any(s != 1 for s in stride) or any(k != 1 for k in dilation)
    if not (strided or n >= 16 or weight_shape[-1] != 1 or weight_shape[-2] != 1
            or _threads.get_num_threads() > 1):  # fmt: skip
        return False
    return (
        groups > 1
        or (weight_shape[-1] > 3 and weight_shape[-2] > 3)
        or n > 1
        or (n * c * d * h > 20480)
    )


def _correlation(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """``_convolution``'s values, laid out as the products leave them (row-major)."""
    strided = polyphase.applies(x, weight.shape[2:], stride, dilation)
    depthwise_case = depthwise.applies(x, weight.shape[1], weight.shape[0], stride, groups)
    if depthwise_case and weight.__class__ is ndarray:  # (F, Cg, *k) transposed or not
        y = _depthwise(
            x, weight, bias, stride, padding, dilation, transposed, output_padding, groups
        )
        if y is not None:
            return y
    if (not x.size or not weight.size) and x.__class__ is ndarray:
        return _empty_product(x, weight, bias, stride, padding, dilation, transposed,
                              output_padding, groups)  # fmt: skip
    if not transposed:  # (the bias inside the product)
        if strided:
            return polyphase.strided_correlate(x, weight, stride, padding, groups, bias)
        return correlate(x, weight, stride, padding, dilation, groups, bias)
    if strided:
        y = polyphase.strided_correlate_transpose(
            x, weight, stride, padding, groups, output_padding
        )
    else:
        y = correlate_transpose(x, weight, stride, padding, dilation, groups, output_padding)
    if bias is not None:
        y += bias.reshape((-1,) + (1,) * (y.ndim - 2))
    return y


def _empty_product(x, weight, bias, stride, padding, dilation, transposed, output_padding,
                   groups):  # fmt: skip
    """``_correlation`` where x or weight has no elements: every sum is empty, so y is the
    bias (or 0) at each output position."""
    kernel = weight.shape[2:]
    if transposed:
        channels = weight.shape[1] * groups
        size = [(n - 1) * s - 2 * p + d * (k - 1) + op + 1
                for n, s, p, d, k, op in zip(x.shape[2:], stride, padding, dilation, kernel,
                                             output_padding)]  # fmt: skip
    else:
        channels = weight.shape[0]
        size = [out_size(n, k, s, p, p, d)
                for n, k, s, p, d in zip(x.shape[2:], kernel, stride, padding, dilation)]  # fmt: skip
    y = xp.zeros((x.shape[0], channels, *size), dtype=x.dtype)
    if bias is not None:
        y += bias.reshape((-1,) + (1,) * len(size))
    return y


def _depthwise(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """``_convolution`` of a depthwise kind (``depthwise.applies``) by banded products, or
    None where those do not apply (non-finite values, rows the blocks cannot cut)."""
    if not transposed:
        return depthwise.correlate(x, weight, stride, padding, dilation, bias)
    size = [
        (o - 1) * s + d * (k - 1) + 1 + op - 2 * p
        for o, s, d, k, p, op in zip(
            x.shape[2:], stride, dilation, weight.shape[2:], padding, output_padding
        )
    ]
    y = depthwise.correlate_transpose(
        x, weight, stride, padding, dilation, (x.shape[0], groups, *size)
    )
    if y is not None and bias is not None:
        y += bias.reshape(-1, 1, 1)
    return y


def _shape(t) -> tuple:
    return tuple(array_of(t).shape)


def output_padding_for(size, out, kernel, stride, padding, dilation) -> tuple:
    """The output_padding with which the transposed convolution of an ``out``-sized input
    is ``size`` long: what the windows of the forward left unread at the end."""
    return tuple(
        n + 2 * p - ((o - 1) * s + d * (k - 1) + 1)
        for n, o, k, s, p, d in zip(size, out, kernel, stride, padding, dilation)
    )


def _narrow_to(t, shape):
    """t's leading block of ``shape``: a transposed convolution can read past the end."""
    if _shape(t) == tuple(shape):
        return t
    return indexing.getitem(t, key=tuple(slice(0, n) for n in shape))


def _input_grad(g, x_shape, weight, stride, padding, dilation, transposed, groups):
    """Jᵀg in x = the transposed convolution of g by weight (the convolution, when the
    forward was transposed)"""
    if transposed:
        gx = convolution(
            g, weight, None, stride=stride, padding=padding, dilation=dilation, groups=groups
        )
        return _narrow_to(gx, x_shape)
    fit = output_padding_for(
        x_shape[2:], _shape(g)[2:], _shape(weight)[2:], stride, padding, dilation
    )
    return convolution(
        g,
        weight,
        None,
        stride=stride,
        padding=padding,
        dilation=dilation,
        transposed=True,
        output_padding=fit,
        groups=groups,
    )


def _weight_grad(g, x, weight_shape, stride, padding, dilation, transposed, groups):
    """Jᵀg in weight = Σ over the batch and the positions of g times x's windows (with the
    roles of x and g swapped when the forward was transposed)"""
    input, grad_output = (g, x) if transposed else (x, g)
    return convolution_weight(
        input,
        grad_output,
        stride=stride,
        padding=padding,
        dilation=dilation,
        groups=groups,
        kernel_size=tuple(weight_shape[2:]),
    )


convolution = defop(
    "convolution",
    _convolution,
    args=("x", "weight", "bias"),
    dtypes=KEEP,
    node="ConvolutionBackward0",
    vjp=(
        _input_grad,
        _weight_grad,
        lambda g, stride: reductions.sum(
            g, dim=(0,) + tuple(range(2, 2 + len(stride)))
        ),  # ∂y/∂bias[f] = 1 at every y[n, f, o]: g summed over all dims but the channels
    ),
    jvp=(
        lambda t, weight, stride, padding, dilation, transposed, output_padding, groups: (
            convolution(
                t,
                weight,
                None,
                stride=stride,
                padding=padding,
                dilation=dilation,
                transposed=transposed,
                output_padding=output_padding,
                groups=groups,
            )
        ),  # J t = the convolution of t by weight (linear in x)
        lambda t, x, stride, padding, dilation, transposed, output_padding, groups: convolution(
            x,
            t,
            None,
            stride=stride,
            padding=padding,
            dilation=dilation,
            transposed=transposed,
            output_padding=output_padding,
            groups=groups,
        ),  # J t = the convolution of x by t (linear in weight)
        lambda t, stride: shapes.reshape(
            t, (-1,) + (1,) * len(stride)
        ),  # J t = t along the channels, the same at every position
    ),
    complex="holomorphic",  # (bilinear over the complex numbers: no conjugate taken)
)


def _convolution_weight(
    input, grad_output, stride=(1,), padding=(0,), dilation=(1,), groups=1, kernel_size=(1,)
):
    """gw[f, c, k] = Σ_{n,o} grad_output[n, f, o] · input[n, c, o·stride - padding +
    k·dilation]: a convolution's weight gradient"""
    if not (input.size and grad_output.size) and input.__class__ is ndarray:  # (empty sums)
        return xp.zeros((grad_output.shape[1], input.shape[1] // groups, *kernel_size),
                        dtype=input.dtype)  # fmt: skip
    if depthwise.applies(input, input.shape[1] // groups, grad_output.shape[1], stride, groups):
        gw = depthwise.correlate_weight(input, grad_output, stride, padding, dilation, kernel_size)
        if gw is not None:
            return gw
    if polyphase.applies(input, kernel_size, stride, dilation):
        return polyphase.strided_correlate_weight(
            input, grad_output, stride, padding, groups, kernel_size
        )
    return correlate_weight(input, grad_output, stride, padding, dilation, groups, kernel_size)


def _weight_input_grad(g, input_shape, grad_output, stride, padding, dilation, groups):
    """∂/∂input = the transposed convolution of grad_output by g"""
    fit = output_padding_for(
        input_shape[2:], _shape(grad_output)[2:], _shape(g)[2:], stride, padding, dilation
    )
    return convolution(
        grad_output,
        g,
        None,
        stride=stride,
        padding=padding,
        dilation=dilation,
        transposed=True,
        output_padding=fit,
        groups=groups,
    )


def _weight_output_grad(g, input, grad_output_shape, stride, padding, dilation, groups):
    """∂/∂grad_output = the convolution of input by g (its first windows)"""
    y = convolution(
        input, g, None, stride=stride, padding=padding, dilation=dilation, groups=groups
    )
    return _narrow_to(y, grad_output_shape)


convolution_weight = defop(
    "convolution_weight",
    _convolution_weight,
    args=("input", "grad_output"),
    dtypes=KEEP,
    node="ConvolutionBackwardBackward0",
    vjp=(_weight_input_grad, _weight_output_grad),
    jvp=(
        lambda t, grad_output, stride, padding, dilation, groups, kernel_size: convolution_weight(
            t,
            grad_output,
            stride=stride,
            padding=padding,
            dilation=dilation,
            groups=groups,
            kernel_size=kernel_size,
        ),  # J t = the weight gradient of t against grad_output (linear in input)
        lambda t, input, stride, padding, dilation, groups, kernel_size: convolution_weight(
            input,
            t,
            stride=stride,
            padding=padding,
            dilation=dilation,
            groups=groups,
            kernel_size=kernel_size,
        ),  # J t = the weight gradient of input against t (linear in grad_output)
    ),
    complex="holomorphic",  # (bilinear, as convolution)
)

# ----- im2col and col2im (F.unfold, F.fold) ------------------------------------------------


def _im2col(x, kernel_size=(1, 1), dilation=(1, 1), padding=(0, 0), stride=(1, 1)):
    """x's sliding windows (zero-padded) as columns: (N, C·∏kernel_size, number of windows)"""
    win = windows(pad_array(x, [(p, p) for p in padding]), kernel_size, stride, dilation)
    lead = x.shape[:-3]
    c = x.shape[-3]
    blocks = math.prod(win.shape[win.ndim - len(kernel_size) :])
    return win.reshape(tuple(lead) + (c * math.prod(kernel_size), blocks))


def _col2im(x, output_size=(1, 1), kernel_size=(1, 1), dilation=(1, 1), padding=(0, 0),
            stride=(1, 1)):  # fmt: skip
    """each column's values added back where its window lies in zeros of output_size (the
    sum where windows overlap; what falls in the padding is dropped)"""
    lead = x.shape[:-2]
    c = x.shape[-2] // math.prod(kernel_size)
    out = [
        out_size(n, k, s, p, p, d)
        for n, k, s, p, d in zip(output_size, kernel_size, stride, padding, dilation)
    ]
    cols = x.reshape(tuple(lead) + (c,) + tuple(kernel_size) + tuple(out))
    full = [n + 2 * p for n, p in zip(output_size, padding)]
    y = add_windows(cols, full, stride, dilation)
    return y[(Ellipsis,) + tuple(slice(p, n + p) for p, n in zip(padding, output_size))]


im2col = defop(
    "im2col",
    _im2col,
    dtypes=KEEP,
    node="Im2ColBackward0",
    vjp=lambda g, x_shape, kernel_size, dilation, padding, stride: col2im(
        g,
        output_size=tuple(x_shape[-2:]),
        kernel_size=kernel_size,
        dilation=dilation,
        padding=padding,
        stride=stride,
    ),  # Jᵀg = col2im(g): each column's gradient added back where its window was read
    jvp=lambda t, kernel_size, dilation, padding, stride: im2col(
        t, kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride
    ),  # J t = im2col(t)
    conventions="Overlapping windows add their gradients.",
    complex="wirtinger",
)

col2im = defop(
    "col2im",
    _col2im,
    dtypes=KEEP,
    node="Col2ImBackward0",
    vjp=lambda g, kernel_size, dilation, padding, stride: im2col(
        g, kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride
    ),  # Jᵀg = im2col(g): each column reads the gradient where its window lies
    jvp=lambda t, output_size, kernel_size, dilation, padding, stride: col2im(
        t,
        output_size=output_size,
        kernel_size=kernel_size,
        dilation=dilation,
        padding=padding,
        stride=stride,
    ),  # J t = col2im(t)
    complex="wirtinger",
)
