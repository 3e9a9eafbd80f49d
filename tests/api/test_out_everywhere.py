"""``out=`` everywhere PyTorch takes it: for each public function of ``torch``,
``torch.linalg``, ``torch.special``, ``torch.fft`` and ``torch.nn.functional`` that accepts
``out=`` (one tensor, or a tuple for a function returning several), chainrule returns out
itself holding torch's values, resizes a wrongly shaped out (with PyTorch's warning when it
had elements), refuses an out of a dtype PyTorch refuses (with PyTorch's message) and
writes one PyTorch writes, and refuses an input requiring grad where PyTorch does (where
PyTorch lets it through, out becomes a recorded copy). A function that silently ignored
``out`` (returned a new tensor and left out as it was) fails here. The cases come from
probing PyTorch: every public function of those namespaces called on these inputs with a
correctly shaped ``out``; the differences left are listed with their reasons
(``NOT_WRITTEN``, ``KNOWN``, ``OTHER_MESSAGE``).

Each case is the function's small inputs, by name (``_INPUTS``): a positive SPD matrix A,
another positive matrix B, a vector v, integer and bool tensors, a batch A3, sequences.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
import chainrule.fft
import chainrule.linalg
import chainrule.nn.functional
import chainrule.special
from oracle import error_of

_rng = np.random.default_rng(0)
_M = _rng.random((3, 3)) + 0.1
_A = _M @ _M.T + 3 * np.eye(3)
_INPUTS = {
    "A": _A,  # SPD, positive entries
    "B": _rng.random((3, 3)) + 0.1,
    "L": np.linalg.cholesky(_A),
    "v": _rng.random(3) + 0.1,
    "s": np.array([0.1, 0.5, 0.9]),
    "I": np.array([[0, 1, 2], [2, 1, 0], [1, 1, 1]]),
    "i": np.array([0, 2]),
    "b": np.array([1, 0, 1], dtype=bool),
    "A3": np.stack([_A, _A]),
    "S": _rng.random((2, 3)),
}
_t = torch.tensor(_A)
_INPUTS["LU"], _INPUTS["piv"] = (r.numpy() for r in torch.linalg.lu_factor(_t))
_INPUTS["QR"], _INPUTS["tau"] = (r.numpy() for r in torch.geqrf(_t))

# name: its arguments (an _INPUTS key, a list of them, a Python number as it is; a dict:
# keyword arguments)
CASES = {
    "torch.sum": ("A", 1),
    "torch.bernoulli": ("v",),
    "torch.prod": ("A", 1),
    "torch.median": ("A", 1),
    "torch.nanmedian": ("A", 1),
    "torch.index_add": ("A", 0, "i", "S"),
    "torch.ormqr": ("QR", "tau", "B"),
    "torch.lu_unpack": ("LU", "piv"),
    "linalg.lu_solve": ("LU", "piv", "B"),
    "linalg.solve_triangular": ("L", "B", {"upper": False}),
    "torch.abs": ("A",),
    "torch.absolute": ("A",),
    "torch.acos": ("A",),
    "torch.acosh": ("A",),
    "torch.add": ("A", "B"),
    "torch.addbmm": ("A", "A3", "A3"),
    "torch.addcdiv": ("A", "B", "A"),
    "torch.addcmul": ("A", "B", "A"),
    "torch.addmm": ("A", "B", "A"),
    "torch.addmv": ("v", "A", "v"),
    "torch.addr": ("A", "v", "v"),
    "torch.alias_copy": ("A",),
    "torch.all": ("A",),
    "torch.amax": ("A",),
    "torch.amin": ("A",),
    "torch.aminmax": ("A",),
    "torch.angle": ("A",),
    "torch.any": ("A",),
    "torch.arange": (3,),
    "torch.arccos": ("A",),
    "torch.arccosh": ("A",),
    "torch.arcsin": ("A",),
    "torch.arcsinh": ("A",),
    "torch.arctan": ("A",),
    "torch.arctan2": ("A", "B"),
    "torch.arctanh": ("A",),
    "torch.argmax": ("A",),
    "torch.argmin": ("A",),
    "torch.asin": ("A",),
    "torch.asinh": ("A",),
    "torch.atan": ("A",),
    "torch.atan2": ("A", "B"),
    "torch.atanh": ("A",),
    "torch.baddbmm": ("A3", "A3", "A3"),
    "torch.bitwise_and": ("I", "I"),
    "torch.bitwise_left_shift": ("I", "I"),
    "torch.bitwise_not": ("I",),
    "torch.bitwise_or": ("I", "I"),
    "torch.bitwise_right_shift": ("I", "I"),
    "torch.bitwise_xor": ("I", "I"),
    "torch.bmm": ("A3", "A3"),
    "torch.bucketize": ("A", "v"),
    "torch.cat": (["A", "B"],),
    "torch.ceil": ("A",),
    "torch.chain_matmul": ("A",),
    "torch.cholesky": ("A",),
    "torch.cholesky_inverse": ("L",),
    "torch.cholesky_solve": ("B", "L"),
    "torch.clamp": ("A", "B"),
    "torch.clamp_max": ("A", "B"),
    "torch.clamp_min": ("A", "B"),
    "torch.clip": ("A", "B"),
    "torch.column_stack": (["A", "B"],),
    "torch.complex": ("A", "B"),
    "torch.concat": (["A", "B"],),
    "torch.concatenate": (["A", "B"],),
    "torch.conj_physical": ("A",),
    "torch.copysign": ("A", "B"),
    "torch.cos": ("A",),
    "torch.cosh": ("A",),
    "torch.cross": ("A", "B"),
    "torch.cummax": ("A", 1),
    "torch.cummin": ("A", 1),
    "torch.cumprod": ("A", 1),
    "torch.cumsum": ("A", 1),
    "torch.deg2rad": ("A",),
    "torch.detach_copy": ("A",),
    "torch.diag": ("A",),
    "torch.diagonal_copy": ("A",),
    "torch.diff": ("A",),
    "torch.digamma": ("A",),
    "torch.div": ("A", "B"),
    "torch.divide": ("A", "B"),
    "torch.dot": ("v", "v"),
    "torch.dstack": (["A", "B"],),
    "torch.empty": (3,),
    "torch.eq": ("A", "B"),
    "torch.erf": ("A",),
    "torch.erfc": ("A",),
    "torch.erfinv": ("A",),
    "torch.exp": ("A",),
    "torch.exp2": ("A",),
    "torch.expm1": ("A",),
    "torch.eye": (3,),
    "torch.fix": ("A",),
    "torch.float_power": ("A", "B"),
    "torch.floor": ("A",),
    "torch.floor_divide": ("A", "B"),
    "torch.fmax": ("A", "B"),
    "torch.fmin": ("A", "B"),
    "torch.fmod": ("A", "B"),
    "torch.frac": ("A",),
    "torch.frexp": ("A",),
    "torch.frobenius_norm": ("A", 1),
    "torch.gather": ("A", 0, "I"),
    "torch.gcd": ("I", "I"),
    "torch.ge": ("A", "B"),
    "torch.geqrf": ("A",),
    "torch.ger": ("v", "v"),
    "torch.greater": ("A", "B"),
    "torch.greater_equal": ("A", "B"),
    "torch.gt": ("A", "B"),
    "torch.hardshrink": ("A",),
    "torch.heaviside": ("A", "B"),
    "torch.histc": ("A",),
    "torch.histogram": ("A",),
    "torch.hstack": (["A", "B"],),
    "torch.hypot": ("A", "B"),
    "torch.i0": ("A",),
    "torch.igamma": ("A", "B"),
    "torch.igammac": ("A", "B"),
    "torch.index_select": ("A", 0, "i"),
    "torch.inner": ("A", "B"),
    "torch.inverse": ("A",),
    "torch.isin": ("A", "B"),
    "torch.isneginf": ("A",),
    "torch.isposinf": ("A",),
    "torch.kron": ("A", "B"),
    "torch.kthvalue": ("A", 1),
    "torch.lcm": ("I", "I"),
    "torch.ldexp": ("A", "B"),
    "torch.le": ("A", "B"),
    "torch.lerp": ("A", "B", "A"),
    "torch.less": ("A", "B"),
    "torch.less_equal": ("A", "B"),
    "torch.lgamma": ("A",),
    "torch.linspace": (0, 1, 5),
    "torch.log": ("A",),
    "torch.log10": ("A",),
    "torch.log1p": ("A",),
    "torch.log2": ("A",),
    "torch.log_softmax": ("A", 1),
    "torch.logaddexp": ("A", "B"),
    "torch.logaddexp2": ("A", "B"),
    "torch.logcumsumexp": ("A", 1),
    "torch.logical_and": ("A", "B"),
    "torch.logical_not": ("A",),
    "torch.logical_or": ("A", "B"),
    "torch.logical_xor": ("A", "B"),
    "torch.logit": ("A",),
    "torch.logspace": (0, 1, 5),
    "torch.logsumexp": ("A", 1),
    "torch.lt": ("A", "B"),
    "torch.lu": ("A",),
    "torch.masked_select": ("A", "b"),
    "torch.matmul": ("A", "B"),
    "torch.matrix_power": ("A", 1),
    "torch.max": ("A",),
    "torch.maximum": ("A", "B"),
    "torch.mean": ("A",),
    "torch.min": ("A",),
    "torch.minimum": ("A", "B"),
    "torch.mm": ("A", "B"),
    "torch.mode": ("A",),
    "torch.msort": ("A",),
    "torch.mul": ("A", "B"),
    "torch.multinomial": ("A", 1),
    "torch.multiply": ("A", "B"),
    "torch.mv": ("A", "v"),
    "torch.mvlgamma": ("A", 1),
    "torch.nan_to_num": ("A",),
    "torch.nanmean": ("A",),
    "torch.nanquantile": ("A", 1),
    "torch.nansum": ("A",),
    "torch.ne": ("A", "B"),
    "torch.neg": ("A",),
    "torch.negative": ("A",),
    "torch.nextafter": ("A", "B"),
    "torch.nonzero": ("A",),
    "torch.norm": ("A",),
    "torch.normal": ("A",),
    "torch.not_equal": ("A", "B"),
    "torch.nuclear_norm": ("A",),
    "torch.ones": (3,),
    "torch.orgqr": ("A", "v"),
    "torch.outer": ("v", "v"),
    "torch.polar": ("A", "B"),
    "torch.pow": ("A", "B"),
    "torch.qr": ("A",),
    "torch.quantile": ("A", 1),
    "torch.rad2deg": ("A",),
    "torch.rand": (3,),
    "torch.randn": (3,),
    "torch.randperm": (3,),
    "torch.range": (0, 1, 5),
    "torch.reciprocal": ("A",),
    "torch.remainder": ("A", "B"),
    "torch.round": ("A",),
    "torch.row_stack": (["A", "B"],),
    "torch.rsqrt": ("A",),
    "torch.scatter": ("A", 0, "I", "B"),
    "torch.scatter_add": ("A", 0, "I", "B"),
    "torch.searchsorted": ("s", "v"),
    "torch.sgn": ("A",),
    "torch.sigmoid": ("A",),
    "torch.sign": ("A",),
    "torch.signbit": ("A",),
    "torch.sin": ("A",),
    "torch.sinc": ("A",),
    "torch.sinh": ("A",),
    "torch.slice_copy": ("A",),
    "torch.slice_scatter": ("A", "B"),
    "torch.slogdet": ("A",),
    "torch.softmax": ("A", 1),
    "torch.sort": ("A",),
    "torch.split_copy": ("A", 1),
    "torch.sqrt": ("A",),
    "torch.square": ("A",),
    "torch.squeeze_copy": ("A",),
    "torch.stack": (["A", "B"],),
    "torch.std": ("A",),
    "torch.sub": ("A", "B"),
    "torch.subtract": ("A", "B"),
    "torch.svd": ("A",),
    "torch.t_copy": ("A",),
    "torch.take": ("I", "I"),
    "torch.take_along_dim": ("I", "I"),
    "torch.tan": ("A",),
    "torch.tanh": ("A",),
    "torch.tensordot": ("A", "B"),
    "torch.threshold": ("A", 1, True),
    "torch.topk": ("A", 1),
    "torch.triangular_solve": ("A", "B"),
    "torch.tril": ("A",),
    "torch.triu": ("A",),
    "torch.true_divide": ("A", "B"),
    "torch.trunc": ("A",),
    "torch.unbind_copy": ("A",),
    "torch.unsqueeze_copy": ("A", 1),
    "torch.var": ("A",),
    "torch.vdot": ("v", "v"),
    "torch.vstack": (["A", "B"],),
    "torch.xlogy": ("A", "B"),
    "torch.zeros": (3,),
    "linalg.cholesky": ("A",),
    "linalg.cholesky_ex": ("A",),
    "linalg.cond": ("A",),
    "linalg.cross": ("A", "B"),
    "linalg.det": ("A",),
    "linalg.eig": ("A",),
    "linalg.eigh": ("A",),
    "linalg.eigvals": ("A",),
    "linalg.eigvalsh": ("A",),
    "linalg.householder_product": ("A", "v"),
    "linalg.inv": ("A",),
    "linalg.inv_ex": ("A",),
    "linalg.ldl_factor": ("A",),
    "linalg.ldl_factor_ex": ("A",),
    "linalg.lstsq": ("A", "B"),
    "linalg.lu": ("A",),
    "linalg.lu_factor": ("A",),
    "linalg.lu_factor_ex": ("A",),
    "linalg.matmul": ("A", "B"),
    "linalg.matrix_norm": ("A",),
    "linalg.matrix_power": ("A", 1),
    "linalg.matrix_rank": ("A",),
    "linalg.multi_dot": (["A", "B"],),
    "linalg.norm": ("A",),
    "linalg.pinv": ("A",),
    "linalg.qr": ("A",),
    "linalg.slogdet": ("A",),
    "linalg.solve": ("A", "B"),
    "linalg.solve_ex": ("A", "B"),
    "linalg.svd": ("A",),
    "linalg.svdvals": ("A",),
    "linalg.tensorinv": ("A", 1),
    "linalg.tensorsolve": ("A", "v"),
    "linalg.vecdot": ("A", "B"),
    "linalg.vector_norm": ("A",),
    "special.airy_ai": ("A",),
    "special.bessel_j0": ("A",),
    "special.bessel_j1": ("A",),
    "special.bessel_y0": ("A",),
    "special.bessel_y1": ("A",),
    "special.chebyshev_polynomial_t": ("A", "B"),
    "special.chebyshev_polynomial_u": ("A", "B"),
    "special.chebyshev_polynomial_v": ("A", "B"),
    "special.chebyshev_polynomial_w": ("A", "B"),
    "special.digamma": ("A",),
    "special.entr": ("A",),
    "special.erf": ("A",),
    "special.erfc": ("A",),
    "special.erfcx": ("A",),
    "special.erfinv": ("A",),
    "special.exp2": ("A",),
    "special.expit": ("A",),
    "special.expm1": ("A",),
    "special.gammainc": ("A", "B"),
    "special.gammaincc": ("A", "B"),
    "special.gammaln": ("A",),
    "special.hermite_polynomial_h": ("A", "B"),
    "special.hermite_polynomial_he": ("A", "B"),
    "special.i0": ("A",),
    "special.i0e": ("A",),
    "special.i1": ("A",),
    "special.i1e": ("A",),
    "special.laguerre_polynomial_l": ("A", "B"),
    "special.legendre_polynomial_p": ("A", "B"),
    "special.log1p": ("A",),
    "special.log_ndtr": ("A",),
    "special.logit": ("A",),
    "special.logsumexp": ("A", 1),
    "special.modified_bessel_i0": ("A",),
    "special.modified_bessel_i1": ("A",),
    "special.modified_bessel_k0": ("A",),
    "special.modified_bessel_k1": ("A",),
    "special.multigammaln": ("A", 1),
    "special.ndtr": ("A",),
    "special.ndtri": ("A",),
    "special.psi": ("A",),
    "special.round": ("A",),
    "special.scaled_modified_bessel_k0": ("A",),
    "special.scaled_modified_bessel_k1": ("A",),
    "special.shifted_chebyshev_polynomial_t": ("A", "B"),
    "special.shifted_chebyshev_polynomial_u": ("A", "B"),
    "special.shifted_chebyshev_polynomial_v": ("A", "B"),
    "special.shifted_chebyshev_polynomial_w": ("A", "B"),
    "special.sinc": ("A",),
    "special.spherical_bessel_j0": ("A",),
    "special.xlog1py": ("A", "B"),
    "special.xlogy": ("A", "B"),
    "special.zeta": ("A", "B"),
    "fft.fft": ("A",),
    "fft.fft2": ("A",),
    "fft.fftfreq": (3,),
    "fft.fftn": ("A",),
    "fft.hfft": ("A",),
    "fft.hfft2": ("A",),
    "fft.hfftn": ("A",),
    "fft.ifft": ("A",),
    "fft.ifft2": ("A",),
    "fft.ifftn": ("A",),
    "fft.ihfft": ("A",),
    "fft.ihfft2": ("A",),
    "fft.ihfftn": ("A",),
    "fft.irfft": ("A",),
    "fft.irfft2": ("A",),
    "fft.irfftn": ("A",),
    "fft.rfft": ("A",),
    "fft.rfft2": ("A",),
    "fft.rfftfreq": (3,),
    "fft.rfftn": ("A",),
    "functional.gelu": ("A",),
    "functional.hardshrink": ("A",),
    "functional.linear": ("A", "B"),
    "functional.logsigmoid": ("A",),
    "functional.normalize": ("A",),
    "functional.softplus": ("A",),
    "functional.softshrink": ("A",),
}

_LIST_OUT = "out= refused (TypeError): PyTorch's fills a list of outs of the pieces' sizes"
# name -> why chainrule does not write out yet (docs/missing.md)
NOT_WRITTEN = {
    "torch.split_copy": _LIST_OUT,
    "torch.unbind_copy": _LIST_OUT,
}
RANDOM = {"bernoulli", "multinomial", "normal", "rand", "randn", "randperm", "poisson", "empty"}
SPACES = {
    "torch": (cr, torch),
    "linalg": (cr.linalg, torch.linalg),
    "special": (cr.special, torch.special),
    "fft": (cr.fft, torch.fft),
    "functional": (cr.nn.functional, torch.nn.functional),
}


def _args(lib, pattern, grad=False):
    """The case's arguments in lib; the first floating tensor requires grad with ``grad``."""
    made, kwargs = [], {}
    for p in pattern:
        if isinstance(p, dict):
            kwargs = p
        elif isinstance(p, str):
            made.append(lib.tensor(_INPUTS[p]))
        elif isinstance(p, list):
            made.append([lib.tensor(_INPUTS[q]) for q in p])
        else:
            made.append(p)
    if grad:
        for t in made:
            if isinstance(t, (cr.Tensor, torch.Tensor)) and t.dtype.is_floating_point:
                t.requires_grad_()
                break
    return made, kwargs


