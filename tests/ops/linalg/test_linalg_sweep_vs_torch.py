"""torch.linalg and the legacy linear-algebra functions against PyTorch 2.13, as a grid: each
case runs on both libraries and compares every output (dtype, shape, values to the dtype's
tolerance, Python values exactly), the float64/complex128 inputs' gradients of a random
weighted real loss of the outputs, or the exception's type and message.

The cases are those a sweep found different: empty batches and 0×0 (or m×0) matrices, the
backward of lu at a singular matrix, the triangle a Cholesky factor is read from
(cholesky(upper=True), cholesky_inverse, cholesky_solve), cholesky_ex's partial factor,
pinv's and matrix_rank's tolerances (tensors, the older rcond/tol, hermitian read from
the lower triangle), cond of empty, singular and batched matrices, matrix_norm over empty
dims, lstsq's residuals (complex, vectors, batches) and checks, matrix_power(A, 0), vander,
tensorinv and tensorsolve, solve_triangular's cast of B to A's dtype, lu_unpack's flags,
torch.lu of non-square or singular matrices, and PyTorch's errors (their order: square
before dtype, the names logdet, inv, cholesky, lu_solve use, the CPU kernels' refusals).
A few cases that matched already stand beside them, across float32, float64 and
complex128, so that the grid shows each function's behaviour in one place.

Decompositions are compared through functions their gauge does not change (U S Vᴴ, |U|,
V Λ V⁻¹); at a singular matrix only what PyTorch's LAPACK computes the same way is
compared (its pivots and its infinities depend on rounding)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import chainrule
from oracle import relative_atol

DTYPES = {"float32": np.float32, "float64": np.float64, "complex128": np.complex128}

# (rtol, atol) of the values; atol grows with the size of PyTorch's values (relative_atol)
TOL = {np.float32: (2e-4, 2e-5), np.float64: (1e-7, 1e-9), np.complex128: (1e-7, 1e-9)}
GRAD_TOL = 1e-6


# ----- inputs: NumPy arrays, the same on both sides ------------------------------------------


def rn(*shape, dt=np.float64, seed=0):
    r = np.random.default_rng(seed)
    a = r.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        a = a + 1j * r.standard_normal(shape)
    return a.astype(dt)


def well(*shape, dt=np.float64, seed=0):
    """Well conditioned: random plus n on the diagonal."""
    return (rn(*shape, dt=dt, seed=seed) + shape[-1] * np.eye(shape[-1])).astype(dt)


def nonsymmetric_pd(dt=np.float64):
    """Positive-definite whichever triangle is read, but not symmetric."""
    a = rn(3, 3, dt=dt, seed=3)
    a = a @ np.conj(a.T) + np.eye(3)
    return (a + np.triu(rn(3, 3, dt=dt, seed=4), 1)).astype(dt)


NOT_PD = [  # LAPACK's potf2 stops at order 2, 3, 1 and 1
    np.array([[4.0, 2, 1, 3], [2, 1, 5, 1], [1, 5, 9, 2], [3, 1, 2, 8]]),
    np.array([[4.0, 2, 1, 3], [2, 5, 5, 1], [1, 5, 1, 2], [3, 1, 2, 8]]),
    -np.eye(3),
    np.zeros((2, 2)),
]

I33 = (np.arange(9).reshape(3, 3) + 5 * np.eye(3)).astype(np.int64)
I23 = np.arange(6).reshape(2, 3)
LOWRANK = rn(4, 2, seed=5) @ rn(2, 3, seed=6)  # rank 2
BATCH_TOL = rn(2, 3, 3, seed=7) @ np.diag([1.0, 1.0, 1e-3])  # smallest singular values ~1e-3


# ----- running a case ---------------------------------------------------------------------------


def _flat(x) -> list:
    if isinstance(x, (tuple, list)):
        return [y for item in x for y in _flat(item)]
    return [x]


def _describe(lib, x):
    if isinstance(x, lib.Tensor):
        values = x.detach().resolve_conj().numpy() if lib is torch else x.detach().numpy()
        return (str(x.dtype), tuple(x.shape), values, x.requires_grad)
    return ("python", x)


def _gradients(lib, inputs, outputs, seed=11):
    """d/dinputs of Σ w·Re(out) + w'·Im(out) over the outputs that require grad."""
    leaves = [t for t in inputs if isinstance(t, lib.Tensor) and t.requires_grad]
    outs = [o for o in outputs if isinstance(o, lib.Tensor) and o.requires_grad]
    if not leaves or not outs:
        return None
    r = np.random.default_rng(seed)
    loss = 0
    for o in outs:
        w = lib.tensor(r.standard_normal(tuple(o.shape)))
        if o.is_complex():
            w_im = lib.tensor(r.standard_normal(tuple(o.shape)))
            loss = loss + (o.real.double() * w).sum() + (o.imag.double() * w_im).sum()
        else:
            loss = loss + (o.double() * w).sum()
    grads = lib.autograd.grad(loss, leaves, allow_unused=True)
    return [None if g is None else g.detach().resolve_conj().numpy() for g in grads]


