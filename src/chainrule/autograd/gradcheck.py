"""``gradcheck`` and ``gradgradcheck``: compare analytical Jacobians with finite differences.

``gradcheck(func, inputs)`` computes, for every output and every input that
requires grad, the Jacobian twice: by backward passes (one per output element:
what autograd computes) and by central differences
``(f(x + eps·e_k) - f(x - eps·e_k)) / 2eps`` (one pair of calls per input
element). They must agree to ``|analytical - numerical| <= atol + rtol·|numerical|``,
so a custom ``Function`` with a wrong ``backward`` is caught. ``gradgradcheck``
runs the same check on the function that maps ``(inputs, grad_outputs)`` to the
gradients, which checks second derivatives.

Use float64 (or complex128) inputs: in float32 the finite differences are too coarse for
the default tolerances (a warning says so, as PyTorch's does).

Complex values are checked as PyTorch checks them: a complex output is checked as its real
part, then as its imaginary part (each a real function, the message naming the part); for
a complex input the numerical column is ∂s/∂x + i ∂s/∂y (finite differences along the real
and the imaginary direction), the gradient autograd gives for a real output s (PyTorch's
convention, the conjugate Wirtinger derivative). In forward mode a complex input's
tangents are e_k and i e_k, combined the same way.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from .._backend import like, to_host, xp
from .._dtypes import complex128, float64
from .._dtypes import dtype as DType
from .._tensor import Tensor, _make

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` and ``gradgradcheck`` when a check fails."""


def _as_tuple(x: Any) -> tuple:
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _outputs(func: Callable, inputs: tuple) -> tuple:
    return _as_tuple(func(*inputs))


def _differentiable_inputs(inputs: tuple) -> list[int]:
    idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not idx:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True."
        )
    for i in idx:
        if inputs[i].dtype not in (float64, complex128):
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                stacklevel=3,
            )
    return idx


def _is_float(t: Any) -> bool:
    """A floating or complex tensor (one that can carry gradients)."""
    return isinstance(t, Tensor) and (t.is_floating_point() or t.is_complex())


def _jacobian(x: Tensor, out: Any) -> Any:
    """An empty Jacobian block: (elements of x) x (elements of out), complex for a
    complex x (its entries ∂s/∂x + i ∂s/∂y)."""
    if not _is_float(out):
        return None
    return xp.zeros((x.numel(), out.numel()), dtype=complex if x.is_complex() else float)


def _put(jac: Any, k: int, column: Any, direction: complex) -> None:
    """Row k of a Jacobian block: the column along the real direction as it is (zeros keep
    their sign, as PyTorch's copies), i times the one along the imaginary direction added."""
    if direction == 1:
        jac[k] = column
    else:
        jac[k] += column * direction


def _real_and_imag_output(func: Callable) -> tuple[Callable, Callable]:
    """func with its complex outputs replaced by their real parts, and by their imaginary
    parts (real outputs as they are)."""

    def part(take: Callable) -> Callable:
        def wrapped(*inputs: Any) -> tuple:
            return tuple(
                take(o) if isinstance(o, Tensor) and o.is_complex() else o
                for o in _outputs(func, inputs)
            )

        return wrapped

    return part(lambda o: o.real), part(lambda o: o.imag)


def _numerical(func: Callable, inputs: tuple, idx: list[int], eps: float) -> list[list]:
    """J_num[i][o]: (elements of input i) x (elements of output o), by central differences;
    along the real and the imaginary direction for a complex input: ∂s/∂x + i ∂s/∂y."""
    outs = _outputs(func, inputs)
    jac = [[_jacobian(inputs[i], o) for o in outs] for i in idx]
    for row, i in zip(jac, idx):
        data = inputs[i]._data  # perturbed in place, as func may hold on to the tensor
        directions = (1, 1j) if data.dtype.kind == "c" else (1,)
        for k in range(data.size):
            pos = xp.unravel_index(k, data.shape)
            orig = data[pos].item()
            for direction in directions:
                values = []
                for step in (eps, -eps):
                    data[pos] = orig + step * direction
                    # copies: an output may be the input itself, or a view of it
                    values.append(
                        [xp.array(to_host(o._data), copy=True) for o in _outputs(func, inputs)]
                    )
                data[pos] = orig
                for o, (plus, minus) in enumerate(zip(*values)):
                    if row[o] is not None:
                        diff = plus - minus  # in the output dtype, as PyTorch
                        _put(row[o], k, diff.reshape(-1) / (2 * eps), direction)
    return jac


