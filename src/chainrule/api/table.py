"""The name table: every public name of chainrule, the op it runs, and its variants.

A row of ``TORCH`` is ``(name, target, variants)`` or ``(name, target, variants, aliases)``:

- ``target``: an op (``unary.exp``, called with the public arguments as they are), a
  signature builder around an op (``unary_fn(op)``: ``f(input, *, out=None)``;
  ``tensors_only(op)``: both operands must be tensors), or a parser of
  ``api/parsers/`` where PyTorch's signature needs code.
- ``variants``, the places the name appears, as PyTorch has them:
  ``f`` ``chainrule.<name>``; ``m`` the method ``Tensor.<name>``; ``m_`` the in-place method
  ``Tensor.<name>_`` (``x.add_(y)`` records ``x = add(x, y)`` and writes it into x);
  ``f_`` the in-place function ``chainrule.<name>_``; ``out`` PyTorch's ``out=`` on the
  function (``out!``: out must have the result's dtype). A target wrapped in
  ``out_dtype(...)`` takes the out dtypes PyTorch's kernel takes (only the result's, with
  PyTorch's error), one in ``composite_out(...)`` lets an input requiring grad through
  (out becomes a recorded copy), both from api/variants.py.
- ``aliases``: other names for the same row (``arcsin`` for ``asin``), with the same variants.

``TENSOR`` lists the methods that are not functions, ``OPERATORS`` the Python operators,
``LINALG``, ``SPECIAL`` and ``FUNCTIONAL`` the ``chainrule.linalg``, ``chainrule.special``
and ``chainrule.nn.functional`` namespaces (``(name, target)``, or with the name the
``out=`` errors use). ``api.install()`` builds them all; a test walks this table against
the namespaces.
"""

from __future__ import annotations

from .. import storage as _storage
from .._creation import tensor_new
from ..autograd import tensor_backward
from ..ops import (
    activations,
    arithmetic,
    bessel,
    binary,
    logical,
    normalizations,
    reductions,
    special,
    unary,
)
from ..ops.linalg import inverses, products
from .args import bitwise, compare, functional_unary, predicate, tensors_only
from .args import unary as unary_fn
from .parsers import activations as p_activations
from .parsers import aten_forms as p_aten_forms
from .parsers import attention as p_attention
from .parsers import class_losses as p_class_losses
from .parsers import combining as p_combining
from .parsers import complex_numbers as p_complex
from .parsers import convolution as p_convolution
from .parsers import counting as p_counting
from .parsers import creation as p_creation
from .parsers import distances as p_distances
from .parsers import dropout as p_dropout
from .parsers import embedding as p_embedding
from .parsers import extras as p_extras
from .parsers import functional as p_functional
from .parsers import histogramdd as p_histogramdd
from .parsers import householder as p_householder
from .parsers import indexing as p_indexing
from .parsers import integration as p_integration
from .parsers import ldl as p_ldl
from .parsers import legacy_linalg as p_legacy_linalg
from .parsers import legacy_methods as p_legacy
from .parsers import linalg as p_linalg
from .parsers import linear as p_linear
from .parsers import linear_cross_entropy as p_linear_cross_entropy
from .parsers import lobpcg as p_lobpcg
from .parsers import losses as p_losses
from .parsers import lowrank as p_lowrank
from .parsers import multihead as p_multihead
from .parsers import norm_layers as p_norm_layers
from .parsers import norms as p_norms
from .parsers import padding as p_padding
from .parsers import pointwise as p_pointwise
from .parsers import pooling as p_pooling
from .parsers import random as p_random
from .parsers import reductions as p_reductions
from .parsers import resampling as p_resampling
from .parsers import scatters as p_scatters
from .parsers import shapes as p_shapes
from .parsers import signal as p_signal
from .parsers import special_functions as p_special_functions
from .parsers import spectral as p_spectral
from .parsers import splitting as p_splitting
from .parsers import statistics as p_statistics
from .parsers import storage as p_storage
from .parsers import torch_nn as p_torch_nn
from .parsers import weight_norm as p_weight_norm
from .variants import (
    binary_operator,
    composite_out,
    eq_operator,
    fast_operator,
    inplace_method,
    ne_operator,
    out_dtype,
)
from .variants import operator as function_operator

# PyTorch's errors for an out of a dtype its kernel refuses (api/variants.out_dtype)
_FOUND = "Found dtype {out.scalar_name} but expected {result.scalar_name}"
_CAT = "torch.cat(): input types can't be cast to the desired output type {out.scalar_name}"
_FLOAT_POWER = (
    "the output given to float_power has dtype {out.scalar_name} but the operation's "
    "result requires dtype {result.scalar_name}"
)
_NAN_TO_NUM = (
    "nan_to_num: dtype of out: {out.scalar_name} should be same as input: {result.scalar_name}"
)
_HEAVISIDE = "heaviside is not yet implemented for tensors with different dtypes."
_HISTOGRAM = (
    "torch.histogram: input tensor and hist tensor should have the same dtype, but got "
    "input {result.cpp} and hist {out.cpp}"
)
_QUANTILE = "quantile() out tensor must be same dtype as the input tensor"
_MATRIX_NORM = (
    "linalg.matrix_norm expected out tensor dtype {result.scalar_name} but got: {out.scalar_name}"
)
_SCALAR_TYPE = "expected scalar type {result.scalar_name} but found {out.scalar_name}"
_SCALAR_TYPE_ = "expected scalar_type {result.scalar_name} but found {out.scalar_name}"
_AMAX = (
    "Expected the dtype for input and out to match, but got {result.scalar_name} for "
    "input's dtype and {out.scalar_name} for out's dtype."
)
_DOT = "result dtype {out.scalar_name} does not match input dtype {result.scalar_name}"
_SAME_SCALAR_TYPE = "{}(): self and result must have the same scalar type"
_TENSORDOT = (
    "tensordot: Expected the output tensor to have dtype {result.scalar_name}, but got an "
    "output tensor with dtype {out.scalar_name}"
)
_FREXP = "torch.frexp() expects mantissa to have dtype {result.cpp} but got {out.cpp}"
_LOGSUMEXP = (
    "logsumexp(): Expected floating point type for result tensor, but got: {out.scalar_name}"
)
# (out of another dtype than a dtype= given: the computation's dtype is fixed)
_DTYPE_ARG = "Expected out tensor to have dtype {result.cpp}, but got {out.cpp} instead"
_ALL = "{fn} only supports bool tensor for result, got: {{out.scalar_name}}"
_MEAN = "mean.dtype_out(): input types can't be cast to the desired output type {out.scalar_name}"
_KTHVALUE = "output values must be of same type as input"
_MODE = "expected scalar type '{result.scalar_name}' but got '{out.scalar_name}' for values output"
_MULTI_DOT = "multi_dot(): expected out tensor to have dtype {result.cpp} but got {out.cpp}"
_GEQRF = (
    "torch.geqrf: Expected a to be safely castable from {result.scalar_name} dtype, but got "
    "a with dtype {out.scalar_name}"
)
_LSTSQ = (
    "torch.linalg.lstsq: Expected solution to be safely castable from {result.scalar_name} "
    "dtype, but got solution with dtype {out.scalar_name}"
)
_LDEXP = "ldexp can't be cast to the desired output type {out.scalar_name}"
_ADDMV = (
    "addmv input tensors must have the same dtype, but got {out.scalar_name}, "
    "{result.scalar_name}, and {result.scalar_name}"
)
_ADDBMM = (
    "self and mat2 must have the same dtype, but got {out.scalar_name} and {result.scalar_name}"
)
_VECDOT = "linalg.vecdot: Expected out of dtype{result.scalar_name} but found {out.scalar_name}"
_CASTABLE = (
    "{}: Expected result to be safely castable from {{result.scalar_name}} dtype, but got "
    "result with dtype {{out.scalar_name}}"
)
_ORMQR = (
    "torch.ormqr: Expected input and result to have the same dtype, but input has "
    "dtype{result.scalar_name} and result has dtype {out.scalar_name}"  # (sic)
)