def _outcome(lib, fn, inputs, grad):
    """("ok", outputs, gradients) or (exception type, message)."""
    tensors = []
    for a in inputs:
        wants_grad = grad and a.dtype in (np.float64, np.complex128)
        tensors.append(lib.tensor(a, requires_grad=wants_grad))
    with warnings.catch_warnings():
        # (the deprecation notes of torch.cholesky, torch.lu, triangular_solve, lu_solve,
        # given by both; any other warning, a NumPy one escaping chainrule included, fails)
        warnings.simplefilter("ignore", UserWarning)
        try:
            outputs = _flat(fn(lib, *tensors))
            grads = _gradients(lib, tensors, outputs) if grad else None
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return (type(e).__name__, str(e).split("\nIf you")[0])
    return ("ok", [_describe(lib, o) for o in outputs], grads)


def _assert_values(got, want, rtol, atol, what):
    assert got.shape == want.shape, what
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(
            got, want, rtol=rtol, atol=relative_atol(want, atol), equal_nan=True, err_msg=what
        )
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def _compare(fn, inputs, grad=True, rtol=None, atol=None):
    want = _outcome(torch, fn, inputs, grad)
    got = _outcome(chainrule, fn, inputs, grad)
    if want[0] != "ok" or got[0] != "ok":
        assert got == want
        return
    _, want_outs, want_grads = want
    _, got_outs, got_grads = got
    assert len(got_outs) == len(want_outs)
    dtype = next((a.dtype.type for a in inputs if a.dtype.kind in "fc"), np.float64)
    r, a = TOL.get(dtype, TOL[np.float64])
    for i, (g, w) in enumerate(zip(got_outs, want_outs, strict=True)):
        if w[0] == "python":
            assert g == w, f"output {i}"
            continue
        assert g[0] == w[0], f"output {i}: dtype {g[0]} != torch's {w[0]}"
        assert g[1] == w[1], f"output {i}: shape {g[1]} != torch's {w[1]}"
        assert g[3] == w[3], f"output {i}: requires_grad {g[3]} != torch's {w[3]}"
        _assert_values(g[2], w[2], rtol or r, atol or a, f"output {i}")
    assert (got_grads is None) == (want_grads is None)
    for i, (g, w) in enumerate(zip(got_grads or [], want_grads or [], strict=True)):
        assert (g is None) == (w is None), f"gradient {i}"
        if w is not None:
            _assert_values(g, w, GRAD_TOL, GRAD_TOL, f"gradient of input {i}")


# ----- the grid: name -> (fn(lib, *tensors), inputs, options) --------------------------------


def _gauge_free_svd(lib, a, full):
    u, s, vh = lib.linalg.svd(a, full_matrices=full)
    k = s.shape[-1]
    return s, (u[..., :k] * s.unsqueeze(-2)) @ vh[..., :k, :], u[..., :k].abs()


def _gauge_free_eig(lib, a):
    w, v = lib.linalg.eig(a)
    return v @ lib.diag_embed(w) @ lib.linalg.inv(v)


def _gauge_free_eigh(lib, a, uplo):
    w, v = lib.linalg.eigh(a, UPLO=uplo)
    return w, (v * w.unsqueeze(-2)) @ v.mH, v.abs()


CASES: dict = {}