def _call(key, lib, out, grad=False):
    space, name = key.split(".")
    fn = getattr(SPACES[space][0 if lib is cr else 1], name)
    lib.manual_seed(0)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"(?s).*(deprecated|the dim arg)")
        args, kwargs = _args(lib, CASES[key], grad)
        return fn(*args, **kwargs, out=out)


def _outs(lib, like, dtype=None, shape=None):
    """An out for a result like torch's ``like`` (a tensor or a tuple of them)."""
    if isinstance(like, tuple):
        return tuple(_outs(lib, t, dtype, shape) for t in like)
    dt = like.dtype if dtype is None or not like.dtype.is_floating_point else dtype
    size = tuple(like.shape) if shape is None else shape
    return lib.empty(size, dtype=getattr(lib, str(dt).split(".")[1]))


def _tensors(x):
    return x if isinstance(x, tuple) else (x,)


def _reference(key):
    space, name = key.split(".")
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args, kwargs = _args(torch, CASES[key])
        return getattr(SPACES[space][1], name)(*args, **kwargs)


def _case(key):
    marks = [pytest.mark.xfail(strict=True, reason=NOT_WRITTEN[key])] if key in NOT_WRITTEN else []
    return pytest.param(key, marks=marks, id=key)


WRITTEN = [k for k in CASES if k not in NOT_WRITTEN]