TORCH = [
    # ----- arithmetic (ops/arithmetic.py) ---------------------------------------------------
    ("add", p_pointwise.add, "f m m_ out"),
    ("sub", p_pointwise.sub, "f m m_ out", "subtract"),
    ("rsub", p_pointwise.rsub, "f"),
    ("mul", p_pointwise.mul, "f m m_ out", "multiply"),
    ("div", p_pointwise.div, "f m m_ out", "divide true_divide"),
    ("neg", out_dtype(unary_fn(arithmetic.neg), "same", _FOUND), "f m m_ f_ out", "negative"),
    ("reciprocal", unary_fn(arithmetic.reciprocal), "f m m_ f_ out"),
    ("pow", p_pointwise.pow, "f m m_ out"),
    ("float_power", out_dtype(p_pointwise.float_power, "same", _FLOAT_POWER), "f m out"),
    ("remainder", p_pointwise.remainder, "f m m_ out"),
    ("fmod", p_pointwise.fmod, "f m m_ out"),
    ("floor_divide", composite_out(p_pointwise.floor_divide), "f m m_ out"),
    # ----- one-input functions (ops/unary.py) ---------------------------------------------
    ("exp", unary_fn(unary.exp), "f m m_ f_ out"),
    ("exp2", unary_fn(unary.exp2), "f m m_ f_ out"),
    ("expm1", unary_fn(unary.expm1), "f m m_ f_ out"),
    ("log", unary_fn(unary.log), "f m m_ f_ out"),
    ("log2", unary_fn(unary.log2), "f m m_ f_ out"),
    ("log10", unary_fn(unary.log10), "f m m_ f_ out"),
    ("log1p", unary_fn(unary.log1p), "f m m_ f_ out"),
    ("sqrt", unary_fn(unary.sqrt), "f m m_ f_ out"),
    ("rsqrt", unary_fn(unary.rsqrt), "f m m_ f_ out"),
    ("square", p_pointwise.square, "f m m_ f_ out"),
    ("sin", unary_fn(unary.sin), "f m m_ f_ out"),
    ("cos", unary_fn(unary.cos), "f m m_ f_ out"),
    ("tan", unary_fn(unary.tan), "f m m_ f_ out"),
    ("asin", unary_fn(unary.asin), "f m m_ f_ out", "arcsin"),
    ("acos", unary_fn(unary.acos), "f m m_ f_ out", "arccos"),
    ("atan", unary_fn(unary.atan), "f m m_ f_ out", "arctan"),
    ("sinh", unary_fn(unary.sinh), "f m m_ f_ out"),
    ("cosh", unary_fn(unary.cosh), "f m m_ f_ out"),
    ("tanh", unary_fn(unary.tanh), "f m m_ f_ out"),
    ("asinh", unary_fn(unary.asinh), "f m m_ f_ out", "arcsinh"),
    ("acosh", unary_fn(unary.acosh), "f m m_ f_ out", "arccosh"),
    ("atanh", unary_fn(unary.atanh), "f m m_ f_ out", "arctanh"),
    ("abs", out_dtype(unary_fn(unary.abs), "same", _FOUND), "f m m_ f_ out"),
    ("absolute", out_dtype(unary_fn(unary.abs), "same", _FOUND), "f m m_ out"),
    ("sign", out_dtype(unary_fn(unary.sign), "same", _FOUND), "f m m_ out"),
    ("sgn", out_dtype(p_pointwise.sgn, "same", _FOUND), "f m m_ out"),
    # ----- complex numbers (api/parsers/complex_numbers.py) ---------------------------------
    ("is_complex", p_complex.is_complex, "f m"),
    ("is_conj", p_complex.is_conj, "f m"),
    ("is_neg", p_complex.is_neg, "f m"),
    ("resolve_conj", p_complex.resolve_conj, "f m"),
    ("resolve_neg", p_complex.resolve_neg, "f m"),
    ("conj", p_complex.conj, "f m"),
    (
        "conj_physical",
        composite_out(out_dtype(p_complex.conj_physical, "same", _FOUND)),
        "f m m_ f_ out",
    ),
    ("real", p_complex.real, "f"),
    ("imag", p_complex.imag, "f"),
    ("view_as_real", p_complex.view_as_real, "f"),
    ("view_as_complex", p_complex.view_as_complex, "f"),
    ("complex", p_complex.complex, "f out"),
    ("polar", p_complex.polar, "f out"),
    ("angle", p_complex.angle, "f m out"),
    ("positive", p_pointwise.positive, "f m"),
    ("floor", out_dtype(unary_fn(unary.floor), "same", _FOUND), "f m m_ f_ out"),
    ("ceil", out_dtype(unary_fn(unary.ceil), "same", _FOUND), "f m m_ f_ out"),
    ("trunc", out_dtype(unary_fn(unary.trunc), "same", _FOUND), "f m m_ f_ out", "fix"),
    ("frac", out_dtype(unary_fn(unary.frac), "same", _FOUND), "f m m_ f_ out"),
    ("round", out_dtype(p_pointwise.round, "same", _FOUND), "f out"),
    ("round", p_pointwise._round_method, "m m_ f_"),
    ("nan_to_num", out_dtype(p_pointwise.nan_to_num, "same", _NAN_TO_NUM), "f m m_ f_ out"),
    ("deg2rad", unary_fn(unary.deg2rad), "f m m_ f_ out"),
    ("rad2deg", unary_fn(unary.rad2deg), "f m m_ f_ out"),
    ("sinc", unary_fn(unary.sinc), "f m m_ f_ out"),
    # ----- special functions (ops/special.py) ---------------------------------------------
    ("erf", unary_fn(special.erf), "f m m_ f_ out"),
    ("erfc", unary_fn(special.erfc), "f m m_ f_ out"),
    ("erfinv", unary_fn(special.erfinv), "f m m_ out"),
    ("lgamma", unary_fn(special.lgamma), "f m m_ out"),
    ("digamma", unary_fn(special.digamma), "f m m_ out"),
    ("polygamma", p_pointwise.polygamma, "f out"),
    ("polygamma", p_pointwise._polygamma_method, "m m_"),
    ("i0", unary_fn(special.i0), "f m m_ f_ out"),
    ("logit", p_pointwise.logit, "f m m_ f_ out"),
    # ----- conf2: incomplete gamma, mvlgamma (ops/zeta_gamma.py) ----------------------------
    ("igamma", p_special_functions.igamma, "f m m_ out"),
    ("igammac", p_special_functions.igammac, "f m m_ out"),
    ("mvlgamma", p_special_functions.mvlgamma, "f m m_ out"),
    # ----- conf2: frexp, gcd, lcm, put, as_strided (api/parsers/storage.py) -----------------
    ("frexp", out_dtype(p_storage.frexp, "same", _FREXP), "f m out"),
    ("gcd", p_storage.gcd, "f m m_ f_ out"),
    ("lcm", p_storage.lcm, "f m m_ f_ out"),
    ("put", p_storage.put, "f m m_"),
    ("index_reduce", p_storage.index_reduce, "f m m_ out"),
    ("as_strided", p_storage.as_strided, "f m"),
    ("as_strided_scatter", p_storage.as_strided_scatter, "f m"),
    ("as_strided_copy", p_storage.as_strided_copy, "f"),
    ("as_strided_", p_storage.as_strided_inplace, "f m"),
    ("empty_strided", p_storage.empty_strided, "f"),
    ("resize_as_", p_storage.resize_as_, "f m"),
    # ----- two-input functions (ops/binary.py) --------------------------------------------
    ("maximum", tensors_only(binary.maximum), "f m out"),
    ("minimum", tensors_only(binary.minimum), "f m out"),
    ("fmax", tensors_only(binary.fmax), "f m out"),
    ("fmin", tensors_only(binary.fmin), "f m out"),
    ("atan2", tensors_only(binary.atan2), "f m m_ out", "arctan2"),
    ("hypot", tensors_only(binary.hypot), "f m m_ out"),
    ("logaddexp", tensors_only(binary.logaddexp), "f m out"),
    ("logaddexp2", tensors_only(binary.logaddexp2), "f m out"),
    ("xlogy", p_pointwise.xlogy, "f m m_ f_ out"),
    ("lerp", out_dtype(p_pointwise.lerp, "same", _FOUND), "f m m_ out"),
    ("clamp", p_pointwise.clamp, "f m m_ f_ out!", "clip"),
    ("clamp_min", p_pointwise.clamp_min, "f m m_ f_ out!"),
    ("clamp_max", p_pointwise.clamp_max, "f m m_ f_ out!"),
    ("copysign", p_pointwise.copysign, "f m m_ out"),
    ("ldexp", out_dtype(tensors_only(binary.ldexp), "kind", _LDEXP), "f m m_ f_ out"),
    (
        "heaviside",
        composite_out(out_dtype(p_pointwise.heaviside, "same", _HEAVISIDE)),
        "f m m_ out",
    ),
    ("nextafter", tensors_only(binary.nextafter), "f m m_ out"),
    # ----- comparisons, selection, logical and bitwise (ops/logical.py) --------------------
    ("eq", compare(logical.eq), "f m out"),
    ("ne", compare(logical.ne), "f m out", "not_equal"),
    ("lt", compare(logical.lt), "f m out", "less"),
    ("le", compare(logical.le), "f m out", "less_equal"),
    ("gt", compare(logical.gt), "f m out", "greater"),
    ("ge", compare(logical.ge), "f m out", "greater_equal"),
    ("where", p_pointwise.where, "f"),
    ("logical_and", tensors_only(logical.logical_and), "f m m_ out"),
    ("logical_or", tensors_only(logical.logical_or), "f m m_ out"),
    ("logical_xor", tensors_only(logical.logical_xor), "f m m_ out"),
    (
        "logical_not",
        predicate(logical.logical_not, "not input (nonzero is True): a bool tensor."),
        "f m m_ out",
    ),
    ("bitwise_and", bitwise(logical.bitwise_and), "f m m_ out"),
    ("bitwise_or", bitwise(logical.bitwise_or), "f m m_ out"),
    ("bitwise_xor", bitwise(logical.bitwise_xor), "f m m_ out"),
    (
        "bitwise_not",
        predicate(logical.bitwise_not, "~input: logical on bools, bitwise on integers."),
        "f m m_ out",
    ),
    ("bitwise_left_shift", p_pointwise.bitwise_left_shift, "f m m_ out"),
    ("bitwise_right_shift", p_pointwise.bitwise_right_shift, "f m m_ out"),
    ("isnan", predicate(logical.isnan, "True where input is nan: a bool tensor."), "f m"),
    (
        "isinf",
        predicate(logical.isinf, "True where input is +inf or -inf: a bool tensor."),
        "f m",
    ),
    (
        "isfinite",
        predicate(logical.isfinite, "True where input is neither nan nor ±inf: a bool tensor."),
        "f m",
    ),
    (
        "isposinf",
        predicate(logical.isposinf, "True where input is +inf: a bool tensor."),
        "f m out",
    ),
    (
        "isneginf",
        predicate(logical.isneginf, "True where input is -inf: a bool tensor."),
        "f m out",
    ),
    (
        "signbit",
        predicate(
            logical.signbit, "True where the sign bit is set (-0.0 included): a bool tensor."
        ),
        "f m out",
    ),
    ("isreal", p_pointwise.isreal, "f m"),
    ("isclose", p_pointwise.isclose, "f m"),
    ("allclose", p_pointwise.allclose, "f m"),
    ("equal", p_pointwise.equal, "f m"),
    # ----- copies and casts (ops/copies.py) -----------------------------------------------
    ("clone", p_shapes.clone, "f m"),
    ("fill_", p_pointwise.fill_, "f m"),
    ("zero_", p_pointwise.zero_, "f m"),
    # ----- activations (ops/activations.py) and normalizations along a dim -----------------
    ("relu", unary_fn(activations.relu), "f m"),
    ("relu_", p_activations.relu_, "f m"),
    ("sigmoid", unary_fn(activations.sigmoid), "f m m_ f_ out"),
    ("selu", p_activations.selu, "f"),
    ("selu_", p_activations.selu_, "f"),
    ("celu", p_activations.celu, "f"),
    ("celu_", p_activations.celu_, "f"),
    ("threshold", p_activations.threshold, "f out"),
    ("threshold_", p_activations.threshold_, "f"),
    ("hardshrink", out_dtype(p_activations.hardshrink, "same", _FOUND), "f m out"),
    ("prelu", p_activations.prelu, "f m"),
    ("rrelu", p_activations.rrelu, "f"),
    ("rrelu_", p_activations.rrelu_, "f"),
    ("softmax", composite_out(out_dtype(p_activations.softmax)), "f m out"),
    ("log_softmax", composite_out(out_dtype(p_activations.log_softmax)), "f m out"),
    ("logsumexp", out_dtype(p_activations.logsumexp, "kind", _LOGSUMEXP), "f m out"),
    # ----- reductions (ops/reductions.py, scans.py, sorting.py) ----------------------------
    ("sum", out_dtype(p_reductions.sum, "any", _DTYPE_ARG), "f m out"),
    ("mean", out_dtype(p_reductions.mean, "kind", _MEAN), "f m out"),
    ("nansum", p_reductions.nansum, "f m out"),
    ("nanmean", p_reductions.nanmean, "f m out"),
    ("prod", out_dtype(p_reductions.prod, "any", _DTYPE_ARG), "f m out"),
    ("max", p_reductions.max, "f m out"),
    ("min", p_reductions.min, "f m out"),
    ("amax", out_dtype(p_reductions.amax, "same", _AMAX), "f m out"),
    ("amin", out_dtype(p_reductions.amin, "same", _AMAX), "f m out"),
    ("aminmax", out_dtype(p_reductions.aminmax), "f m out"),
    ("argmax", out_dtype(p_reductions.argmax, "same"), "f m out"),
    ("argmin", out_dtype(p_reductions.argmin, "same"), "f m out"),
    ("var", p_reductions.var, "f m out"),
    ("std", p_reductions.std, "f m out"),
    ("var_mean", p_reductions.var_mean, "f"),
    ("std_mean", p_reductions.std_mean, "f"),
    ("count_nonzero", p_reductions.count_nonzero, "f m"),
    ("all", out_dtype(p_reductions.all, "bool", _ALL.format(fn="all")), "f m out"),
    ("any", out_dtype(p_reductions.any, "bool", _ALL.format(fn="any")), "f m out"),
    ("norm", p_reductions.norm, "f"),
    ("dist", tensors_only(reductions.dist), "f m"),
    ("cumsum", out_dtype(p_reductions.cumsum, "any", _DTYPE_ARG), "f m out"),
    ("cumprod", out_dtype(p_reductions.cumprod, "any", _DTYPE_ARG), "f m out"),
    ("cummax", out_dtype(p_reductions.cummax, "same", _SCALAR_TYPE_), "f m out"),
    ("cummin", out_dtype(p_reductions.cummin, "same", _SCALAR_TYPE_), "f m out"),
    ("logcumsumexp", out_dtype(p_reductions.logcumsumexp, "same", _SCALAR_TYPE_), "f m out"),
    ("sort", out_dtype(p_reductions.sort), "f m out"),
    ("argsort", p_reductions.argsort, "f m"),
    ("msort", out_dtype(p_reductions.msort), "f m out"),
    ("topk", out_dtype(p_reductions.topk), "f m out"),
    ("median", out_dtype(p_reductions.median), "f m out"),
    ("nanmedian", out_dtype(p_reductions.nanmedian), "f m out"),
    ("kthvalue", out_dtype(p_reductions.kthvalue, "same", _KTHVALUE), "f m out"),
    ("mode", out_dtype(p_reductions.mode, "same", _MODE), "f m out"),
    # ----- shapes and views (ops/shapes.py) ------------------------------------------------
    ("reshape", p_shapes.reshape, "f"),
    ("squeeze", p_shapes.squeeze, "f m"),
    ("unsqueeze", p_shapes.unsqueeze, "f m"),
    ("movedim", p_shapes.movedim, "f m", "moveaxis"),
    ("permute", p_shapes.permute, "f"),
    ("transpose", p_shapes.transpose, "f m", "swapaxes swapdims"),
    ("t", p_linalg.t, "f m"),
    ("flatten", p_shapes.flatten, "f m"),
    ("unflatten", p_shapes.unflatten, "f m"),
    ("narrow", p_shapes.narrow, "f m"),
    ("select", p_shapes.select, "f m"),
    ("split", p_shapes.split, "f"),
    ("chunk", p_shapes.chunk, "f m"),
    ("unbind", p_shapes.unbind, "f m"),
    # ----- joining and tiling (ops/joining.py) ---------------------------------------------
    ("cat", out_dtype(p_shapes.cat, "kind", _CAT, TypeError), "f out", "concat"),
    ("concatenate", out_dtype(p_shapes.concatenate, "kind", _CAT, TypeError), "f out"),
    ("stack", out_dtype(p_shapes.stack, "kind", _CAT, TypeError), "f out"),
    ("hstack", out_dtype(p_shapes.hstack, "kind", _CAT, TypeError), "f out"),
    ("vstack", out_dtype(p_shapes.vstack, "kind", _CAT, TypeError), "f out", "row_stack"),
    ("dstack", out_dtype(p_indexing.dstack, "kind", _CAT, TypeError), "f out"),
    ("column_stack", out_dtype(p_indexing.column_stack, "kind", _CAT, TypeError), "f out"),
    ("atleast_1d", p_indexing.atleast_1d, "f"),
    ("atleast_2d", p_indexing.atleast_2d, "f"),
    ("atleast_3d", p_indexing.atleast_3d, "f"),
    ("tile", p_shapes.tile, "f"),
    ("flip", p_shapes.flip, "f"),
    ("roll", p_shapes.roll, "f m"),
    # ----- indexing, gather and scatter (ops/indexing.py, gather_scatter.py) ---------------
    ("gather", out_dtype(p_indexing.gather), "f m out"),
    ("scatter", out_dtype(p_indexing.scatter), "f out"),
    ("scatter_add", out_dtype(p_indexing.scatter_add), "f m m_ out"),
    (
        "index_select",
        out_dtype(p_indexing.index_select, "same", _SAME_SCALAR_TYPE.format("index_select")),
        "f m out",
    ),
    ("index_add", out_dtype(p_indexing.index_add), "f m m_ out"),
    ("index_fill", p_indexing.index_fill, "f m m_"),
    ("index_copy", p_indexing.index_copy, "f m m_"),
    ("index_put", p_indexing.index_put, "f m m_ f_"),  # (f_: conf3)
    ("masked_fill", p_indexing.masked_fill, "f m m_"),
    (
        "masked_select",
        out_dtype(p_indexing.masked_select, "same", _SAME_SCALAR_TYPE.format("masked_select")),
        "f m out",
    ),
    ("masked_scatter", p_indexing.masked_scatter, "f m m_"),
    ("take", p_indexing.take, "f m out"),
    ("take_along_dim", p_indexing.take_along_dim, "f m out"),
    # ----- linear algebra (ops/linalg/) ------------------------------------------------------
    ("matmul", out_dtype(p_linalg.matmul), "f m out"),
    ("mm", out_dtype(p_linalg.mm), "f m out"),
    ("bmm", out_dtype(p_linalg.bmm), "f m out"),
    ("mv", out_dtype(p_linalg.mv, "same", _ADDMV), "f m out"),
    ("dot", out_dtype(p_linalg.dot, "same", _DOT), "f m out"),
    ("vdot", out_dtype(p_linalg.vdot, "same", _DOT), "f m out"),
    ("outer", p_linalg.outer, "f m out", "ger"),
    ("inner", composite_out(out_dtype(products.inner, "same", _TENSORDOT)), "f m out"),
    ("addmm", out_dtype(p_linalg.addmm), "f m m_ out"),
    ("addmv", out_dtype(p_linalg.addmv), "f m m_ f_ out"),
    ("addr", p_linalg.addr, "f m m_ out"),
    ("baddbmm", out_dtype(p_linalg.baddbmm), "f m m_ out"),
    ("addbmm", out_dtype(p_linalg.addbmm, "same", _ADDBMM), "f m m_ out"),
    ("einsum", products.einsum, "f"),
    ("tensordot", composite_out(out_dtype(products.tensordot, "same", _TENSORDOT)), "f out"),
    ("chain_matmul", composite_out(p_linalg.chain_matmul), "f out"),
    (
        "matrix_power",
        composite_out(out_dtype(p_linalg.matrix_power, "kind", _CASTABLE.format("matrix_power"))),
        "f m out",
    ),
    ("matrix_exp", p_linalg.matrix_exp, "f m"),
    ("trace", p_linalg.trace, "f m"),
    ("diag", composite_out(out_dtype(p_linalg.diag)), "f m out"),
    ("diag_embed", p_linalg.diag_embed, "f m"),
    ("diagflat", p_linalg.diagflat, "f m"),
    ("diagonal", p_linalg.diagonal, "f m"),
    ("tril", out_dtype(p_linalg.tril), "f m m_ out"),
    ("triu", out_dtype(p_linalg.triu), "f m m_ out"),
    ("cross", out_dtype(p_linalg.cross), "f out"),
    ("inverse", out_dtype(p_linalg.inv), "f m out"),
    ("det", p_linalg.det, "f m"),
    ("logdet", p_linalg.logdet, "f m"),
    ("slogdet", out_dtype(p_linalg.slogdet), "f m out"),
    ("cholesky", out_dtype(p_linalg.cholesky, "kind", _CASTABLE.format("cholesky")), "f m out"),
    (
        "cholesky_inverse",
        out_dtype(p_linalg.cholesky_inverse, "kind", _CASTABLE.format("cholesky_inverse")),
        "f m out",
    ),
    (
        "cholesky_solve",
        out_dtype(p_linalg.cholesky_solve, "kind", _CASTABLE.format("cholesky_solve")),
        "f m out",
    ),
    ("qr", out_dtype(p_linalg.qr), "f m out"),
    ("geqrf", out_dtype(p_householder.geqrf, "kind", _GEQRF), "f m out"),
    (
        "orgqr",
        out_dtype(
            p_householder.orgqr, "kind", _CASTABLE.format("torch.linalg.householder_product")
        ),
        "f m out",
    ),
    ("ormqr", out_dtype(p_householder.ormqr, "same", _ORMQR), "f m out"),
    # ----- the deprecated spellings of torch.linalg's (api/parsers/legacy_linalg.py) -------
    ("triangular_solve", out_dtype(p_legacy_linalg.triangular_solve), "f m out"),
    ("lu_solve", p_legacy_linalg.lu_solve, "f m"),
    ("solve", p_legacy_linalg.solve, "f m"),
    ("lstsq", p_legacy_linalg.lstsq, "f m"),
    ("symeig", p_legacy_linalg.symeig, "f m"),
    ("eig", p_legacy_linalg.eig, "f m"),
    ("matrix_rank", p_legacy_linalg.matrix_rank, "f"),
    ("svd_lowrank", p_lowrank.svd_lowrank, "f"),
    ("pca_lowrank", p_lowrank.pca_lowrank, "f"),
    ("lobpcg", p_lobpcg.lobpcg, "f"),
    ("svd", out_dtype(p_linalg.svd), "f m out"),
    ("pinverse", p_linalg.pinverse, "f m"),
    ("lu", composite_out(p_linalg.lu), "f m out"),
    ("lu_unpack", out_dtype(p_linalg.lu_unpack), "f out"),
    # ----- convolution, pooling, padding, resampling (ops/convolution.py, pooling.py,
    # padding.py, resampling.py; the nn.functional names are in FUNCTIONAL's section) -----
    ("convolution", p_convolution.convolution, "f"),
    ("conv1d", p_convolution.conv1d, "f"),
    ("conv2d", p_convolution.conv2d, "f"),
    ("conv3d", p_convolution.conv3d, "f"),
    ("conv_transpose1d", p_convolution.conv_transpose1d, "f"),
    ("conv_transpose2d", p_convolution.conv_transpose2d, "f"),
    ("conv_transpose3d", p_convolution.conv_transpose3d, "f"),
    ("max_pool1d", p_pooling.torch_max_pool1d, "f"),
    ("max_pool2d", p_pooling.torch_max_pool2d, "f"),
    ("max_pool3d", p_pooling.torch_max_pool3d, "f"),
    ("max_pool1d_with_indices", p_pooling.torch_max_pool1d_with_indices, "f"),
    ("avg_pool1d", p_pooling.torch_avg_pool1d, "f"),
    ("adaptive_avg_pool1d", p_pooling.adaptive_avg_pool1d, "f"),
    ("adaptive_max_pool1d", p_pooling.torch_adaptive_max_pool1d, "f"),
    ("constant_pad_nd", p_padding.constant_pad_nd, "f"),
    ("pixel_shuffle", p_resampling.pixel_shuffle, "f"),
    ("pixel_unshuffle", p_resampling.pixel_unshuffle, "f"),
    ("channel_shuffle", p_resampling.channel_shuffle, "f"),
    ("native_channel_shuffle", p_resampling.native_channel_shuffle, "f"),
    ("grid_sampler", p_resampling.grid_sampler, "f"),
    ("affine_grid_generator", p_resampling.affine_grid_generator, "f"),
    # ----- nn-actloss: weight normalization (ops/normalizations.py; parsers/weight_norm.py) -
    ("_weight_norm", p_weight_norm.weight_norm, "f"),
    ("norm_except_dim", p_weight_norm.norm_except_dim, "f"),
    # ----- nn-loss: torch.<name> of nn.functional's functions (parsers/torch_nn.py) --------
    ("dropout", p_torch_nn.torch_dropout, "f"),
    ("dropout_", p_torch_nn.dropout_, "f"),
    ("feature_dropout", p_torch_nn.feature_dropout, "f"),
    ("alpha_dropout", p_torch_nn.alpha_dropout, "f"),
    ("feature_alpha_dropout", p_torch_nn.feature_alpha_dropout, "f"),
    ("feature_dropout_", p_torch_nn.feature_dropout_, "f"),
    ("alpha_dropout_", p_torch_nn.alpha_dropout_, "f"),
    ("feature_alpha_dropout_", p_torch_nn.feature_alpha_dropout_, "f"),
    ("batch_norm", p_torch_nn.batch_norm, "f"),
    ("instance_norm", p_torch_nn.instance_norm, "f"),
    ("layer_norm", p_torch_nn.layer_norm, "f"),
    ("group_norm", p_torch_nn.group_norm, "f"),
    ("rms_norm", p_norm_layers.rms_norm, "f"),
    ("bilinear", p_linear.bilinear, "f"),
    ("embedding", p_torch_nn.torch_embedding, "f"),
    ("embedding_renorm_", p_embedding.embedding_renorm_, "f"),
    ("cosine_similarity", p_distances.cosine_similarity, "f"),
    ("pairwise_distance", p_distances.pairwise_distance, "f"),
    ("pdist", p_distances.pdist, "f"),
    ("kl_div", p_torch_nn.kl_div, "f"),
    ("poisson_nll_loss", p_torch_nn.poisson_nll_loss, "f"),
    ("binary_cross_entropy_with_logits", p_torch_nn.binary_cross_entropy_with_logits, "f"),
    ("cosine_embedding_loss", p_torch_nn.cosine_embedding_loss, "f"),
    ("margin_ranking_loss", p_torch_nn.margin_ranking_loss, "f"),
    ("hinge_embedding_loss", p_torch_nn.hinge_embedding_loss, "f"),
    ("triplet_margin_loss", p_torch_nn.triplet_margin_loss, "f"),
    ("ctc_loss", p_torch_nn.ctc_loss, "f"),
    # ----- conf-names: random sampling (ops/random.py; api/parsers/random.py) --------------
    ("normal", p_random.normal, "f out"),
    ("bernoulli", out_dtype(p_random.bernoulli, "any"), "f m out"),
    ("poisson", p_random.poisson, "f"),
    ("multinomial", p_random.multinomial, "f m out"),
    ("_standard_gamma", p_random._standard_gamma, "f"),
    ("_standard_gamma_grad", p_random._standard_gamma_grad, "f"),
    ("_sample_dirichlet", p_random._sample_dirichlet, "f"),
    ("_dirichlet_grad", p_random._dirichlet_grad, "f"),
    # ----- conf-names: dtypes and index constructors (api/parsers/creation.py) -------------
    ("asarray", p_creation.asarray, "f"),
    ("result_type", p_creation.result_type, "f"),
    ("can_cast", p_creation.can_cast, "f"),
    ("tril_indices", p_creation.tril_indices, "f"),
    ("triu_indices", p_creation.triu_indices, "f"),
    # ----- conf-names: addcmul, addcdiv (ops/arithmetic.py) --------------------------------
    ("addcmul", p_pointwise.addcmul, "f m m_ out"),
    ("addcdiv", p_pointwise.addcdiv, "f m m_ out"),
    # ----- conf-names: compositions of shape ops (api/parsers/combining.py) ----------------
    ("broadcast_to", p_combining.broadcast_to, "f m"),
    ("broadcast_tensors", p_combining.broadcast_tensors, "f"),
    ("broadcast_shapes", p_combining.broadcast_shapes, "f"),
    ("meshgrid", p_combining.meshgrid, "f"),
    ("block_diag", p_combining.block_diag, "f"),
    ("cartesian_prod", p_combining.cartesian_prod, "f"),
    ("combinations", p_combining.combinations, "f"),
    ("kron", p_combining.kron, "f m out"),
    ("diff", p_combining.diff, "f m out"),
    ("rot90", p_combining.rot90, "f m"),
    ("vander", p_combining.vander, "f"),
    ("repeat_interleave", p_combining.repeat_interleave, "f m"),
    # ----- conf-names: finding, counting, binning (api/parsers/counting.py) ----------------
    ("nonzero", p_counting.nonzero, "f m out"),
    ("argwhere", p_counting.argwhere, "f m"),
    ("unique", p_counting.unique, "f m"),
    ("unique_consecutive", p_counting.unique_consecutive, "f m"),
    ("bincount", p_counting.bincount, "f m"),
    ("histc", out_dtype(p_counting.histc, "same", _HISTOGRAM), "f m out"),
    ("histogram", out_dtype(p_counting.histogram, "same", _HISTOGRAM), "f m out"),
    ("searchsorted", p_counting.searchsorted, "f out"),
    ("bucketize", p_counting.bucketize, "f out"),
    ("quantile", composite_out(out_dtype(p_counting.quantile, "same", _QUANTILE)), "f m out"),
    ("nanquantile", composite_out(out_dtype(p_counting.nanquantile, "same", _QUANTILE)), "f m out"),
    # ----- conf-names: distances and moments (api/parsers/statistics.py) -------------------
    ("cdist", p_statistics.cdist, "f"),
    ("cov", p_statistics.cov, "f m"),
    ("corrcoef", p_statistics.corrcoef, "f m"),
    # ----- conf-names: scatters (ops/gather_scatter.py; api/parsers/scatters.py) -----------
    ("scatter_reduce", p_scatters.scatter_reduce, "f m m_ out"),
    ("select_scatter", p_scatters.select_scatter, "f m"),
    ("slice_scatter", composite_out(out_dtype(p_scatters.slice_scatter)), "f m out"),
    ("diagonal_scatter", p_scatters.diagonal_scatter, "f m"),
    # ----- conf-names: end ------------------------------------------------------------------
    # ----- conf3: splitting and reordering (api/parsers/splitting.py) ----------------------
    ("tensor_split", p_splitting.tensor_split, "f m"),
    ("hsplit", p_splitting.hsplit, "f m"),
    ("vsplit", p_splitting.vsplit, "f m"),
    ("dsplit", p_splitting.dsplit, "f m"),
    ("split_with_sizes", p_splitting.split_with_sizes, "f m"),
    ("ravel", p_splitting.ravel, "f m"),
    ("fliplr", p_splitting.fliplr, "f m"),
    ("flipud", p_splitting.flipud, "f m"),
    ("adjoint", p_splitting.adjoint, "f m"),
    # ----- conf3: small everyday names (api/parsers/extras.py) -----------------------------
    ("is_inference", p_extras.is_inference, "f"),
    ("detach", p_extras.detach, "f"),
    ("detach_", p_extras.detach_, "f"),
    ("fill", p_extras.fill, "f"),
    ("scalar_tensor", p_extras.scalar_tensor, "f"),
    ("logspace", out_dtype(p_extras.logspace, "any"), "f out"),
    ("get_device", p_extras.get_device, "f m"),
    ("isin", p_extras.isin, "f out"),
    ("unravel_index", p_extras.unravel_index, "f"),
    ("range", out_dtype(p_extras.range_, "any"), "f out"),
    # ----- conf3: integration and differences of samples (api/parsers/integration.py) ------
    ("trapezoid", p_integration.trapezoid, "f"),
    ("trapz", p_integration.trapz, "f"),
    ("cumulative_trapezoid", p_integration.cumulative_trapezoid, "f"),
    ("gradient", p_integration.gradient, "f"),
    ("histogramdd", p_histogramdd.histogramdd, "f"),
    ("binomial", p_random.binomial, "f"),
    # ----- conf3: norms (ops/reductions.py renorm; api/parsers/norms.py) -------------------
    ("renorm", p_norms.renorm, "f m m_ out"),
    ("nuclear_norm", composite_out(out_dtype(p_norms.nuclear_norm, "same", _MATRIX_NORM)), "f out"),
    ("frobenius_norm", out_dtype(p_norms.frobenius_norm), "f out"),
    # ----- conf3: window functions (api/parsers/signal.py) ---------------------------------
    ("hann_window", p_signal.hann_window, "f"),
    ("hamming_window", p_signal.hamming_window, "f"),
    ("blackman_window", p_signal.blackman_window, "f"),
    ("bartlett_window", p_signal.bartlett_window, "f"),
    ("kaiser_window", p_signal.kaiser_window, "f"),
    ("stft", p_spectral.stft, "f m"),  # (api/parsers/spectral.py)
    ("istft", p_spectral.istft, "f m"),
    # ----- conf3: end -----------------------------------------------------------------------
    # ----- aten forms: *_copy, unsafe splits, native norms, recurrent kernels, conv_tbc,
    # embedding_bag, segment_reduce (api/parsers/aten_forms.py; ops/aten_forms.py) ---------
    ("alias_copy", composite_out(out_dtype(p_aten_forms.alias_copy)), "f out"),
    ("detach_copy", composite_out(out_dtype(p_aten_forms.detach_copy)), "f out"),
    ("diagonal_copy", composite_out(out_dtype(p_aten_forms.diagonal_copy)), "f out"),
    ("expand_copy", p_aten_forms.expand_copy, "f out"),
    ("permute_copy", p_aten_forms.permute_copy, "f out"),
    ("select_copy", p_aten_forms.select_copy, "f out"),
    ("slice_copy", composite_out(out_dtype(p_aten_forms.slice_copy)), "f out"),
    ("split_copy", p_aten_forms.split_copy, "f"),
    ("split_with_sizes_copy", p_aten_forms.split_with_sizes_copy, "f"),
    ("squeeze_copy", composite_out(out_dtype(p_aten_forms.squeeze_copy)), "f out"),
    ("t_copy", composite_out(out_dtype(p_aten_forms.t_copy)), "f out"),
    ("transpose_copy", p_aten_forms.transpose_copy, "f out"),
    ("unbind_copy", p_aten_forms.unbind_copy, "f"),
    ("unfold_copy", p_aten_forms.unfold_copy, "f out"),
    ("unsqueeze_copy", composite_out(out_dtype(p_aten_forms.unsqueeze_copy)), "f out"),
    ("view_copy", p_aten_forms.view_copy, "f out"),
    ("narrow_copy", p_aten_forms.narrow_copy, "f m out"),
    ("unsafe_split", p_aten_forms.unsafe_split, "f m"),
    ("unsafe_split_with_sizes", p_aten_forms.unsafe_split_with_sizes, "f m"),
    ("unsafe_chunk", p_aten_forms.unsafe_chunk, "f m"),
    ("native_layer_norm", p_aten_forms.native_layer_norm, "f"),
    ("native_batch_norm", p_aten_forms.native_batch_norm, "f"),
    ("native_group_norm", p_aten_forms.native_group_norm, "f"),
    ("native_dropout", p_aten_forms.native_dropout, "f"),
    ("nonzero_static", p_aten_forms.nonzero_static, "f m out"),
    ("empty_permuted", p_aten_forms.empty_permuted, "f"),
    ("rnn_tanh", p_aten_forms.rnn_tanh, "f"),
    ("rnn_relu", p_aten_forms.rnn_relu, "f"),
    ("lstm", p_aten_forms.lstm, "f"),
    ("gru", p_aten_forms.gru, "f"),
    ("rnn_tanh_cell", p_aten_forms.rnn_tanh_cell, "f"),
    ("rnn_relu_cell", p_aten_forms.rnn_relu_cell, "f"),
    ("lstm_cell", p_aten_forms.lstm_cell, "f"),
    ("gru_cell", p_aten_forms.gru_cell, "f"),
    ("conv_tbc", p_aten_forms.conv_tbc, "f"),
    ("embedding_bag", p_aten_forms.embedding_bag, "f"),
    ("segment_reduce", p_aten_forms.segment_reduce, "f", "_segment_reduce"),
    # ----- aten forms: end ------------------------------------------------------------------
]