for _name, _dt in DTYPES.items():
    A, B = well(3, 3, dt=_dt), rn(3, 2, dt=_dt, seed=1)
    CASES |= {
        # values and gradients that matched: the grid's reference points
        f"det batched {_name}": (lambda L, a: L.linalg.det(a), [well(2, 3, 3, dt=_dt)], {}),
        f"slogdet {_name}": (lambda L, a: tuple(L.linalg.slogdet(a)), [well(2, 3, 3, dt=_dt)], {}),
        f"logdet {_name}": (lambda L, a: L.logdet(a), [well(2, 3, 3, dt=_dt)], {}),
        f"inv_ex batched {_name}": (
            lambda L, a: tuple(L.linalg.inv_ex(a)),
            [well(2, 3, 3, dt=_dt)],
            {},
        ),
        f"solve broadcast {_name}": (
            lambda L, a, b: L.linalg.solve(a, b),
            [well(2, 1, 3, 3, dt=_dt), rn(4, 3, 2, dt=_dt)],
            {},
        ),
        f"solve vector {_name}": (
            lambda L, a, b: L.linalg.solve(a, b),
            [well(2, 3, 3, dt=_dt), rn(2, 3, dt=_dt)],
            {},
        ),
        f"solve left=False {_name}": (
            lambda L, a, b: L.linalg.solve(a, b, left=False),
            [well(2, 3, 3, dt=_dt), rn(4, 3, dt=_dt)],
            {},
        ),
        f"solve_triangular right unit {_name}": (
            lambda L, a, b: L.linalg.solve_triangular(
                a, b, upper=True, left=False, unitriangular=True
            ),
            [A, rn(2, 3, dt=_dt)],
            {},
        ),
        f"lu_solve adjoint right {_name}": (
            lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False, adjoint=True),
            [well(2, 3, 3, dt=_dt), rn(2, 3, dt=_dt)],
            {},
        ),
        f"qr complete tall {_name}": (
            lambda L, a: tuple(L.linalg.qr(a, mode="complete")),
            [rn(4, 3, dt=_dt)],
            {},
        ),
        f"qr r wide {_name}": (lambda L, a: L.linalg.qr(a, mode="r")[1], [rn(2, 4, dt=_dt)], {}),
        f"svd full wide {_name}": (
            lambda L, a: _gauge_free_svd(L, a, True),
            [rn(2, 3, 5, dt=_dt)],
            {},
        ),
        f"svd reduced tall {_name}": (
            lambda L, a: _gauge_free_svd(L, a, False),
            [rn(5, 3, dt=_dt)],
            {},
        ),
        f"eigh UPLO=U {_name}": (
            lambda L, a: _gauge_free_eigh(L, a, "U"),
            [rn(2, 3, 3, dt=_dt)],
            {},
        ),
        f"eig of a real or complex matrix {_name}": (
            lambda L, a: _gauge_free_eig(L, a),
            [rn(3, 3, dt=_dt)],
            {},
        ),
        f"matrix_exp {_name}": (lambda L, a: L.linalg.matrix_exp(a), [rn(2, 4, 4, dt=_dt)], {}),
        f"matrix_power -3 {_name}": (lambda L, a: L.linalg.matrix_power(a, -3), [A], {}),
        # 0×0 matrices and empty batches
        f"inv_ex 0x0 {_name}": (lambda L, a: tuple(L.linalg.inv_ex(a)), [rn(2, 0, 0, dt=_dt)], {}),
        f"solve_ex 0x0 {_name}": (
            lambda L, a, b: tuple(L.linalg.solve_ex(a, b)),
            [rn(0, 0, dt=_dt), rn(0, 2, dt=_dt)],
            {},
        ),
        f"cholesky_ex 0x0 {_name}": (
            lambda L, a: tuple(L.linalg.cholesky_ex(a)),
            [rn(0, 0, dt=_dt)],
            {},
        ),
        f"lu_factor 0x3 {_name}": (
            lambda L, a: tuple(L.linalg.lu_factor_ex(a)),
            [rn(0, 3, dt=_dt)],
            {},
        ),
        f"lu 3x0 {_name}": (lambda L, a: tuple(L.linalg.lu(a)), [rn(3, 0, dt=_dt)], {}),
        f"lu_unpack 0x0 {_name}": (
            lambda L, a: tuple(L.lu_unpack(*L.linalg.lu_factor(a))),
            [rn(0, 0, dt=_dt)],
            {},
        ),
        f"lu_solve 0x0 {_name}": (
            lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False),
            [rn(0, 0, dt=_dt), rn(2, 0, dt=_dt)],
            {},
        ),
        f"torch.lu 0x0 {_name}": (
            lambda L, a: tuple(L.lu(a, get_infos=True)),
            [rn(0, 0, dt=_dt)],
            {},
        ),
        f"ldl_factor 0x0 {_name}": (
            lambda L, a: tuple(L.linalg.ldl_factor(a)),
            [rn(0, 0, dt=_dt)],
            {"grad": False},
        ),
        f"lu pivot=False empty {_name}": (
            lambda L, a: tuple(L.linalg.lu(a, pivot=False)),
            [rn(0, 3, 3, dt=_dt)],
            {},
        ),
        f"cond empty {_name}": (lambda L, a: L.linalg.cond(a), [rn(0, 3, 3, dt=_dt)], {}),
        f"cond 0x0 ord=1 {_name}": (lambda L, a: L.linalg.cond(a, 1), [rn(0, 0, dt=_dt)], {}),
        f"cond 0x0 fro {_name}": (lambda L, a: L.linalg.cond(a, "fro"), [rn(0, 0, dt=_dt)], {}),
        # singular matrices
        f"lu singular gradient {_name}": (
            lambda L, a: tuple(L.linalg.lu(a)),
            [rn(3, 3, dt=_dt) * np.array([0.0, 1, 1])],
            {},
        ),
        f"torch.lu singular {_name}": (
            lambda L, a: tuple(L.lu(a)),
            [np.zeros((2, 3, 3), _dt)],
            {"grad": False},
        ),
        f"inv_ex singular gradient is nan {_name}": (  # (LAPACK's inverse: NaN and inf)
            lambda L, a: (lambda inverse, info: (info, (inverse * 0).sum()))(*L.linalg.inv_ex(a)),
            [np.zeros((2, 3, 3), _dt)],
            {},
        ),
        f"cond singular ord=1 {_name}": (
            lambda L, a: L.linalg.cond(a, 1),
            [np.array([[1.0, 2], [2, 4]], _dt)],
            {"grad": False},
        ),
        f"cond singular fro {_name}": (
            lambda L, a: L.linalg.cond(a, "fro"),
            [np.array([[1.0, 2], [2, 4]], _dt)],
            {"grad": False},
        ),
        f"cond batch with a singular matrix {_name}": (
            lambda L, a: L.linalg.cond(a, -math.inf),
            [np.stack([np.array([[1.0, 2], [2, 4]]), np.eye(2)]).astype(_dt)],
            {"grad": False},
        ),
        # the triangle read from a Cholesky factor
        f"cholesky upper reads the upper triangle {_name}": (
            lambda L, a: L.linalg.cholesky(a, upper=True),
            [nonsymmetric_pd(_dt)],
            {},
        ),
        f"torch.cholesky upper {_name}": (
            lambda L, a: L.cholesky(a, upper=True),
            [nonsymmetric_pd(_dt)],
            {},
        ),
        f"cholesky_ex upper {_name}": (
            lambda L, a: tuple(L.linalg.cholesky_ex(a, upper=True)),
            [nonsymmetric_pd(_dt)],
            {},
        ),
        f"cholesky_inverse of a full matrix {_name}": (
            lambda L, a: L.cholesky_inverse(a),
            [well(2, 3, 3, dt=_dt)],
            {},
        ),
        f"cholesky_inverse upper {_name}": (
            lambda L, a: L.cholesky_inverse(a, upper=True),
            [well(3, 3, dt=_dt)],
            {},
        ),
        f"cholesky_solve of a full matrix {_name}": (
            lambda L, a, b: L.cholesky_solve(b, a),
            [well(2, 1, 3, 3, dt=_dt), rn(4, 3, 2, dt=_dt)],
            {},
        ),
        f"cholesky_solve upper {_name}": (
            lambda L, a, b: L.cholesky_solve(b, a, upper=True),
            [well(3, 3, dt=_dt), rn(2, 3, 2, dt=_dt)],
            {},
        ),
        # pseudo-inverse and rank
        f"pinv hermitian reads the lower triangle {_name}": (
            lambda L, a: L.linalg.pinv(a, hermitian=True),
            [rn(3, 3, dt=_dt)],
            {},
        ),
        f"matrix_rank hermitian {_name}": (
            lambda L, a: L.linalg.matrix_rank(a, hermitian=True),
            [rn(3, 3, dt=_dt)],
            {"grad": False},
        ),
        f"pinv atol tensor {_name}": (
            lambda L, a: L.linalg.pinv(a, atol=L.tensor([0.01, 0.1])),
            [BATCH_TOL.astype(_dt)],
            {},
        ),
        f"pinv rtol tensor hermitian {_name}": (
            lambda L, a: L.linalg.pinv(a, rtol=L.tensor([0.01, 0.1]), hermitian=True),
            [BATCH_TOL.astype(_dt)],
            {},
        ),
        f"pinv rcond positional {_name}": (
            lambda L, a: L.linalg.pinv(a, 0.3),
            [LOWRANK.astype(_dt)],
            {},
        ),
        f"matrix_rank rtol tensor {_name}": (
            lambda L, a: L.linalg.matrix_rank(a, rtol=L.tensor([0.01, 0.1])),
            [BATCH_TOL.astype(_dt)],
            {"grad": False},
        ),
        f"matrix_rank tol positional {_name}": (
            lambda L, a: L.linalg.matrix_rank(a, L.tensor([[0.01], [1.0]])),
            [BATCH_TOL.astype(_dt)],
            {"grad": False},
        ),
        f"matrix_rank atol hermitian {_name}": (
            lambda L, a: L.linalg.matrix_rank(a, atol=0.5, hermitian=True),
            [BATCH_TOL.astype(_dt)],
            {"grad": False},
        ),
        f"matrix_rank empty {_name}": (
            lambda L, a: L.linalg.matrix_rank(a),
            [rn(2, 0, 3, dt=_dt)],
            {"grad": False},
        ),
        # norms
        f"matrix_norm 1 dims (-1, 0) {_name}": (
            lambda L, a: L.linalg.matrix_norm(a, 1, dim=(-1, 0), keepdim=True),
            [rn(2, 3, 4, dt=_dt)],
            {},
        ),
        f"matrix_norm -inf keepdim {_name}": (
            lambda L, a: L.linalg.matrix_norm(a, -math.inf, keepdim=True),
            [rn(2, 3, 4, dt=_dt)],
            {},
        ),
        f"matrix_norm 2 of 0x0 {_name}": (
            lambda L, a: L.linalg.matrix_norm(a, 2),
            [rn(0, 0, dt=_dt)],
            {},
        ),
        f"matrix_norm 1 of 3x0 {_name}": (
            lambda L, a: L.linalg.matrix_norm(a, 1, keepdim=True),
            [rn(3, 0, dt=_dt)],
            {},
        ),
        f"matrix_norm inf over an empty dim {_name}": (
            lambda L, a: L.linalg.matrix_norm(a, math.inf, dim=(0, -1)),
            [rn(0, 3, 3, dt=_dt)],
            {},
        ),
        f"matrix_norm -1 over an empty dim {_name}": (
            lambda L, a: L.linalg.matrix_norm(a, -1, keepdim=True),
            [rn(3, 0, dt=_dt)],
            {},
        ),
        f"matrix_norm -2 of 0x0 {_name}": (
            lambda L, a: L.linalg.matrix_norm(a, -2),
            [rn(0, 0, dt=_dt)],
            {},
        ),
        f"norm nuc dims {_name}": (
            lambda L, a: L.linalg.norm(a, "nuc", dim=(0, 2)),
            [rn(2, 3, 4, dt=_dt)],
            {},
        ),
        # least squares
        f"lstsq gelsd residuals {_name}": (
            lambda L, a, b: tuple(L.linalg.lstsq(a, b, driver="gelsd")),
            [rn(5, 3, dt=_dt), rn(5, 2, dt=_dt)],
            {},
        ),
        f"lstsq gels vector {_name}": (
            lambda L, a, b: tuple(L.linalg.lstsq(a, b, driver="gels")),
            [rn(5, 3, dt=_dt), rn(5, dt=_dt)],
            {},
        ),
        f"lstsq batch of vectors {_name}": (
            lambda L, a, b: tuple(L.linalg.lstsq(a, b, driver="gelss")),
            [rn(2, 5, 3, dt=_dt), rn(2, 5, dt=_dt)],
            {},
        ),
        f"lstsq broadcast {_name}": (
            lambda L, a, b: tuple(L.linalg.lstsq(a, b)),
            [rn(1, 5, 3, dt=_dt), rn(2, 5, 2, dt=_dt)],
            {},
        ),
        f"lstsq rank-deficient rcond {_name}": (
            lambda L, a, b: tuple(L.linalg.lstsq(a, b, rcond=0.1, driver="gelsd")),
            [LOWRANK.astype(_dt), rn(4, 2, dt=_dt)],
            {},
        ),
        f"lstsq fewer dims in A {_name}": (
            lambda L, a, b: L.linalg.lstsq(a, b),
            [rn(4, 3, dt=_dt), rn(2, 4, 2, dt=_dt)],
            {},
        ),
        # powers, vander, tensorinv, tensorsolve
        f"matrix_power 0 {_name}": (
            lambda L, a: L.linalg.matrix_power(a, 0),
            [well(2, 3, 3, dt=_dt)],
            {},
        ),
        f"matrix_power 1 is a copy {_name}": (
            lambda L, a: L.linalg.matrix_power(a, 1) is a,
            [A],
            {"grad": False},
        ),
        f"vander with a zero {_name}": (
            lambda L, x: L.linalg.vander(x, N=4),
            [np.array([0.0, 1.5, -2.0], _dt)],
            {},
        ),
        f"vander 0-d {_name}": (lambda L, x: L.linalg.vander(x), [np.array(2.0, _dt)], {}),
        f"vander N=1 {_name}": (lambda L, x: L.linalg.vander(x, N=1), [rn(3, dt=_dt)], {}),
        f"tensorinv singular {_name}": (
            lambda L, a: L.linalg.tensorinv(a, ind=1),
            [np.zeros((4, 2, 2), _dt)],
            {},
        ),
        f"tensorinv ind=0 {_name}": (
            lambda L, a: L.linalg.tensorinv(a, ind=0),
            [rn(2, 3, dt=_dt)],
            {},
        ),
        f"tensorsolve checks only the products {_name}": (
            lambda L, a, b: L.linalg.tensorsolve(a, b),
            [well(6, 6, dt=_dt).reshape(2, 3, 6), rn(3, 2, dt=_dt)],
            {},
        ),
        # solve_triangular takes B in A's dtype
        f"solve_triangular float32 B {_name}": (
            lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True),
            [A, rn(3, 2, dt=np.float32)],
            {},
        ),
        f"lu_unpack without data {_name}": (
            lambda L, a: tuple(L.lu_unpack(*L.linalg.lu_factor(a), unpack_data=False)),
            [A],
            {"grad": False},
        ),
        f"lu_unpack without pivots {_name}": (
            lambda L, a: tuple(L.lu_unpack(*L.linalg.lu_factor(a), unpack_pivots=False)),
            [A],
            {},
        ),
        f"torch.lu wide {_name}": (
            lambda L, a: tuple(L.lu(a, get_infos=True)),
            [rn(2, 3, 4, dt=_dt)],
            {},
        ),
        f"torch.lu tall {_name}": (
            lambda L, a: tuple(L.lu(a, get_infos=True)),
            [rn(4, 3, dt=_dt)],
            {},
        ),
    }
    for _i, _m in enumerate(NOT_PD):
        for _upper in (False, True):
            CASES[f"cholesky_ex not positive-definite {_i} upper={_upper} {_name}"] = (
                lambda L, a, up=_upper: tuple(L.linalg.cholesky_ex(a, upper=up)),
                [_m.astype(_dt)],
                {"grad": False},  # (PyTorch's gradient runs through the partial factor)
            )
    CASES[f"cholesky_ex check_errors {_name}"] = (
        lambda L, a: L.linalg.cholesky_ex(a, check_errors=True),
        [np.stack(NOT_PD[:2]).astype(_dt)],
        {},
    )
    CASES[f"torch.cholesky not positive-definite {_name}"] = (
        lambda L, a: L.cholesky(a),
        [NOT_PD[0].astype(_dt)],
        {},
    )