_NO_KERNEL = "torch has no kernel for this out dtype (NotImplementedError); chainrule casts"
_INT_OUT = "torch computes in out's integer dtype; chainrule refuses a float result there"
# where chainrule still differs from torch: (test, case id) -> why
KNOWN = {
    ("resize", "torch.normal"): "torch raises on out's shape against mean's; chainrule resizes",
    ("dtype", "int64-torch.chain_matmul"): _INT_OUT,
    ("dtype", "int64-torch.lu"): _INT_OUT,
    ("dtype", "int64-torch.nanmean"): _NO_KERNEL,
    ("dtype", "int64-torch.nansum"): _NO_KERNEL,
    ("dtype", "int64-torch.normal"): _NO_KERNEL,
    ("dtype", "complex128-torch.bernoulli"): _NO_KERNEL,
    ("dtype", "complex128-torch.nanmean"): _NO_KERNEL,
    ("dtype", "complex128-torch.nansum"): _NO_KERNEL,
    ("dtype", "complex128-torch.range"): _NO_KERNEL,
}


def _params(test, ids):
    """pytest params of ``ids``, those in KNOWN for ``test`` marked as expected to fail."""
    return [
        pytest.param(
            *i.split("-") if test == "dtype" else (i,),
            id=i,
            marks=[pytest.mark.xfail(strict=True, reason=KNOWN[test, i])]
            if (test, i) in KNOWN
            else [],
        )
        for i in ids
    ]