# Methods that are not functions of chainrule (or differ from them): name, what it is
TENSOR = [
    ("__new__", staticmethod(tensor_new)),  # the legacy constructor: Tensor(2, 3)
    ("backward", tensor_backward),
    ("to", p_pointwise.to),
    ("type", p_pointwise.type_method),
    ("type_as", p_pointwise.type_as),
    *p_pointwise.CAST_METHODS.items(),  # float(), double(), long(), ...
    ("copy_", p_pointwise.copy_),
    ("T", property(p_pointwise._T)),
    ("mT", property(p_splitting.mT)),  # (conf3: PyTorch's error on fewer than 2 dims)
    ("view", p_shapes.view),
    ("view_as", p_shapes.view_as),
    ("reshape", p_pointwise._reshape),
    ("reshape_as", p_shapes.reshape_as),
    ("expand", p_shapes.expand),
    ("expand_as", p_shapes.expand_as),
    ("permute", p_shapes.permute_method),
    ("contiguous", p_shapes.contiguous),
    ("repeat", p_shapes.repeat),
    ("tile", p_shapes._method_varargs(p_shapes.tile)),
    ("flip", p_shapes._method_varargs(p_shapes.flip)),
    ("split", p_shapes._split_method),
    ("squeeze_", p_shapes._inplace_shape(p_shapes._squeeze_inplace)),
    ("unsqueeze_", p_shapes._inplace_shape(p_shapes._unsqueeze_inplace)),
    ("transpose_", p_shapes._inplace_shape(p_shapes._transpose_inplace)),
    ("swapaxes_", p_shapes._inplace_shape(p_shapes._transpose_inplace)),
    ("swapdims_", p_shapes._inplace_shape(p_shapes._transpose_inplace)),
    ("t_", p_shapes._inplace_shape(p_shapes._t_inplace)),
    ("scatter", p_indexing._scatter_method),
    ("scatter_", inplace_method(p_indexing._scatter_method)),
    ("unfold", p_indexing.unfold),
    ("where", p_pointwise.where_method),
    ("norm", p_reductions._norm_method),
    ("cumsum_", inplace_method(p_reductions._cumulative_method(p_reductions.cumsum))),
    ("cumprod_", inplace_method(p_reductions._cumulative_method(p_reductions.cumprod))),
    ("cross", p_linalg._method_cross),
    ("float_power_", p_pointwise._float_power_),
    *((alias + "_", p_pointwise._compare_inplace(name)) for alias, name in p_pointwise.COMPARISONS),
    # ----- conf-names: the in-place samplers (api/parsers/random.py) ------------------------
    ("uniform_", p_random.uniform_),
    ("normal_", p_random.normal_),
    ("random_", p_random.random_),
    ("bernoulli_", p_random.bernoulli_),
    ("exponential_", p_random.exponential_),
    ("geometric_", p_random.geometric_),
    ("cauchy_", p_random.cauchy_),
    ("log_normal_", p_random.log_normal_),
    # ----- conf-names: new tensors like self (api/parsers/creation.py) ---------------------
    ("new_tensor", p_creation.new_tensor),
    ("new_zeros", p_creation.new_zeros),
    ("new_ones", p_creation.new_ones),
    ("new_full", p_creation.new_full),
    ("new_empty", p_creation.new_empty),
    ("new_empty_strided", p_creation.new_empty_strided),
    ("fill_diagonal_", p_scatters.fill_diagonal_),
    # ----- conf-names: end ------------------------------------------------------------------
    # ----- conf2: storage and strides (api/parsers/storage.py) ------------------------------
    ("storage_offset", p_storage.storage_offset),
    ("untyped_storage", _storage.untyped_storage),
    ("storage", _storage.storage),
    ("dim_order", p_storage.dim_order),
    ("resize_", p_storage.resize_),
    ("resize", p_storage.resize),
    ("resize_as", p_storage.resize_as),
    ("set_", p_storage.set_),
    ("record_stream", p_storage.record_stream),
    # ----- conf3: matrix transposes, sizes (api/parsers/splitting.py, extras.py) ----------
    ("mH", property(p_splitting.mH)),
    ("real", property(p_complex.real_property)),
    # ----- legacy methods (api/parsers/legacy_methods.py) ------------------------------------
    ("new", p_legacy.new),
    ("apply_", p_legacy.apply_),
    ("map_", p_legacy.map_),
    ("map2_", p_legacy.map2_),
    ("output_nr", property(p_legacy.output_nr)),
    ("name", property(p_legacy.name)),
    ("is_pinned", p_legacy.is_pinned),
    ("is_shared", p_legacy.is_shared),
    ("share_memory_", p_legacy.share_memory_),
    ("pin_memory", p_legacy.pin_memory),
    ("imag", property(p_complex.imag_property)),
    ("H", property(p_splitting.H)),
    ("sum_to_size", p_extras.sum_to_size),
    ("nbytes", property(p_extras.nbytes)),
    ("itemsize", property(p_extras.itemsize)),
    # ----- conf3: end -----------------------------------------------------------------------
]

