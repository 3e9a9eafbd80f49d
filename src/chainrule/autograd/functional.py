"""``chainrule.autograd.functional``: Jacobians, Hessians and their products, of functions.

Each function takes a Python function ``func`` and its ``inputs`` (a tensor or a
tuple of tensors) and differentiates ``func`` at ``inputs``, as
``torch.autograd.functional`` does:

- ``vjp(func, x, v)``: ``vᵀ J``, one backward pass;
- ``jvp(func, x, v)``: ``J v``, by the double-backward trick (``J v`` is the
  gradient of ``uᵀ J v`` with respect to ``u``);
- ``jacobian(func, x)``: ``J``, one backward pass per output element
  (``strategy="forward-mode"``: one forward-mode pass per input element);
- ``hessian(func, x)``: the Jacobian of the gradient;
- ``vhp(func, x, v)`` and ``hvp(func, x, v)``: ``vᵀ H`` and ``H v``.

Inputs are detached copies (views when ``create_graph=True`` and they require
grad, so the results stay differentiable with respect to them). Without
``create_graph`` the results are detached. With ``strict=True``, an output or
gradient that does not depend on an input raises instead of giving zeros.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


# ----- argument handling --------------------------------------------------------------


def _as_tuple(value: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """(whether ``value`` was a tuple, ``value`` as a tuple), checking it holds tensors."""
    is_tuple = isinstance(value, tuple)  # (a list is refused, as PyTorch refuses it)
    items = value if is_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = (
                f"the value at index {i} has type {type(item)}"
                if is_tuple
                else f"the given {arg_name} has type {type(item)}"
            )
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but {where}."
            )
    return is_tuple, items


def _outputs_tuple(value: Any, fn_name: str) -> tuple[bool, tuple]:
    return _as_tuple(value, "outputs of the user-provided function", fn_name)


def _shape_back(result: tuple, is_tuple: Any) -> Any:
    """Undo ``_as_tuple``: one level (a bool) or two (a pair of bools, for Jacobians)."""
    if isinstance(is_tuple, bool):
        return result if is_tuple else result[0]
    outer, inner = is_tuple
    if not inner:
        result = tuple(r[0] for r in result)
    return result if outer else result[0]


def _prepare(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """Fresh inputs to differentiate with respect to: views that keep an outer graph when
    ``create_graph`` is set and the input requires grad, detached copies otherwise."""
    from .forward_ad import attach

    out = []
    for x in inputs:
        if create_graph and x.requires_grad:
            out.append(x.view_as(x))
            continue
        y = x.detach().requires_grad_(need_graph)
        tangent = getattr(x, "_fw", None)
        if tangent is not None:  # keep the tangent of an outer forward-mode pass
            attach(y, tangent)
        out.append(y)
    return tuple(out)


def _finish(values: Any, create_graph: bool) -> Any:
    """Detach results unless the caller asked for a graph through them."""
    if isinstance(values, tuple):
        return tuple(_finish(v, create_graph) for v in values)
    if values is None or create_graph:
        return values
    return values.detach()


def _check_v(v: tuple, refs: tuple, refs_tuple: bool) -> None:
    if len(v) != len(refs):
        if refs_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(refs)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for vi, ref in zip(v, refs):
        if vi.shape != ref.shape:
            raise RuntimeError(f"v has invalid size: should be {ref.shape} but got {vi.shape}.")


_NOT_DIFFERENTIABLE = {
    "outputs": (
        "Output {} of the user-provided function does not require gradients. The outputs "
        "must be computed in a differentiable manner from the input when running in strict "
        "mode."
    ),
    "grad_inputs": (
        "The gradient with respect to input {} is independent of the inputs of the "
        "user-provided function. This is not allowed in strict mode."
    ),
    "jacobian": (
        "While computing the hessian, found that the jacobian of the user-provided function "
        "with respect to input {} is independent of the input. This is not allowed in "
        "strict mode. You should ensure that your function is twice differentiable and that "
        "the jacobian depends on the inputs (this would be violated by a linear function for "
        "example)."
    ),
    "hessian": (
        "The hessian of the user-provided function with respect to input {} is independent "
        "of the input. This is not allowed in strict mode. You should ensure that your "
        "function is thrice differentiable and that the hessian depends on the inputs."
    ),
}


def _require_grad(values: tuple, kind: str, strict: bool) -> None:
    """In strict mode, every value must be differentiable (carry a graph)."""
    if not strict:
        return
    for i, t in enumerate(values):
        if t is None or not t.requires_grad:
            raise RuntimeError(_NOT_DIFFERENTIABLE[kind].format(i))


def _require_used(grads: tuple, strict: bool) -> None:
    """In strict mode, the output must depend on every input."""
    if strict:
        for i, g in enumerate(grads):
            if g is None:
                raise RuntimeError(_INDEPENDENT["back"].format(i))


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {}. This is "
    "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. "
    "This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {}. "
    "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
    "{} in the grad_jacobian. This is not allowed in strict mode as it prevents from using "
    "the double backward trick to replace forward mode AD.",
}


def _zeros_for_none(
    grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str
) -> tuple:
    """Replace each missing gradient by zeros (an error in strict mode)."""
    from .._creation import zeros_like

    out = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i))
            g = zeros_like(ref)
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode when create_graph=True."
            )
        out.append(g)
    return tuple(out)


def _grad(outputs: tuple, inputs: tuple, grad_outputs: tuple | None, create_graph: bool) -> tuple:
    """``autograd.grad`` over the outputs that carry a graph; None for unreached inputs."""
    from . import grad

    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad(
        [o for o, _ in pairs],
        inputs,
        [g for _, g in pairs],
        retain_graph=True,
        create_graph=create_graph,
        allow_unused=True,
    )


def _scalar_output(outputs: Any, fn_name: str, strict: bool) -> Tensor:
    """The single element ``func`` returned (checked differentiable first in strict mode)."""
    is_tuple, outs = _outputs_tuple(outputs, fn_name)
    _require_grad(outs, "outputs", strict)
    if is_tuple or outs[0].numel() != 1:
        if is_tuple:
            raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )
    return outs[0]


# ----- products -------------------------------------------------------------------------


def vjp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), vᵀ J)``: the vector-Jacobian product, as ``backward(v)`` computes it."""
    from . import grad_mode

    with grad_mode.enable_grad():
        inputs_tuple, ins = _as_tuple(inputs, "inputs", "vjp")
        ins = _prepare(ins, create_graph, need_graph=True)
        outputs_tuple, outs = _outputs_tuple(func(*ins), "vjp")
        _require_grad(outs, "outputs", strict)
        if v is not None:
            _, vs = _as_tuple(v, "v", "vjp")
            vs = _prepare(vs, create_graph, need_graph=False)
            _check_v(vs, outs, outputs_tuple)
        else:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the user-provided function returns a "
                    "single Tensor with a single element."
                )
            vs = None
        grads = _grad(outs, ins, vs, create_graph)
        result = _zeros_for_none(grads, ins, strict, create_graph, "back")
    outs = _finish(outs, create_graph)
    result = _finish(result, create_graph)
    return _shape_back(outs, outputs_tuple), _shape_back(result, inputs_tuple)


def jvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), J v)``: the Jacobian-vector product (a directional derivative)."""
    from .._creation import zeros_like
    from . import grad_mode

    with grad_mode.enable_grad():
        inputs_tuple, ins = _as_tuple(inputs, "inputs", "jvp")
        ins = _prepare(ins, create_graph, need_graph=True)
        if v is not None:
            _, vs = _as_tuple(v, "v", "jvp")
            vs = _prepare(vs, create_graph, need_graph=False)
            _check_v(vs, ins, inputs_tuple)
        else:
            if len(ins) != 1 or ins[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the input to the user-provided function "
                    "is a single Tensor with a single element."
                )
            vs = None
        outputs_tuple, outs = _outputs_tuple(func(*ins), "jvp")
        _require_grad(outs, "outputs", strict)
        # u ↦ uᵀJ is linear in u; its gradient with respect to u, contracted with v, is J v
        us = tuple(zeros_like(o).requires_grad_(True) for o in outs)
        ut_j = _grad(outs, ins, us, create_graph=True)
        _require_used(ut_j, strict)
        _require_grad(ut_j, "grad_inputs", strict)
        grads = _grad(ut_j, us, vs, create_graph)
        result = _zeros_for_none(grads, outs, strict, create_graph, "back_trick")
    outs = _finish(outs, create_graph)
    result = _finish(result, create_graph)
    return _shape_back(outs, outputs_tuple), _shape_back(result, outputs_tuple)


def vhp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), vᵀ H)`` for a scalar function: H is the Hessian at ``inputs``."""
    from . import grad_mode

    with grad_mode.enable_grad():
        inputs_tuple, ins = _as_tuple(inputs, "inputs", "vhp")
        ins = _prepare(ins, create_graph, need_graph=True)
        vs = _products_v(v, ins, inputs_tuple, create_graph, "vhp")
        out = _scalar_output(func(*ins), "vhp", strict)
        jac = _grad((out,), ins, None, create_graph=True)
        _require_used(jac, strict)
        _require_grad(jac, "jacobian", strict)
        grads = _grad(jac, ins, vs, create_graph)
        result = _zeros_for_none(grads, ins, strict, create_graph, "double_back")
    return _finish(out, create_graph), _shape_back(_finish(result, create_graph), inputs_tuple)


def hvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), H v)`` for a scalar function, by the double-backward trick."""
    from .._creation import zeros_like
    from . import grad_mode

    with grad_mode.enable_grad():
        inputs_tuple, ins = _as_tuple(inputs, "inputs", "hvp")
        ins = _prepare(ins, create_graph, need_graph=True)
        vs = _products_v(v, ins, inputs_tuple, create_graph, "hvp")
        out = _scalar_output(func(*ins), "hvp", strict)
        jac = _grad((out,), ins, None, create_graph=True)
        _require_used(jac, strict)
        _require_grad(jac, "jacobian", strict)
        # u ↦ uᵀ H is linear in u; its gradient with respect to u, contracted with v, is H v
        us = tuple(zeros_like(x).requires_grad_(True) for x in ins)
        ut_h = _grad(jac, ins, us, create_graph=True)
        _require_grad(ut_h, "hessian", strict)
        grads = _grad(ut_h, us, vs, create_graph)
        result = _zeros_for_none(grads, ins, strict, create_graph, "double_back_trick")
    return _finish(out, create_graph), _shape_back(_finish(result, create_graph), inputs_tuple)


def _products_v(
    v: Any, ins: tuple, inputs_tuple: bool, create_graph: bool, fn_name: str
) -> tuple | None:
    if v is None:
        if len(ins) != 1 or ins[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is "
                "a single Tensor with a single element."
            )
        return None
    _, vs = _as_tuple(v, "v", fn_name)
    vs = _prepare(vs, create_graph, need_graph=False)
    _check_v(vs, ins, inputs_tuple)
    return vs


# ----- Jacobians and Hessians -----------------------------------------------------------


def jacobian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of ``func`` at ``inputs``: ``J[i][j]`` of shape ``out_i.shape + in_j.shape``.

    Reverse mode runs one backward pass per output element; forward mode one
    forward pass per input element (``vectorize`` is accepted; the passes run one
    after another).
    """
    from . import grad_mode

    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `create_graph=False` or `strategy="reverse-mode"`.'
            )
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `strict=False` or `strategy="reverse-mode"`.'
            )
        if not vectorize:
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                "only implemented for `vectorize=True`."
            )
    with grad_mode.enable_grad():
        inputs_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
        if strategy == "forward-mode":
            from .forward_ad import is_active

            if not is_active():  # forward mode does not nest: inside a dual level, use reverse
                return _jacobian_forward(func, ins, inputs_tuple)
        ins = _prepare(ins, create_graph, need_graph=True)
        outputs_tuple, outs = _outputs_tuple(func(*ins), "jacobian")
        _require_grad(outs, "outputs", strict)
        if strict and vectorize:  # (after func ran and its outputs were checked, as PyTorch)
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together. Please either set `strict=False` or `vectorize=False`."
            )
        rows = []
        for i, out in enumerate(outs):
            rows.append(_jacobian_rows(out, ins, create_graph, strict, i))
    jac = _finish(tuple(rows), create_graph)
    return _shape_back(jac, (outputs_tuple, inputs_tuple))