@pytest.mark.parametrize("key", [_case(k) for k in CASES])
def test_out_is_returned_holding_torchs_values(key):
    want = _call(key, torch, _outs(torch, _reference(key)))
    out = _outs(cr, _reference(key))
    got = _call(key, cr, out)
    assert all(g is o for g, o in zip(_tensors(got), _tensors(out), strict=True))
    name = key.split(".")[1]
    for g, w in zip(_tensors(got), _tensors(want), strict=True):
        assert tuple(g.shape) == tuple(w.shape) and str(g.dtype) == str(w.dtype)
        if name in RANDOM:
            continue
        g, w = g.numpy(), w.numpy()
        if key == "linalg.eigh":  # eigenvectors up to sign
            g, w = np.abs(g), np.abs(w)
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-9)


def _resize_warnings(key, lib, shape):
    out = _outs(lib, _reference(key), shape=shape)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _call(key, lib, out)
    shapes = [tuple(o.shape) for o in _tensors(out)]
    return shapes, sum("was resized" in str(w.message) for w in caught)


@pytest.mark.parametrize("key", _params("resize", WRITTEN))
def test_a_wrongly_shaped_out_is_resized_as_torch_does(key):
    for shape in ((7,), (0,)):
        want = _resize_warnings(key, torch, shape)
        got = _resize_warnings(key, cr, shape)
        assert got[0] == want[0]
        assert bool(got[1]) == bool(want[1]), f"warned: {got[1]} vs torch {want[1]}"