CASES |= {
    "cholesky_inverse of a complex diagonal": (
        lambda L, a: L.cholesky_inverse(a),
        [well(3, 3, dt=np.complex128)],
        {},
    ),
    "lstsq complex residuals": (
        lambda L, a, b: tuple(L.linalg.lstsq(a, b, driver="gelsd")),
        [rn(2, 5, 3, dt=np.complex128), rn(2, 5, 2, dt=np.complex128)],
        {},
    ),
    "solve_triangular complex A, real B": (
        lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True),
        [well(3, 3, dt=np.complex64), rn(3, 2, dt=np.float32)],
        {},
    ),
    "vander integers": (lambda L, x: L.linalg.vander(x), [np.array([1, 2, 3], np.int32)], {}),
    # PyTorch's errors: order, names, messages
    "det int non-square": (lambda L, a: L.linalg.det(a), [I23], {}),
    "det float16": (lambda L, a: L.linalg.det(a), [I33.astype(np.float16)], {}),
    "slogdet int non-square": (lambda L, a: L.linalg.slogdet(a), [I23], {}),
    "logdet int": (lambda L, a: L.logdet(a), [I33], {}),
    "logdet 1-D": (lambda L, a: L.logdet(a), [rn(3)], {}),
    "logdet non-square": (lambda L, a: L.logdet(a), [rn(2, 3)], {}),
    "inv int non-square": (lambda L, a: L.linalg.inv(a), [I23], {}),
    "inv_ex int": (lambda L, a: L.linalg.inv_ex(a), [I33], {}),
    "inv_ex 1-D": (lambda L, a: L.linalg.inv_ex(a), [rn(3)], {}),
    "cholesky float16": (lambda L, a: L.linalg.cholesky(a), [I33.astype(np.float16)], {}),
    "torch.cholesky int": (lambda L, a: L.cholesky(a), [I33], {}),
    "torch.cholesky non-square": (lambda L, a: L.cholesky(a), [rn(2, 3)], {}),
    "cholesky_inverse int": (lambda L, a: L.cholesky_inverse(a), [I33], {}),
    "cholesky_inverse non-square": (lambda L, a: L.cholesky_inverse(a), [rn(2, 3)], {}),
    "cholesky_inverse 1-D": (lambda L, a: L.cholesky_inverse(a), [rn(3)], {}),
    "cholesky_solve shapes": (lambda L, a, b: L.cholesky_solve(b, a), [well(3, 3), rn(2, 2)], {}),
    "cholesky_solve 1-D b": (lambda L, a, b: L.cholesky_solve(b, a), [well(3, 3), rn(3)], {}),
    "cholesky_solve dtypes": (
        lambda L, a, b: L.cholesky_solve(b, a),
        [well(3, 3), rn(3, 2, dt=np.float32)],
        {},
    ),
    "cholesky_solve batches": (
        lambda L, a, b: L.cholesky_solve(b, a),
        [well(2, 3, 3), rn(3, 3, 2)],
        {},
    ),
    "cholesky_solve int": (lambda L, a, b: L.cholesky_solve(b, a), [I33, I33], {}),
    "lu int": (lambda L, a: L.linalg.lu(a), [I23], {}),
    "lu 1-D": (lambda L, a: L.linalg.lu(a), [rn(3)], {}),
    "lu pivot=False": (lambda L, a: L.linalg.lu(a, pivot=False), [rn(3, 3)], {}),
    "lu_factor pivot=False": (lambda L, a: L.linalg.lu_factor(a, pivot=False), [rn(3, 3)], {}),
    "torch.lu pivot=False": (lambda L, a: L.lu(a, pivot=False), [rn(3, 3)], {}),
    "qr float16": (lambda L, a: L.linalg.qr(a), [rn(3, 3).astype(np.float16)], {}),
    "geqrf float16": (lambda L, a: L.geqrf(a), [rn(3, 3).astype(np.float16)], {}),
    "eigh int": (lambda L, a: L.linalg.eigh(a), [I33], {}),
    "eigvalsh int non-square": (lambda L, a: L.linalg.eigvalsh(a), [I23], {}),
    "eig int non-square": (lambda L, a: L.linalg.eig(a), [I23], {}),
    "eigvals float16": (lambda L, a: L.linalg.eigvals(a), [rn(3, 3).astype(np.float16)], {}),
    "svd float16": (lambda L, a: L.linalg.svd(a), [rn(3, 3).astype(np.float16)], {}),
    "svd driver on the CPU": (lambda L, a: L.linalg.svd(a, driver="gesvd"), [rn(3, 3)], {}),
    "svdvals driver on the CPU": (lambda L, a: L.linalg.svdvals(a, driver="gesvd"), [rn(3, 3)], {}),
    "torch.svd 1-D": (lambda L, a: L.svd(a), [rn(3)], {}),
    "pinv int": (lambda L, a: L.linalg.pinv(a), [I23], {}),
    "pinv 1-D": (lambda L, a: L.linalg.pinv(a), [rn(3)], {}),
    "pinv complex atol": (lambda L, a: L.linalg.pinv(a, atol=L.tensor(1j)), [rn(3, 3)], {}),
    "pinv hermitian non-square": (lambda L, a: L.linalg.pinv(a, hermitian=True), [rn(2, 3)], {}),
    "matrix_rank int": (lambda L, a: L.linalg.matrix_rank(a), [I33], {}),
    "matrix_rank int with tolerances": (
        lambda L, a: L.linalg.matrix_rank(a, atol=1.0, rtol=0.0),
        [I33],
        {},
    ),
    "matrix_rank float16": (
        lambda L, a: L.linalg.matrix_rank(a),
        [rn(3, 3).astype(np.float16)],
        {},
    ),
    "matrix_rank 1-D": (lambda L, a: L.linalg.matrix_rank(a), [rn(3)], {}),
    "matrix_rank complex rtol": (
        lambda L, a: L.linalg.matrix_rank(a, rtol=L.tensor(1j)),
        [rn(3, 3)],
        {},
    ),
    "matrix_rank hermitian non-square": (
        lambda L, a: L.linalg.matrix_rank(a, hermitian=True),
        [rn(2, 3)],
        {},
    ),
    "cond 1-D": (lambda L, a: L.linalg.cond(a), [rn(3)], {}),
    "cond fro 1-D": (lambda L, a: L.linalg.cond(a, "fro"), [rn(3)], {}),
    "cond ord=1 non-square": (lambda L, a: L.linalg.cond(a, 1), [rn(3, 4)], {}),
    "cond ord=1.0 non-square": (lambda L, a: L.linalg.cond(a, 1.0), [rn(3, 4)], {}),
    "cond ord=-inf non-square": (lambda L, a: L.linalg.cond(a, -math.inf), [rn(3, 4)], {}),
    "cond nuc non-square": (lambda L, a: L.linalg.cond(a, "nuc"), [rn(3, 4)], {}),
    "cond invalid order": (lambda L, a: L.linalg.cond(a, 3), [rn(3, 3)], {}),
    "cond invalid string non-square": (lambda L, a: L.linalg.cond(a, "foo"), [rn(3, 4)], {}),
    "cond ord=1 int": (lambda L, a: L.linalg.cond(a, 1), [I33], {}),
    "matrix_power 1-D": (lambda L, a: L.linalg.matrix_power(a, 2), [rn(3)], {}),
    "matrix_power non-square": (lambda L, a: L.linalg.matrix_power(a, 2), [rn(2, 3)], {}),
    "solve int non-square": (lambda L, a, b: L.linalg.solve(a, b), [I23, I33], {}),
    "solve float16": (
        lambda L, a, b: L.linalg.solve(a, b),
        [well(3, 3).astype(np.float16), rn(3).astype(np.float16)],
        {},
    ),
    "solve 0-d B": (lambda L, a, b: L.linalg.solve(a, b), [well(3, 3), np.array(1.0)], {}),
    "solve left=False shapes": (
        lambda L, a, b: L.linalg.solve(a, b, left=False),
        [well(3, 3), rn(3, 2)],
        {},
    ),
    "solve left=False vector": (
        lambda L, a, b: L.linalg.solve(a, b, left=False),
        [well(3, 3), rn(2)],
        {},
    ),
    "solve left=False 1-D A": (
        lambda L, a, b: L.linalg.solve(a, b, left=False),
        [rn(3), rn(3)],
        {},
    ),
    "solve batches": (lambda L, a, b: L.linalg.solve(a, b), [well(2, 3, 3), rn(3, 3, 2)], {}),
    "solve singular batch element": (
        lambda L, a, b: L.linalg.solve(a, b),
        [np.stack([np.eye(3), np.zeros((3, 3))]), rn(3, 2)],
        {"grad": False},
    ),
    "solve_ex dtypes": (
        lambda L, a, b: L.linalg.solve_ex(a, b),
        [well(3, 3), rn(3, 2, dt=np.float32)],
        {},
    ),
    "solve_triangular int": (
        lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True),
        [I33, I33],
        {},
    ),
    "solve_triangular 1-D A": (
        lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True),
        [rn(3), rn(3)],
        {},
    ),
    "solve_triangular right shapes": (
        lambda L, a, b: L.linalg.solve_triangular(a, b.float(), upper=True, left=False),
        [well(3, 3), rn(3, 2)],
        {},
    ),
    "solve_triangular batches": (
        lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True),
        [well(2, 3, 3), rn(3, 3, 2)],
        {},
    ),
    "triangular_solve shapes": (
        lambda L, a, b: L.triangular_solve(b, a),
        [well(3, 3), rn(2, 2)],
        {},
    ),
    "triangular_solve 1-D b": (lambda L, a, b: L.triangular_solve(b, a), [well(3, 3), rn(3)], {}),
    "triangular_solve dtypes": (
        lambda L, a, b: L.triangular_solve(b, a),
        [well(3, 3), rn(3, 2, dt=np.float32)],
        {},
    ),
    "triangular_solve int": (lambda L, a, b: L.triangular_solve(b, a), [I33, I33], {}),
    "triangular_solve non-square": (
        lambda L, a, b: L.triangular_solve(b, a),
        [rn(2, 3), rn(2, 2)],
        {},
    ),
    "lu_solve shapes": (
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b),
        [well(3, 3), rn(2, 2)],
        {},
    ),
    "lu_solve right shapes": (
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False),
        [well(3, 3), rn(3, 2)],
        {},
    ),
    "lu_solve 1-D B": (
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b),
        [well(3, 3), rn(3)],
        {},
    ),
    "lu_solve dtypes": (
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b),
        [well(3, 3), rn(3, 2, dt=np.float32)],
        {},
    ),
    "lu_solve batches": (
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b),
        [well(2, 3, 3), rn(3, 3, 2)],
        {},
    ),
    "lu_solve int64 pivots": (
        lambda L, a, b: L.linalg.lu_solve(
            L.linalg.lu_factor(a)[0], L.linalg.lu_factor(a)[1].long(), b
        ),
        [well(3, 3), rn(3, 2)],
        {},
    ),
    "torch.lu_solve shapes": (
        lambda L, a, b: L.lu_solve(b, *L.linalg.lu_factor(a)),
        [well(3, 3), rn(2, 2)],
        {},
    ),
    "ldl_solve batches": (
        lambda L, a, b: L.linalg.ldl_solve(*L.linalg.ldl_factor(a), b),
        [well(2, 3, 3), rn(3, 3, 2)],
        {"grad": False},
    ),
    "ldl_solve 0-d B": (
        lambda L, a, b: L.linalg.ldl_solve(*L.linalg.ldl_factor(a), b),
        [well(3, 3), np.array(1.0)],
        {"grad": False},
    ),
    "ldl_factor float16": (lambda L, a: L.linalg.ldl_factor(a), [rn(3, 3).astype(np.float16)], {}),
    "lstsq 1-D": (lambda L, a, b: L.linalg.lstsq(a, b), [rn(3), rn(3)], {}),
    "lstsq 0-d B": (lambda L, a, b: L.linalg.lstsq(a, b), [rn(3, 3), np.array(1.0)], {}),
    "lstsq rows": (lambda L, a, b: L.linalg.lstsq(a, b), [rn(4, 3), rn(3, 2)], {}),
    "lstsq vector rows": (lambda L, a, b: L.linalg.lstsq(a, b), [rn(4, 3), rn(3)], {}),
    "lstsq dtypes": (lambda L, a, b: L.linalg.lstsq(a, b), [rn(4, 3), rn(4, 2, dt=np.float32)], {}),
    "lstsq int": (lambda L, a, b: L.linalg.lstsq(a, b), [I33, I33], {}),
    "lstsq float16": (lambda L, a, b: L.linalg.lstsq(a, b), [rn(3, 3).astype(np.float16)] * 2, {}),
    "lstsq batches": (lambda L, a, b: L.linalg.lstsq(a, b), [rn(2, 4, 3), rn(3, 4, 2)], {}),
    "vander bool": (lambda L, x: L.linalg.vander(x), [np.array([True, False])], {}),
    "vander float16": (lambda L, x: L.linalg.vander(x), [rn(3).astype(np.float16)], {}),
    "cross 0-d": (lambda L, a, b: L.linalg.cross(a, b), [np.array(1.0), np.array(2.0)], {}),
    "cross bool": (lambda L, a, b: L.linalg.cross(a, b), [np.ones((2, 3), bool)] * 2, {}),
    "householder_product 0-d tau": (
        lambda L, a, t: L.linalg.householder_product(a, t),
        [rn(3, 3), np.array(1.0)],
        {},
    ),
    "householder_product float16": (
        lambda L, a, t: L.linalg.householder_product(a, t),
        [rn(3, 3).astype(np.float16), rn(3).astype(np.float16)],
        {},
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_linalg_case_matches_pytorch(name):
    fn, inputs, options = CASES[name]
    _compare(fn, inputs, **options)


@pytest.mark.parametrize("dt", [np.float64, np.complex128], ids=["f64", "c128"])
@pytest.mark.parametrize("fn", ["slogdet", "logdet"])
def test_log_det_backward_at_a_singular_matrix_gives_infinities_not_an_error(fn, dt):
    """PyTorch's backward solves with the singular LU factors (no check): infinities and
    NaNs where U has a zero on its diagonal, never an error; which entries depend on the
    factors' rounding, so only that is compared."""
    a = np.array([[1.0, 2, 3], [2, 4, 6], [3, 6, 9]], dt)  # rank 1
    grads = []
    for lib in (torch, chainrule):
        x = lib.tensor(a, requires_grad=True)
        out = lib.linalg.slogdet(x)[1] if fn == "slogdet" else lib.logdet(x).real
        (g,) = lib.autograd.grad(out, x)
        grads.append(g.resolve_conj().numpy() if lib is torch else g.numpy())
    assert not np.isfinite(grads[0]).all() and not np.isfinite(grads[1]).all()