def _jacobian_rows(out: Tensor, ins: tuple, create_graph: bool, strict: bool, i: int) -> tuple:
    """d out / d in_j for each input j, by one backward pass per element of ``out``."""
    from .. import zeros
    from . import grad

    n = out.numel()
    per_input: list[list] = [[] for _ in ins]
    flat = out.reshape(-1)
    for k in range(n):
        if out.requires_grad:
            grads = grad(
                flat[k], ins, retain_graph=True, create_graph=create_graph, allow_unused=True
            )
        else:
            grads = (None,) * len(ins)
        for j, (g, x) in enumerate(zip(grads, ins)):
            if g is None:
                if strict:
                    raise RuntimeError(
                        f"Output {i} of the user-provided function is independent of input "
                        f"{j}. This is not allowed in strict mode."
                    )
                g = zeros(x.shape, dtype=x.dtype)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError(
                    f"The jacobian of the user-provided function is independent of input {j}. "
                    "This is not allowed in strict mode when create_graph=True."
                )
            per_input[j].append(g)
    result = []
    for j, x in enumerate(ins):
        if n:
            block = _stack(per_input[j])
        else:
            block = zeros((0,) + tuple(x.shape), dtype=x.dtype)
        result.append(block.reshape(tuple(out.shape) + tuple(x.shape)))
    return tuple(result)


def _jacobian_forward(func: Callable, ins: tuple, inputs_tuple: bool) -> Any:
    """The Jacobian by forward mode: one dual pass per input element (a column of J)."""
    from .. import zeros, zeros_like
    from . import forward_ad as fwd

    ins = tuple(x.detach() for x in ins)
    columns: list[list[list]] = []  # per input j, per element: the tangent of each output
    outputs_tuple = False
    out_shapes: tuple = ()
    outs = ()
    for j, x in enumerate(ins):
        cols = []
        for k in range(x.numel()):
            tangent = zeros(x.numel(), dtype=x.dtype)
            tangent[k] = 1
            with fwd.dual_level():
                duals = tuple(
                    fwd.make_dual(y, tangent.reshape(x.shape)) if i == j else y
                    for i, y in enumerate(ins)
                )
                outputs_tuple, outs = _outputs_tuple(func(*duals), "jacobian")
                unpacked = [fwd.unpack_dual(o) for o in outs]
                out_shapes = tuple(tuple(o.shape) for o in outs)
                cols.append(
                    [zeros_like(u.primal) if u.tangent is None else u.tangent for u in unpacked]
                )
        columns.append(cols)
    if not any(x.numel() for x in ins):  # no element to perturb: learn the outputs' shapes
        outputs_tuple, outs = _outputs_tuple(func(*ins), "jacobian")
        out_shapes = tuple(tuple(o.shape) for o in outs)
    rows = []
    for i, shape in enumerate(out_shapes):
        row = []
        for j, x in enumerate(ins):
            if columns[j]:
                # stack gives (in elements, *out.shape); J wants the input's dims last
                block = _stack([c[i] for c in columns[j]]).reshape(x.numel(), -1).t()
            else:
                block = zeros((_numel(shape), 0), dtype=x.dtype)
            row.append(block.reshape(shape + tuple(x.shape)).detach())
        rows.append(tuple(row))
    jac = _shape_back(tuple(rows), (outputs_tuple, inputs_tuple))
    return _as_lists(jac) if inputs_tuple else jac  # PyTorch's forward mode returns lists


def _as_lists(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_as_lists(v) for v in value]
    return value


def _stack(tensors: list) -> Tensor:
    """Stack along a new first dim; a sum of one-hot products when a graph or a tangent
    must be kept."""
    from .._backend import xp_of
    from .._tensor import _make

    first = tensors[0]
    xp = xp_of(first._data)  # (the array module of the tensors' device)
    if not any(t.requires_grad or getattr(t, "_fw", None) is not None for t in tensors):
        return _make(xp.stack([t._data for t in tensors]), first._dtype)
    n = len(tensors)
    eye = xp.eye(n, dtype=first._dtype.np)
    total = None
    for k, t in enumerate(tensors):
        e_k = _make(eye[k].reshape((n,) + (1,) * t.dim()), first._dtype)
        part = e_k * t.reshape((1,) + tuple(t.shape))
        total = part if total is None else total + part
    return total


def _numel(shape: tuple) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def hessian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a scalar ``func``: ``H[i][j]`` of shape ``in_i.shape + in_j.shape``."""
    inputs_tuple, ins = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*xs: Any) -> Tensor:
        return _scalar_output(func(*xs), "hessian", strict)

    def gradient(*xs: Any) -> Any:
        jac = jacobian(scalar_func, xs, create_graph=True)
        _require_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(
        gradient,
        ins,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _shape_back(res, (inputs_tuple, inputs_tuple))