OPERATORS = [
    ("__add__", fast_operator(arithmetic.add)),
    ("__radd__", fast_operator(arithmetic.add)),
    ("__sub__", fast_operator(arithmetic.sub)),
    ("__rsub__", binary_operator(p_pointwise.rsub, reflected=True)),
    ("__mul__", fast_operator(arithmetic.mul)),
    ("__rmul__", fast_operator(arithmetic.mul)),
    ("__truediv__", fast_operator(arithmetic.div)),
    ("__rtruediv__", binary_operator(arithmetic.rdiv, reflected=True)),
    ("__pow__", binary_operator(p_pointwise.pow)),
    ("__rpow__", binary_operator(arithmetic.rpow, reflected=True)),
    ("__matmul__", p_linalg._matmul_operator),
    ("__rmatmul__", p_linalg._rmatmul_operator),
    ("__mod__", function_operator(p_pointwise.remainder)),
    ("__rmod__", function_operator(p_pointwise.remainder, reflected=True)),
    ("__floordiv__", function_operator(p_pointwise.floor_divide)),
    ("__rfloordiv__", function_operator(p_pointwise.floor_divide, reflected=True)),
    ("__and__", function_operator(bitwise(logical.bitwise_and))),
    ("__rand__", function_operator(bitwise(logical.bitwise_and), reflected=True)),
    ("__or__", function_operator(bitwise(logical.bitwise_or))),
    ("__ror__", function_operator(bitwise(logical.bitwise_or), reflected=True)),
    ("__xor__", function_operator(bitwise(logical.bitwise_xor))),
    ("__rxor__", function_operator(bitwise(logical.bitwise_xor), reflected=True)),
    ("__lshift__", function_operator(p_pointwise.bitwise_left_shift)),
    ("__rlshift__", function_operator(p_pointwise.bitwise_left_shift, reflected=True)),
    ("__rshift__", function_operator(p_pointwise.bitwise_right_shift)),
    ("__rrshift__", function_operator(p_pointwise.bitwise_right_shift, reflected=True)),
    ("__neg__", unary_fn(arithmetic.neg)),
    ("__pos__", p_pointwise.pos_operator),
    ("__abs__", unary_fn(unary.abs)),
    ("__invert__", p_pointwise._invert),
    ("__eq__", eq_operator),
    ("__ne__", ne_operator),
    ("__lt__", binary_operator(compare(logical.lt))),
    ("__le__", binary_operator(compare(logical.le))),
    ("__gt__", binary_operator(compare(logical.gt))),
    ("__ge__", binary_operator(compare(logical.ge))),
    ("__iadd__", inplace_method(p_pointwise.add, as_operator=True)),
    ("__isub__", inplace_method(p_pointwise.sub, as_operator=True)),
    ("__imul__", inplace_method(p_pointwise.mul, as_operator=True)),
    ("__itruediv__", inplace_method(p_pointwise.div, as_operator=True)),
    ("__ipow__", inplace_method(p_pointwise.pow, as_operator=True)),
    ("__imod__", inplace_method(p_pointwise.remainder, as_operator=True)),
    ("__ifloordiv__", inplace_method(p_pointwise.floor_divide, as_operator=True)),
    ("__iand__", inplace_method(bitwise(logical.bitwise_and), as_operator=True)),
    ("__ior__", inplace_method(bitwise(logical.bitwise_or), as_operator=True)),
    ("__ixor__", inplace_method(bitwise(logical.bitwise_xor), as_operator=True)),
    ("__ilshift__", inplace_method(p_pointwise.bitwise_left_shift, as_operator=True)),
    ("__irshift__", inplace_method(p_pointwise.bitwise_right_shift, as_operator=True)),
    ("__getitem__", p_indexing.getitem),
    ("__setitem__", p_indexing.setitem),
    ("__array_priority__", 1000),  # NumPy defers to our reflected operators
]