# refused with another message than torch's (torch's names its C++ tensor types, or is
# a kernel's generic check)
OTHER_MESSAGE = {
    "torch.median",
    "torch.nanmedian",
    "torch.max",
    "torch.min",
    "torch.mvlgamma",
    "special.multigammaln",
    "torch.heaviside",
}


def _outcome(key, lib, dtype):
    out = _outs(lib, _reference(key), dtype=getattr(lib, dtype))
    try:
        _call(key, lib, out)
    except (RuntimeError, TypeError) as e:
        return type(e), None if key in OTHER_MESSAGE else str(e).split("\n")[0]
    return [str(o.dtype) for o in _tensors(out)]


@pytest.mark.parametrize(
    ("dtype", "key"),
    _params("dtype", [f"{d}-{k}" for k in WRITTEN for d in ("float32", "int64", "complex128")]),
)
def test_an_out_of_another_dtype_is_written_or_refused_as_torch_does(dtype, key):
    assert _outcome(key, cr, dtype) == _outcome(key, torch, dtype)


def _grad_error(key, lib):
    try:
        _call(key, lib, _outs(lib, _reference(key)), grad=True)
    except RuntimeError as e:
        return "don't support automatic differentiation" in str(e)
    return False


@pytest.mark.parametrize("key", _params("grad", WRITTEN))
def test_an_input_requiring_grad_is_refused_as_torch_does(key):
    assert _grad_error(key, cr) == _grad_error(key, torch)