def _analytical(outs: tuple, inputs: tuple, idx: list[int]) -> list[list]:
    """J_an[i][o], by one backward pass per output element."""
    from . import grad

    diff_inputs = [inputs[i] for i in idx]
    jac = [[_jacobian(inputs[i], o) for o in outs] for i in idx]
    for o, out in enumerate(outs):
        if not _is_float(out) or not out.requires_grad:
            continue
        for k in range(out.numel()):
            onehot = xp.zeros(out.numel(), dtype=out.dtype.np)
            onehot[k] = 1
            grads = grad(
                out,
                diff_inputs,
                _make(like(out._data, onehot.reshape(out._data.shape)), out.dtype),
                retain_graph=True,
                allow_unused=True,
            )
            for n, g in enumerate(grads):
                if g is not None:
                    jac[n][o][:, k] = to_host(g._data).reshape(-1)
    return jac


def _forward_analytical(func: Callable, inputs: tuple, idx: list[int], n_out: int) -> list[list]:
    """J_fw[i][o], by one forward-mode pass per input element (two for a complex one:
    tangents e_k and i e_k, combined as ∂s/∂x + i ∂s/∂y)."""
    from . import forward_ad as fwd

    jac: list[list] = []
    for i in idx:
        x = inputs[i]
        row: list = [None] * n_out
        directions = (1, 1j) if x.is_complex() else (1,)
        for k in range(x.numel()):
            for direction in directions:
                tangent = xp.zeros(x.numel(), dtype=x.dtype.np)
                tangent[k] = direction
                with fwd.dual_level():
                    t_k = like(x._data, tangent.reshape(x._data.shape))  # on x's device
                    dual = fwd.make_dual(x.detach(), _make(t_k, x.dtype))
                    args = tuple(dual if j == i else a for j, a in enumerate(inputs))
                    outs = _outputs(func, args)
                    for o, out in enumerate(outs):
                        if not _is_float(out):
                            continue
                        if row[o] is None:
                            row[o] = _jacobian(x, out)
                        t = fwd.unpack_dual(out).tangent
                        if t is not None:
                            _put(row[o], k, to_host(t._data).reshape(-1), direction)
        jac.append(row)
    return jac


def _show(arr: Any, dtype: DType) -> str:
    return str(_make(xp.asarray(arr, dtype=dtype.np), dtype))


def _compare(
    numerical: list[list],
    analytical: list[list],
    inputs: tuple,
    idx: list[int],
    outs: tuple,
    atol: float,
    rtol: float,
    what: str,
    prefix: Callable[[int], str] = lambda o: "",
) -> str | None:
    for n, i in enumerate(idx):
        for o in range(len(outs)):
            num, an = numerical[n][o], analytical[n][o]
            if num is None or an is None:
                continue
            if not xp.allclose(an, num, rtol=rtol, atol=atol):
                dtype = inputs[i].dtype
                return (
                    f"{prefix(o)}{what} mismatch for output {o} with respect to input {i},\n"
                    f"numerical:{_show(num, dtype)}\nanalytical:{_show(an, dtype)}\n"
                )
    return None