LINALG = [
    ("matmul", out_dtype(p_linalg.matmul), "matmul"),
    ("multi_dot", out_dtype(p_linalg.multi_dot, "same", _MULTI_DOT), "linalg_multi_dot"),
    ("matrix_power", composite_out(p_linalg.matrix_power), "linalg_matrix_power"),
    ("matrix_exp", p_linalg.matrix_exp),
    ("vecdot", out_dtype(products.vecdot, "same", _VECDOT), "sum"),
    ("cross", out_dtype(p_linalg.linalg_cross), "linalg_cross"),
    ("diagonal", p_linalg.linalg_diagonal),
    ("vander", p_linalg.vander),
    ("det", out_dtype(p_linalg.det), "_linalg_det"),
    ("slogdet", out_dtype(p_linalg.linalg_slogdet), "_linalg_slogdet"),
    ("inv", out_dtype(p_linalg.inv), "linalg_inv_ex"),
    ("inv_ex", out_dtype(p_linalg.inv_ex), "linalg_inv_ex"),
    ("pinv", out_dtype(p_linalg.pinv, "kind", _CASTABLE.format("linalg.pinv")), "linalg_pinv"),
    ("solve", out_dtype(p_linalg.solve), "_linalg_solve_ex"),
    ("solve_ex", out_dtype(p_linalg.solve_ex), "_linalg_solve_ex"),
    (
        "solve_triangular",
        out_dtype(p_linalg.solve_triangular, "same", _SCALAR_TYPE),
        "linalg_solve_triangular",
    ),
    ("lstsq", out_dtype(p_linalg.lstsq, "kind", _LSTSQ), "linalg_lstsq"),
    (
        "tensorinv",
        composite_out(out_dtype(p_linalg.tensorinv, "kind", _CASTABLE.format("tensorinv"))),
        "linalg_tensorinv",
    ),
    (
        "tensorsolve",
        composite_out(out_dtype(p_linalg.tensorsolve, "kind", _CASTABLE.format("tensorsolve"))),
        "linalg_tensorsolve",
    ),
    ("cholesky", out_dtype(p_linalg.linalg_cholesky), "linalg_cholesky_ex"),
    ("cholesky_ex", out_dtype(p_linalg.cholesky_ex), "linalg_cholesky_ex"),
    ("lu", out_dtype(p_linalg.linalg_lu), "linalg_lu"),
    ("lu_factor", out_dtype(p_linalg.lu_factor), "linalg_lu_factor_ex"),
    ("lu_factor_ex", out_dtype(p_linalg.lu_factor_ex), "linalg_lu_factor_ex"),
    ("lu_solve", out_dtype(p_linalg.lu_solve), "linalg_lu_solve"),
    ("ldl_factor", p_ldl.ldl_factor),
    ("ldl_factor_ex", p_ldl.ldl_factor_ex),
    ("ldl_solve", p_ldl.ldl_solve),
    ("qr", out_dtype(p_linalg.linalg_qr), "linalg_qr"),
    (
        "householder_product",
        out_dtype(
            p_householder.householder_product,
            "kind",
            _CASTABLE.format("torch.linalg.householder_product"),
        ),
        "linalg_householder_product",
    ),
    ("eigh", out_dtype(p_linalg.eigh), "_linalg_eigh"),
    ("eigvalsh", out_dtype(p_linalg.eigvalsh), "_linalg_eigh"),
    ("eig", p_linalg.eig, "linalg_eig"),
    ("eigvals", composite_out(p_linalg.eigvals), "linalg_eigvals"),
    ("svd", out_dtype(p_linalg.linalg_svd), "_linalg_svd"),
    ("svdvals", out_dtype(p_linalg.svdvals), "_linalg_svd"),
    ("vector_norm", p_linalg.vector_norm),
    ("matrix_norm", p_linalg.matrix_norm),
    ("norm", p_linalg.norm),
    (
        "cond",
        composite_out(out_dtype(p_linalg.cond, "kind", _CASTABLE.format("linalg.cond"))),
        "linalg_cond",
    ),
    ("matrix_rank", p_linalg.matrix_rank, "linalg_matrix_rank"),
    ("LinAlgError", inverses.LinAlgError),
]