def test_a_tuple_out_must_be_a_tuple_of_the_results_length():
    for lib in (cr, torch):
        x = lib.tensor(_INPUTS["A"])
        with pytest.raises(TypeError, match="must be tuple of Tensors"):
            lib.linalg.slogdet(x, out=lib.empty(0))
        with pytest.raises(TypeError, match="expected tuple of 2 elements but got 1"):
            lib.sort(x, out=(lib.empty(0),))
        with pytest.raises(TypeError, match=r"exp\(\): argument 'out' must be Tensor, not tuple"):
            lib.exp(x, out=(lib.empty(0),))
        values, indices = lib.empty(0, dtype=x.dtype), lib.empty(0, dtype=lib.int64)
        res = lib.sort(x, out=(values, indices))
        assert res.values is values and res.indices is indices


def test_a_composite_writes_a_recorded_copy_into_out():
    grads = []
    for lib in (cr, torch):
        x = lib.tensor(_INPUTS["B"], requires_grad=True)
        out = lib.empty(0, dtype=x.dtype)
        y = lib.tensordot(x, lib.tensor(_INPUTS["L"]), 1, out=out)
        assert y is out and out.requires_grad and tuple(out.shape) == (3, 3)
        (out * lib.tensor(_INPUTS["A"])).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10)


def test_an_out_of_another_dtype_gets_the_result_computed_in_its_dtype_where_torch_does():
    for fn in (
        lambda L, o: L.cumsum(L.tensor([0.6, 0.6, 1.7]), 0, out=o),
        lambda L, o: L.sum(L.tensor([[0.6, 0.6, 1.7]]), 1, out=o),
    ):
        got, want = (fn(L, L.empty(0, dtype=L.int64)).tolist() for L in (cr, torch))
        assert got == want


@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.isnan(L.ones(2), out=L.empty(2, dtype=L.bool)),
        lambda L: L.isinf(L.ones(2), out=L.empty(2, dtype=L.bool)),
        lambda L: L.isfinite(L.ones(2), out=L.empty(2, dtype=L.bool)),
        lambda L: L.nn.functional.sigmoid(L.ones(2), out=L.empty(2)),
        lambda L: L.nn.functional.tanh(L.ones(2), out=L.empty(2)),
    ],
)
def test_functions_without_out_refuse_it_as_torch(fn):
    mine, theirs = error_of(fn, cr), error_of(fn, torch)
    assert (type(mine), str(mine)) == (type(theirs), str(theirs))