def gradcheck(
    func: Callable,
    inputs: Tensor | Sequence[Tensor],
    *,
    eps: float = 1e-06,
    atol: float = 1e-05,
    rtol: float = 0.001,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Whether the gradients of ``func`` at ``inputs`` match finite differences.

    On a mismatch, raises ``GradcheckError`` naming the output and input and showing both
    Jacobians (rows: input elements, columns: output elements), or returns False when
    ``raise_exception=False``. ``fast_mode`` and the batched checks are accepted and run
    as the full check.
    """
    inputs = _as_tuple(inputs)

    def fail(msg: str) -> bool:
        if raise_exception:
            raise GradcheckError(msg)
        return False

    idx = _differentiable_inputs(inputs)
    from . import grad_mode

    with grad_mode.enable_grad():
        outs = _outputs(func, inputs)
    complex_outs = {o for o, out in enumerate(outs) if isinstance(out, Tensor) and out.is_complex()}
    if not complex_outs:
        msg = _check(func, inputs, idx, eps, atol, rtol, check_backward_ad, check_forward_ad)
        return fail(msg) if msg else True
    # as PyTorch: the imaginary parts of the complex outputs first, then their real parts
    for fn, part in zip(_real_and_imag_output(func)[::-1], ("imaginary", "real")):

        def prefix(o: int, part: str = part) -> str:
            if o not in complex_outs:
                return ""
            return f"While considering the {part} part of complex outputs only, "

        msg = _check(fn, inputs, idx, eps, atol, rtol, check_backward_ad, check_forward_ad, prefix)
        if msg:
            return fail(msg)
    return True


def _check(
    func: Callable,
    inputs: tuple,
    idx: list[int],
    eps: float,
    atol: float,
    rtol: float,
    backward: bool,
    forward: bool,
    prefix: Callable[[int], str] = lambda o: "",
) -> str | None:
    """The failure message of the check of ``func`` (real outputs), or None."""
    from . import grad_mode

    with grad_mode.enable_grad():
        outs = _outputs(func, inputs)
    numerical = _numerical(func, inputs, idx, eps)
    for o, out in enumerate(outs):  # an output without a graph must not depend on the inputs
        if _is_float(out) and not out.requires_grad:
            for n in range(len(idx)):
                if not xp.allclose(numerical[n][o], 0, rtol=rtol, atol=atol):
                    return "Numerical gradient for function expected to be zero"
    if backward:
        analytical = _analytical(outs, inputs, idx)
        msg = _compare(numerical, analytical, inputs, idx, outs, atol, rtol, "Jacobian", prefix)
        if msg:
            return msg
    if forward:
        tangents = _forward_analytical(func, inputs, idx, len(outs))
        what = "Jacobian computed with forward mode"
        return _compare(numerical, tangents, inputs, idx, outs, atol, rtol, what, prefix)
    return None


def gradgradcheck(
    func: Callable,
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    *,
    eps: float = 1e-06,
    atol: float = 1e-05,
    rtol: float = 0.001,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """``gradcheck`` of the map ``(inputs, grad_outputs) ↦ gradients``: second derivatives.

    Without ``grad_outputs``, random ones (fixed seed, requiring grad) are used.
    """
    from . import grad, grad_mode

    inputs = _as_tuple(inputs)
    n_inputs = len(inputs)
    if grad_outputs is None:
        with grad_mode.enable_grad():
            outs = _outputs(func, inputs)
        rng = xp.random.default_rng(0)

        def draw(o: Tensor) -> Any:
            """uniform in [-1, 1), both parts of a complex one"""
            value = rng.uniform(-1.0, 1.0, o._data.shape)
            if o.is_complex():
                value = value + 1j * rng.uniform(-1.0, 1.0, o._data.shape)
            return value.astype(o.dtype.np)

        grad_outputs = tuple(
            _make(like(o._data, draw(o)), o.dtype).requires_grad_(True)
            for o in outs
            if _is_float(o) and o.requires_grad
        )
    else:
        grad_outputs = _as_tuple(grad_outputs)

    def first_derivatives(*args: Any) -> tuple:
        ins, gouts = args[:n_inputs], args[n_inputs:]
        outs = [o for o in _outputs(func, ins) if _is_float(o) and o.requires_grad]
        diff = [x for x in ins if isinstance(x, Tensor) and x.requires_grad]
        pairs = [(o, g) for o, g in zip(outs, gouts) if g is not None]
        grads = grad(
            [o for o, _ in pairs],
            diff,
            [g for _, g in pairs],
            create_graph=True,
            allow_unused=True,
        )
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_derivatives,
        inputs + tuple(grad_outputs),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad,
        check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev,
        fast_mode=fast_mode,
    )