SPECIAL = [
    ("erf", unary_fn(special.erf), "erf"),
    ("erfc", unary_fn(special.erfc), "erfc"),
    ("erfinv", unary_fn(special.erfinv), "erfinv"),
    ("expit", unary_fn(activations.sigmoid), "sigmoid"),
    ("exp2", unary_fn(unary.exp2), "exp2"),
    ("expm1", unary_fn(unary.expm1), "expm1"),
    ("log1p", unary_fn(unary.log1p), "log1p"),
    ("logit", p_pointwise.logit, "logit"),
    ("xlogy", p_pointwise.xlogy, "xlogy"),
    ("sinc", unary_fn(unary.sinc), "sinc"),
    ("round", p_pointwise.round, "round"),
    ("gammaln", unary_fn(special.lgamma), "lgamma"),
    ("digamma", unary_fn(special.digamma), "digamma"),
    ("psi", unary_fn(special.digamma), "digamma"),
    ("polygamma", p_pointwise.polygamma, "polygamma"),
    ("i0", unary_fn(special.i0), "i0"),
    ("i0e", unary_fn(special.i0e), "special_i0e"),
    ("i1", unary_fn(special.i1), "special_i1"),
    ("i1e", unary_fn(special.i1e), "special_i1e"),
    ("ndtr", composite_out(special.ndtr), "special_ndtr"),
    ("softmax", p_activations.special_softmax),
    ("log_softmax", p_activations.special_log_softmax),
    ("logsumexp", out_dtype(p_activations.special_logsumexp, "kind", _LOGSUMEXP), "logsumexp"),
    # ----- conf-names: entr, xlog1py (ops/special.py) --------------------------------------
    ("entr", unary_fn(special.entr), "special_entr"),
    ("xlog1py", p_pointwise.xlog1py, "special_xlog1py"),
    # ----- conf2: erfcx, ndtri, log_ndtr (ops/special.py), incomplete gamma, zeta,
    # multigammaln (ops/zeta_gamma.py), Bessel and Airy (ops/bessel.py), orthogonal
    # polynomials (ops/polynomials.py) -------------------------------------------------------
    ("erfcx", unary_fn(special.erfcx), "special_erfcx"),
    ("ndtri", unary_fn(special.ndtri), "special_ndtri"),
    ("log_ndtr", unary_fn(special.log_ndtr), "special_log_ndtr"),
    ("gammainc", p_special_functions.gammainc, "igamma"),
    ("gammaincc", p_special_functions.gammaincc, "igammac"),
    ("zeta", p_special_functions.zeta, "special_zeta"),
    ("multigammaln", p_special_functions.mvlgamma, "mvlgamma"),
    ("bessel_j0", unary_fn(bessel.bessel_j0), "special_bessel_j0"),
    ("bessel_j1", unary_fn(bessel.bessel_j1), "special_bessel_j1"),
    ("bessel_y0", unary_fn(bessel.bessel_y0), "special_bessel_y0"),
    ("bessel_y1", unary_fn(bessel.bessel_y1), "special_bessel_y1"),
    ("modified_bessel_i0", unary_fn(bessel.modified_bessel_i0), "special_modified_bessel_i0"),
    ("modified_bessel_i1", unary_fn(bessel.modified_bessel_i1), "special_modified_bessel_i1"),
    ("modified_bessel_k0", unary_fn(bessel.modified_bessel_k0), "special_modified_bessel_k0"),
    ("modified_bessel_k1", unary_fn(bessel.modified_bessel_k1), "special_modified_bessel_k1"),
    (
        "scaled_modified_bessel_k0",
        unary_fn(bessel.scaled_modified_bessel_k0),
        "special_scaled_modified_bessel_k0",
    ),
    (
        "scaled_modified_bessel_k1",
        unary_fn(bessel.scaled_modified_bessel_k1),
        "special_scaled_modified_bessel_k1",
    ),
    ("spherical_bessel_j0", unary_fn(bessel.spherical_bessel_j0), "special_spherical_bessel_j0"),
    ("airy_ai", unary_fn(bessel.airy_ai), "special_airy_ai"),
    *(
        (name, getattr(p_special_functions, name), f"special_{name}")
        for name in (
            "chebyshev_polynomial_t",
            "chebyshev_polynomial_u",
            "chebyshev_polynomial_v",
            "chebyshev_polynomial_w",
            "shifted_chebyshev_polynomial_t",
            "shifted_chebyshev_polynomial_u",
            "shifted_chebyshev_polynomial_v",
            "shifted_chebyshev_polynomial_w",
            "hermite_polynomial_h",
            "hermite_polynomial_he",
            "laguerre_polynomial_l",
            "legendre_polynomial_p",
        )
    ),
]

FUNCTIONAL = [
    ("relu", p_functional.relu),
    ("relu_", p_activations.relu_),
    ("relu6", p_functional.relu6),
    ("hardtanh", p_functional.hardtanh),
    ("hardtanh_", p_functional.hardtanh_),
    ("leaky_relu", p_functional.leaky_relu),
    ("leaky_relu_", p_functional.leaky_relu_),
    ("elu", p_functional.elu),
    ("elu_", p_functional.elu_),
    ("selu", p_functional.selu),
    ("selu_", p_activations.selu_),
    ("celu", p_functional.celu),
    ("celu_", p_activations.celu_),
    ("gelu", out_dtype(p_functional.gelu, "same", _FOUND), "gelu"),
    ("silu", p_functional.silu),
    ("mish", p_functional.mish),
    ("softplus", out_dtype(p_functional.softplus, "same", _FOUND), "softplus"),
    ("softsign", activations.softsign),
    ("sigmoid", functional_unary(activations.sigmoid)),
    ("hardsigmoid", p_functional.hardsigmoid),
    ("hardswish", p_functional.hardswish),
    ("logsigmoid", out_dtype(p_functional.logsigmoid, "same", _SCALAR_TYPE), "log_sigmoid_forward"),
    ("tanh", functional_unary(unary.tanh)),
    ("tanhshrink", activations.tanhshrink),
    ("threshold", p_functional.threshold),
    ("threshold_", p_functional.threshold_),
    ("hardshrink", out_dtype(p_functional.hardshrink, "same", _FOUND), "hardshrink"),
    ("softshrink", out_dtype(p_functional.softshrink, "same", _FOUND), "softshrink"),
    ("glu", p_functional.glu),
    ("prelu", p_functional.prelu),
    ("rrelu", p_functional.rrelu),
    ("rrelu_", p_functional.rrelu_),
    ("softmax", p_functional.softmax),
    ("softmin", p_functional.softmin),
    ("log_softmax", p_functional.log_softmax),
    ("gumbel_softmax", p_functional.gumbel_softmax),
    ("normalize", normalizations.normalize, "div"),
    # ----- convolution, pooling, padding, resampling (api/parsers/convolution.py,
    # pooling.py, padding.py, resampling.py) ------------------------------------------------
    ("conv1d", p_convolution.conv1d),
    ("conv2d", p_convolution.conv2d),
    ("conv3d", p_convolution.conv3d),
    ("conv_transpose1d", p_convolution.conv_transpose1d),
    ("conv_transpose2d", p_convolution.conv_transpose2d),
    ("conv_transpose3d", p_convolution.conv_transpose3d),
    ("conv_tbc", p_aten_forms.conv_tbc),
    ("unfold", p_convolution.unfold),
    ("fold", p_convolution.fold),
    ("max_pool1d", p_pooling.max_pool1d),
    ("max_pool2d", p_pooling.max_pool2d),
    ("max_pool3d", p_pooling.max_pool3d),
    ("max_pool1d_with_indices", p_pooling.max_pool1d_with_indices),
    ("max_pool2d_with_indices", p_pooling.max_pool2d_with_indices),
    ("max_pool3d_with_indices", p_pooling.max_pool3d_with_indices),
    ("avg_pool1d", p_pooling.avg_pool1d),
    ("avg_pool2d", p_pooling.avg_pool2d),
    ("avg_pool3d", p_pooling.avg_pool3d),
    ("adaptive_avg_pool1d", p_pooling.adaptive_avg_pool1d),
    ("adaptive_avg_pool2d", p_pooling.adaptive_avg_pool2d),
    ("adaptive_avg_pool3d", p_pooling.adaptive_avg_pool3d),
    ("adaptive_max_pool1d", p_pooling.adaptive_max_pool1d),
    ("adaptive_max_pool2d", p_pooling.adaptive_max_pool2d),
    ("adaptive_max_pool3d", p_pooling.adaptive_max_pool3d),
    ("adaptive_max_pool1d_with_indices", p_pooling.adaptive_max_pool1d_with_indices),
    ("adaptive_max_pool2d_with_indices", p_pooling.adaptive_max_pool2d_with_indices),
    ("adaptive_max_pool3d_with_indices", p_pooling.adaptive_max_pool3d_with_indices),
    ("fractional_max_pool2d", p_pooling.fractional_max_pool2d),
    ("fractional_max_pool3d", p_pooling.fractional_max_pool3d),
    ("fractional_max_pool2d_with_indices", p_pooling.fractional_max_pool2d_with_indices),
    ("fractional_max_pool3d_with_indices", p_pooling.fractional_max_pool3d_with_indices),
    ("max_unpool1d", p_pooling.max_unpool1d),
    ("max_unpool2d", p_pooling.max_unpool2d),
    ("max_unpool3d", p_pooling.max_unpool3d),
    ("lp_pool1d", p_pooling.lp_pool1d),
    ("lp_pool2d", p_pooling.lp_pool2d),
    ("lp_pool3d", p_pooling.lp_pool3d),
    ("pad", p_padding.pad),
    ("interpolate", p_resampling.interpolate),
    ("upsample", p_resampling.upsample),
    ("upsample_nearest", p_resampling.upsample_nearest),
    ("upsample_bilinear", p_resampling.upsample_bilinear),
    ("pixel_shuffle", p_resampling.pixel_shuffle),
    ("pixel_unshuffle", p_resampling.pixel_unshuffle),
    ("channel_shuffle", p_resampling.channel_shuffle),
    ("native_channel_shuffle", p_resampling.native_channel_shuffle),
    ("grid_sample", p_resampling.grid_sample),
    ("affine_grid", p_resampling.affine_grid),
    # ----- nn-loss: losses (ops/losses.py; parsers/losses.py, class_losses.py) -------------
    ("mse_loss", p_losses.mse_loss),
    ("l1_loss", p_losses.l1_loss),
    ("smooth_l1_loss", p_losses.smooth_l1_loss),
    ("huber_loss", p_losses.huber_loss),
    ("binary_cross_entropy", p_losses.binary_cross_entropy),
    ("binary_cross_entropy_with_logits", p_losses.binary_cross_entropy_with_logits),
    ("soft_margin_loss", p_losses.soft_margin_loss),
    ("kl_div", p_losses.kl_div),
    ("poisson_nll_loss", p_losses.poisson_nll_loss),
    ("gaussian_nll_loss", p_losses.gaussian_nll_loss),
    ("nll_loss", p_class_losses.nll_loss),
    ("cross_entropy", p_class_losses.cross_entropy),
    ("multi_margin_loss", p_class_losses.multi_margin_loss),
    ("multilabel_margin_loss", p_class_losses.multilabel_margin_loss),
    ("multilabel_soft_margin_loss", p_class_losses.multilabel_soft_margin_loss),
    ("cosine_embedding_loss", p_class_losses.cosine_embedding_loss),
    ("margin_ranking_loss", p_class_losses.margin_ranking_loss),
    ("hinge_embedding_loss", p_class_losses.hinge_embedding_loss),
    ("triplet_margin_loss", p_class_losses.triplet_margin_loss),
    ("triplet_margin_with_distance_loss", p_class_losses.triplet_margin_with_distance_loss),
    ("ctc_loss", p_class_losses.ctc_loss),
    # ----- nn-loss: linear layers (parsers/linear.py; ops/linalg/products.py's trilinear) --
    ("linear", out_dtype(p_linear.linear), "linear"),
    ("bilinear", p_linear.bilinear),
    ("linear_cross_entropy", p_linear_cross_entropy.linear_cross_entropy),
    # ----- nn-loss: normalization layers (ops/norm_layers.py; parsers/norm_layers.py) -----
    ("batch_norm", p_norm_layers.batch_norm),
    ("instance_norm", p_norm_layers.instance_norm),
    ("layer_norm", p_norm_layers.layer_norm),
    ("group_norm", p_norm_layers.group_norm),
    ("local_response_norm", p_norm_layers.local_response_norm),
    ("rms_norm", p_norm_layers.rms_norm),
    # ----- nn-loss: dropout (parsers/dropout.py) ------------------------------------------
    ("dropout", p_dropout.dropout),
    ("dropout1d", p_dropout.dropout1d),
    ("dropout2d", p_dropout.dropout2d),
    ("dropout3d", p_dropout.dropout3d),
    ("alpha_dropout", p_dropout.alpha_dropout),
    ("feature_alpha_dropout", p_dropout.feature_alpha_dropout),
    # ----- nn-loss: embeddings (ops/embedding.py; parsers/embedding.py) -------------------
    ("embedding", p_embedding.embedding),
    ("embedding_bag", p_embedding.embedding_bag),
    ("one_hot", p_embedding.one_hot),
    # ----- nn-loss: distances (ops/distances.py; parsers/distances.py) --------------------
    ("pairwise_distance", p_distances.pairwise_distance),
    ("cosine_similarity", p_distances.cosine_similarity),
    ("pdist", p_distances.pdist),
    # ----- nn-loss: attention (ops/attention.py; parsers/attention.py) ---------------------
    ("scaled_dot_product_attention", p_attention.scaled_dot_product_attention),
    # ----- nn-transformer: multi-head attention (parsers/multihead.py) --------------------
    ("multi_head_attention_forward", p_multihead.multi_head_attention_forward),
    ("_canonical_mask", p_multihead._canonical_mask),
    ("_none_or_dtype", p_multihead._none_or_dtype),
]
