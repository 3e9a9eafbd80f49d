"""``chainrule.func``: JAX-style function transforms, as PyTorch ships them in ``torch.func``.

``grad(f)`` is a function computing the gradient of ``f``; ``jacrev(f)`` and
``jacfwd(f)`` compute its Jacobian by reverse and forward mode; ``vjp`` and ``jvp``
give the products; ``vmap(f)`` maps ``f`` over a batch dimension. They compose:
``grad(grad(f))`` is the second derivative, ``jacfwd(jacrev(f))`` (which is
``hessian(f)``) the Hessian, ``vmap(grad(f))`` per-sample gradients.
``functional_call(module, params, x)`` runs a module with other parameters, so a
model's loss is a function of its parameters for these transforms;
``stack_module_state(models)`` stacks the parameters of an ensemble of models of one
class, for ``vmap`` over ``functional_call``.

chainrule has no functorch-style levels. Each reverse transform differentiates
with ``autograd.grad(..., create_graph=True)`` with respect to fresh copies of
its inputs (views of them when they already carry a graph, so an outer transform
sees through); each forward transform runs in a ``forward_ad`` dual level. Forward
mode does not nest: a forward transform called inside another one's dual level
computes the same numbers by reverse mode (``jvp`` by the double-backward trick,
``jacfwd`` as ``jacrev``). Results leave the outermost transform detached unless
an input already required grad. ``vmap`` runs ``f`` once per batch element and
stacks the results (no batching rules).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any

from . import _random
from ._tensor import Tensor

__all__ = [
    "grad",
    "grad_and_value",
    "vjp",
    "jvp",
    "jacrev",
    "jacfwd",
    "hessian",
    "vmap",
    "functional_call",
    "stack_module_state",
    "linearize",
    "functionalize",
    "replace_all_batch_norm_modules_",
    "debug_unwrap",
]

_depth = 0  # how many transforms are running (0: none; results are detached at 0)
_vmap_depth = [0]  # how many vmap calls are running


def _transforms_active() -> bool:
    """Whether a transform (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap) is running."""
    return _depth > 0 or _vmap_depth[0] > 0


# ----- pytrees: tensors in tuples, lists and dicts --------------------------------------


def _flatten(tree: Any) -> tuple[list, Any]:
    """The tensors of ``tree`` (in order) and a spec to rebuild it with other leaves."""
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for item in tree:
            sub, spec = _flatten(item)
            leaves += sub
            specs.append((len(sub), spec))
        return leaves, (type(tree), specs)
    if isinstance(tree, dict):
        leaves, specs = [], []
        for key, item in tree.items():
            sub, spec = _flatten(item)
            leaves += sub
            specs.append((key, len(sub), spec))
        return leaves, (dict, specs)
    return [tree], None


def _unflatten(leaves: list, spec: Any) -> Any:
    if spec is None:
        return leaves[0]
    kind, specs = spec
    out, i = [], 0
    if kind is dict:
        result = {}
        for key, n, sub in specs:
            result[key] = _unflatten(leaves[i : i + n], sub)
            i += n
        return result
    for n, sub in specs:
        out.append(_unflatten(leaves[i : i + n], sub))
        i += n
    if kind is tuple or kind is list:
        return tuple(out) if kind is tuple else out
    return kind(*out) if hasattr(kind, "_fields") else kind(out)  # (a named tuple: its type)


def _spec_str(spec: Any) -> str:
    if spec is None:
        return "*"
    kind, specs = spec
    if kind is dict:
        return "{" + ", ".join(f"{k!r}: {_spec_str(s)}" for k, _, s in specs) + "}"
    inner = ", ".join(_spec_str(s) for _, s in specs)
    return f"({inner},)" if kind is tuple and len(specs) == 1 else f"({inner})"


def _check_tensors(leaves: list) -> None:
    for t in leaves:
        if not isinstance(t, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")


# ----- arguments ------------------------------------------------------------------------


def _argnums(argnums: Any, n_args: int) -> tuple[int, ...]:
    if isinstance(argnums, bool) or not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    nums = (argnums,) if isinstance(argnums, int) else argnums
    if not nums:
        raise RuntimeError("argnums must be non-empty")
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in nums):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {argnums}")
    if len(set(nums)) != len(nums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    out = []
    for a in nums:
        if not -n_args <= a < n_args:
            raise RuntimeError(f"Got argnum={a}, but only {n_args} positional inputs")
        out.append(a % n_args)
    return tuple(out)


def _fresh(t: Tensor) -> Tensor:
    """An input to differentiate with respect to, keeping any outer graph or tangent."""
    if t.requires_grad:
        return t.view_as(t)
    y = t.detach().requires_grad_(True)
    tangent = getattr(t, "_fw", None)
    if tangent is not None:  # an outer forward transform's tangent
        from .autograd.forward_ad import attach

        attach(y, tangent)
    return y


def _carries(leaves: list, depth: int | None = None) -> bool:
    """Whether results must stay connected: inside a transform, or to a user's graph.

    ``depth`` is the number of transforms running around the caller (default: all)."""
    if depth is None:
        depth = _depth
    return depth > 0 or any(
        t.requires_grad or getattr(t, "_fw", None) is not None
        for t in leaves
        if isinstance(t, Tensor)
    )


def _detach(tree: Any, keep: bool) -> Any:
    if keep:
        return tree
    leaves, spec = _flatten(tree)
    return _unflatten([t.detach() if isinstance(t, Tensor) else t for t in leaves], spec)


class _Transform:
    """Counts running transforms, and turns on grad mode, for the length of a call."""

    def __enter__(self) -> None:
        global _depth
        from .autograd import grad_mode

        _depth += 1
        self._grad = grad_mode.enable_grad()
        self._grad.__enter__()

    def __exit__(self, *exc: Any) -> None:
        global _depth
        _depth -= 1
        self._grad.__exit__(*exc)


def _prepare(args: tuple, argnums: Any) -> tuple:
    """(argnums as a tuple, args with fresh differentiable leaves, those leaves per argnum,
    the specs of the differentiated args, whether results stay connected)."""
    nums = _argnums(argnums, len(args))
    args = list(args)
    per_arg, specs, originals = [], [], []
    for a in nums:
        leaves, spec = _flatten(args[a])
        _check_tensors(leaves)
        originals += leaves
        fresh = [_fresh(t) for t in leaves]
        per_arg.append(fresh)
        specs.append(spec)
        args[a] = _unflatten(fresh, spec)
    return nums, tuple(args), per_arg, specs, _carries(originals, _depth - 1)


def _gradients(outputs: list, inputs: list, grad_outputs: list | None) -> list:
    """``autograd.grad`` with create_graph; zeros for inputs the outputs do not depend on."""
    from .autograd import grad as autograd_grad

    pairs = [
        (o, None if grad_outputs is None else grad_outputs[i])
        for i, o in enumerate(outputs)
        if o.requires_grad
    ]
    if pairs and inputs:
        grads = autograd_grad(
            [o for o, _ in pairs],
            inputs,
            None if grad_outputs is None else [g for _, g in pairs],
            retain_graph=True,
            create_graph=True,
            allow_unused=True,
        )
    else:
        grads = (None,) * len(inputs)
    return [_zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]


def _zeros_like(x: Tensor) -> Tensor:
    from ._creation import zeros_like

    return zeros_like(x)


def _per_argnum(values: list, per_arg: list, specs: list, argnums: Any) -> Any:
    """Split a flat list (one entry per differentiated leaf) back into the args' structure."""
    out, i = [], 0
    for leaves, spec in zip(per_arg, specs):
        out.append(_unflatten(values[i : i + len(leaves)], spec))
        i += len(leaves)
    return out[0] if isinstance(argnums, int) else tuple(out)


# ----- reverse mode ---------------------------------------------------------------------


def grad_and_value(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """``f ↦ (x ↦ (∇f(x), f(x)))`` for a scalar ``f``; with ``has_aux``, ``f`` returns
    ``(value, aux)`` and the result is ``(∇f(x), (value, aux))``."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _Transform():
            nums, args, per_arg, specs, keep = _prepare(args, argnums)
            out = func(*args, **kwargs)
            out, aux = _split_aux(out, has_aux, "grad_and_value(f)(*args)")
            if not isinstance(out, Tensor):
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                    f"{type(out)}"
                )
            if out.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                    f"got tensor with {out.dim()} dims. Maybe you wanted to use the vjp or "
                    "jacrev APIs instead?"
                )
            flat = [x for leaves in per_arg for x in leaves]
            grads = _gradients([out], flat, None)
            result = _per_argnum(grads, per_arg, specs, argnums)
        value = _detach(out, keep)
        if has_aux:
            value = (value, _detach(aux, keep))
        return _detach(result, keep), value

    return wrapper


def grad(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """``f ↦ ∇f``: the gradient of a scalar function with respect to the ``argnums`` args
    (``(∇f, aux)`` with ``has_aux``)."""
    gv = grad_and_value(func, argnums, has_aux)

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """``(f(primals), vjp_fn)``: ``vjp_fn(cotangents)`` is ``cotangentsᵀ J``, one entry per
    primal (``(output, vjp_fn, aux)`` with ``has_aux``)."""
    with _Transform():
        _, args, per_arg, specs, keep = _prepare(primals, tuple(range(len(primals))))
        out = func(*args)
        out, aux = _split_aux(out, has_aux, "vjp(f, *primals)")
        out_leaves, out_spec = _flatten(out)
        for o in out_leaves:
            if not isinstance(o, Tensor):
                raise RuntimeError(
                    "vjp(f, *primals): Expected f to be a function that has non-empty output "
                    f"(got output = {out}) and all outputs must be Tensors."
                )
    flat_inputs = [x for leaves in per_arg for x in leaves]

    def vjp_fn(
        cotangents: Any, *, retain_graph: bool = True, create_graph: bool | None = None
    ) -> Any:
        ct_leaves, ct_spec = _flatten(cotangents)
        if _spec_str(ct_spec) != _spec_str(out_spec):
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure "
                f"of outputs to the function. cotangents: {_spec_str(ct_spec)}, primal "
                f"output: {_spec_str(out_spec)}"
            )
        with _Transform():
            grads = _gradients(out_leaves, flat_inputs, ct_leaves)
            result = _per_argnum(grads, per_arg, specs, tuple(primals))
        return _detach(result, keep or _carries(ct_leaves))

    value = _detach(out, keep)
    if has_aux:
        return value, vjp_fn, _detach(aux, keep)
    return value, vjp_fn


def jacrev(
    func: Callable,
    argnums: Any = 0,
    *,
    has_aux: bool = False,
    chunk_size: int | None = None,
    _preallocate_and_copy: bool = False,
) -> Callable:
    """``f ↦ J``, by one backward pass per output element: for an output of shape ``S``
    and an input of shape ``T``, the block of ``J`` has shape ``S + T``."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _Transform():
            nums, args, per_arg, specs, keep = _prepare(args, argnums)
            out = func(*args, **kwargs)
            out, aux = _split_aux(out, has_aux, "jacrev(f, ...)(*args)")
            out_leaves, out_spec = _flatten(out)
            _check_outputs(out_leaves, "jacrev")
            flat = [x for leaves in per_arg for x in leaves]
            blocks = [_jacrev_blocks(o, flat) for o in out_leaves]
            per_output = [_per_argnum(b, per_arg, specs, argnums) for b in blocks]
            jac = _unflatten(per_output, out_spec)
        jac = _detach(jac, keep)
        return (jac, _detach(aux, keep)) if has_aux else jac

    return wrapper


def _check_outputs(leaves: list, name: str) -> None:
    for o in leaves:
        if not isinstance(o, Tensor):
            raise RuntimeError(
                f"{name}(f, ...)(*args): expected f(*args) to return only tensors, got "
                f"unsupported type {type(o)}"
            )


def _jacrev_blocks(out: Tensor, inputs: list) -> list:
    """d out / d x for each input x, each of shape ``out.shape + x.shape``."""
    from .autograd.functional import _stack

    n = out.numel()
    rows: list[list] = [[] for _ in inputs]
    flat = out.reshape(-1)
    for k in range(n):
        for j, g in enumerate(_gradients([flat[k]], inputs, None)):
            rows[j].append(g)
    blocks = []
    for j, x in enumerate(inputs):
        if n:
            block = _stack(rows[j])
        else:
            from ._creation import zeros

            block = zeros((0,) + tuple(x.shape), dtype=x.dtype, device=x.device)
        blocks.append(block.reshape(tuple(out.shape) + tuple(x.shape)))
    return blocks


# ----- forward mode ---------------------------------------------------------------------


def _forward_active() -> bool:
    from .autograd.forward_ad import is_active

    return is_active()


def jvp(
    func: Callable, primals: Any, tangents: Any, *, strict: bool = False, has_aux: bool = False
) -> tuple:
    """``(f(primals), J · tangents)``: the directional derivative of ``f`` along
    ``tangents``, by forward mode (``(output, jvp_out, aux)`` with ``has_aux``)."""
    if not isinstance(primals, tuple):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be "
            "valid to call f(*primals)."
        )
    p_leaves, p_spec = _flatten(primals)
    t_leaves, t_spec = _flatten(tangents)
    if not isinstance(tangents, tuple) or _spec_str(p_spec) != _spec_str(t_spec):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same python "
            "structure. For example, if primals is a tuple of 3 tensors, tangents also must "
            f"be. Got primals with structure {_spec_str(p_spec)} and tangents with structure "
            f"{_spec_str(t_spec)}"
        )
    _check_tensors(p_leaves)
    _check_tensors(t_leaves)
    for p, t in zip(p_leaves, t_leaves):
        if p.shape != t.shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                f"original Tensor, this is not supported. Tensor is of size {list(p.shape)} "
                f"while the given forward gradient is of size {list(t.shape)}."
            )
    keep = _carries(p_leaves + t_leaves)
    if _forward_active():
        out, tangent_out, aux = _jvp_by_reverse(func, primals, p_leaves, p_spec, t_leaves, has_aux)
    else:
        out, tangent_out, aux = _jvp_forward(func, p_leaves, p_spec, t_leaves, has_aux)
    out, tangent_out = _detach(out, keep), _detach(tangent_out, keep)
    if has_aux:
        return out, tangent_out, _detach(aux, keep)
    return out, tangent_out


def _split_aux(out: Any, has_aux: bool, name: str) -> tuple:
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(
            f"{name}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    for leaf in _flatten(out[1])[0]:  # (aux: tensors in containers, as PyTorch's)
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
    return out


def _jvp_forward(
    func: Callable, p_leaves: list, p_spec: Any, t_leaves: list, has_aux: bool
) -> tuple:
    from .autograd import forward_ad as fwd

    with _Transform(), fwd.dual_level():
        duals = [fwd.make_dual(p, t) for p, t in zip(p_leaves, t_leaves)]
        out, aux = _split_aux(
            func(*_unflatten(duals, p_spec)), has_aux, "jvp(f, primals, tangents)"
        )
        out_leaves, out_spec = _flatten(out)
        _check_jvp_outputs(out_leaves)
        primals_out, tangents_out = [], []
        for o in out_leaves:
            primal, tangent = fwd.unpack_dual(o)
            primals_out.append(primal)
            tangents_out.append(_zeros_like(primal) if tangent is None else tangent)
        aux_leaves, aux_spec = _flatten(aux)
        aux = _unflatten(
            [fwd.unpack_dual(a).primal if isinstance(a, Tensor) else a for a in aux_leaves],
            aux_spec,
        )
    return _unflatten(primals_out, out_spec), _unflatten(tangents_out, out_spec), aux


def _check_jvp_outputs(leaves: list) -> None:
    for o in leaves:
        if not isinstance(o, Tensor):
            raise RuntimeError(
                "jvp(f, primals, tangents): expected f(*primals) to return only tensors, got "
                f"unsupported type {type(o)}"
            )


def _jvp_by_reverse(
    func: Callable, primals: Any, p_leaves: list, p_spec: Any, t_leaves: list, has_aux: bool
) -> tuple:
    """J t without forward mode: u ↦ uᵀ J is linear in u, and its gradient along t is J t."""
    with _Transform():
        fresh = [_fresh(p) for p in p_leaves]
        out, aux = _split_aux(
            func(*_unflatten(fresh, p_spec)), has_aux, "jvp(f, primals, tangents)"
        )
        out_leaves, out_spec = _flatten(out)
        _check_jvp_outputs(out_leaves)
        us = [_zeros_like(o).requires_grad_(True) for o in out_leaves]
        ut_j = _gradients(out_leaves, fresh, us)
        pairs = [(g, t) for g, t in zip(ut_j, t_leaves) if g.requires_grad]
        if pairs:
            tangents_out = _gradients([g for g, _ in pairs], us, [t for _, t in pairs])
        else:
            tangents_out = [_zeros_like(o) for o in out_leaves]
    return out, _unflatten(tangents_out, out_spec), aux


def jacfwd(
    func: Callable, argnums: Any = 0, has_aux: bool = False, *, randomness: str = "error"
) -> Callable:
    """``f ↦ J``, by one forward-mode pass per input element (a column of ``J`` each)."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _forward_active():  # forward mode does not nest: the same Jacobian by reverse mode
            return jacrev(func, argnums, has_aux=has_aux)(*args, **kwargs)
        from .autograd import forward_ad as fwd

        nums = _argnums(argnums, len(args))
        per_arg, specs, originals = [], [], []
        for a in nums:
            leaves, spec = _flatten(args[a])
            _check_tensors(leaves)
            per_arg.append(leaves)
            specs.append(spec)
            originals += leaves
        keep = _carries(originals)
        columns: list[list] = []  # per input leaf, per element: the output tangent leaves
        out_leaves, out_spec, aux = [], None, None
        with _Transform():
            for j, x in enumerate(originals):
                cols = []
                for k in range(x.numel()):
                    if j or k:  # (the next element: "same" randomness draws the same again)
                        _random.vmap_levels[-1].restore()
                    e_k = _zeros_like(x).reshape(-1)
                    e_k[k] = 1
                    with fwd.dual_level():
                        new_leaves = [
                            fwd.make_dual(y, e_k.reshape(x.shape)) if i == j else y
                            for i, y in enumerate(originals)
                        ]
                        out, aux, out_leaves, out_spec = _call_split(
                            func, args, kwargs, nums, per_arg, specs, new_leaves, has_aux
                        )
                        unpacked = [fwd.unpack_dual(o) for o in out_leaves]
                        cols.append(
                            [
                                _zeros_like(u.primal) if u.tangent is None else u.tangent
                                for u in unpacked
                            ]
                        )
                        aux = _primal_tree(aux)
                columns.append(cols)
            if out_spec is None or not all(columns):  # no element to perturb somewhere
                out, aux, out_leaves, out_spec = _call_split(
                    func, args, kwargs, nums, per_arg, specs, originals, has_aux
                )
            jac = _assemble_forward(
                columns, out_leaves, out_spec, originals, per_arg, specs, argnums
            )
        jac = _detach(jac, keep)
        return (jac, _detach(aux, keep)) if has_aux else jac

    return _as_vmap(wrapper, randomness)


def _as_vmap(fn: Callable, randomness: str) -> Callable:
    """``fn`` counted as running under ``vmap``, as PyTorch's ``jacfwd`` (a ``vmap`` of
    ``jvp``) runs: a custom Function inside then needs a vmap rule, and a random draw
    follows ``randomness``."""

    @wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        _check_randomness(randomness)
        _vmap_depth[0] += 1
        _random.vmap_levels.append(_random.VmapLevel(randomness))
        try:
            return fn(*args, **kwargs)
        finally:
            _random.vmap_levels.pop()
            _vmap_depth[0] -= 1

    return run


def _check_randomness(randomness: Any) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. Got "
            f"{randomness}"
        )


def _call_split(
    func: Callable,
    args: tuple,
    kwargs: dict,
    nums: tuple,
    per_arg: list,
    specs: list,
    new_leaves: list,
    has_aux: bool,
) -> tuple:
    args = list(args)
    i = 0
    for a, leaves, spec in zip(nums, per_arg, specs):
        args[a] = _unflatten(new_leaves[i : i + len(leaves)], spec)
        i += len(leaves)
    out, aux = _split_aux(func(*args, **kwargs), has_aux, "jacfwd(f, ...)(*args)")
    out_leaves, out_spec = _flatten(out)
    _check_outputs(out_leaves, "jacfwd")
    return out, aux, out_leaves, out_spec


def _primal_tree(tree: Any) -> Any:
    from .autograd import forward_ad as fwd

    leaves, spec = _flatten(tree)
    return _unflatten(
        [fwd.unpack_dual(t).primal if isinstance(t, Tensor) else t for t in leaves], spec
    )


def _assemble_forward(
    columns: list,
    out_leaves: list,
    out_spec: Any,
    inputs: list,
    per_arg: list,
    specs: list,
    argnums: Any,
) -> Any:
    from ._creation import zeros
    from .autograd.functional import _stack

    per_output = []
    for i, o in enumerate(out_leaves):
        out_shape = tuple(o.shape)
        n_out = o.numel()
        blocks = []
        for j, x in enumerate(inputs):
            if columns[j]:
                # the stack is (input elements, *out.shape); J wants the input's dims last
                block = _stack([c[i] for c in columns[j]]).reshape(x.numel(), n_out).t()
            else:
                block = zeros((n_out, 0), dtype=x.dtype)
            blocks.append(block.reshape(out_shape + tuple(x.shape)))
        per_output.append(_per_argnum(blocks, per_arg, specs, argnums))
    return _unflatten(per_output, out_spec)


def hessian(func: Callable, argnums: Any = 0) -> Callable:
    """``f ↦ H``, the Hessian of a scalar function: ``jacfwd(jacrev(f))``."""
    return jacfwd(jacrev(func, argnums), argnums)


# ----- vmap, by a loop ------------------------------------------------------------------


def vmap(
    func: Callable,
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> Callable:
    """``f ↦ batched f``: maps ``f`` over dim ``in_dims`` of its inputs and stacks the
    results along ``out_dims``.

    chainrule runs ``f`` once per batch element (no batching rules), so the results,
    and their gradients, are those of the loop. A random draw in ``f`` follows
    ``randomness`` ("error" refuses it; "same" draws the same numbers for every element,
    "different" the next ones); ``f`` writing in place into an input it does not map
    (``in_dims`` None) is refused, the loop would write once per element.
    """
    name = getattr(func, "__name__", repr(func))
    _check_randomness(randomness)
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int "
                "or a (potentially nested) tuple matching the structure of inputs, got: "
                f"{type(in_dims)}."
            )
        dims = (in_dims,) * len(args) if isinstance(in_dims, int) else in_dims
        if len(dims) != len(args):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible "
                "with the structure of `inputs`. in_dims has structure "
                f"{_spec_str(_flatten(dims)[1])} but inputs has structure "
                f"{_spec_str(_flatten(args)[1])}."
            )
        leaves, spec, leaf_dims = [], [], []
        for arg, dim in zip(args, dims):
            arg_leaves, arg_spec = _flatten(arg)
            if isinstance(dim, int) or dim is None:
                arg_dims = [dim] * len(arg_leaves)
            else:
                arg_dims = _flatten(dim)[0]
            for leaf, d in zip(arg_leaves, arg_dims):
                if d is not None:
                    _check_in_dim(name, in_dims, leaf, d)
            leaves.append(arg_leaves)
            spec.append(arg_spec)
            leaf_dims.append(arg_dims)
        sizes = [
            leaf.shape[d]
            for arg_leaves, arg_dims in zip(leaves, leaf_dims)
            for leaf, d in zip(arg_leaves, arg_dims)
            if d is not None
        ]
        if not sizes:
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got no inputs to vmap over "
                "(all in_dims are None)."
            )
        if len(set(sizes)) != 1:
            raise ValueError(
                "vmap: Expected all tensors to have the same size in the mapped dimension, "
                f"got sizes {sizes} for the mapped dimension"
            )
        unmapped = [
            (i, leaf, leaf._version)
            for i, (lv, ld) in enumerate(zip(leaves, leaf_dims))
            for leaf, d in zip(lv, ld)
            if d is None and isinstance(leaf, Tensor)
        ]
        results = []
        level = _random.VmapLevel(randomness)
        _vmap_depth[0] += 1  # (torch._C._are_functorch_transforms_active)
        _random.vmap_levels.append(level)
        try:
            for b in range(sizes[0] or 1):
                if b:  # ("same" randomness: the next element draws the same numbers)
                    level.restore()
                sliced = [
                    _unflatten(
                        [
                            leaf if d is None else _element(leaf, d, b, sizes[0])
                            for leaf, d in zip(lv, ld)
                        ],
                        sp,
                    )
                    for lv, ld, sp in zip(leaves, leaf_dims, spec)
                ]
                results.append(func(*sliced, **kwargs))
                _check_unmapped_writes(name, unmapped)
        finally:
            _random.vmap_levels.pop()
            _vmap_depth[0] -= 1
        return _stack_results(name, results, out_dims, sizes[0])

    return wrapper


def _tensor_like(leaf: Any) -> bool:
    """A tensor collection that takes part in vmap (a TensorDict, a tensorclass): on
    PyTorch such a type declares the batching hooks (``_add_batch_dim``,
    ``_maybe_remove_batch_dim``) that its library patches ``torch._functorch.vmap`` to
    call. chainrule's vmap maps it one element at a time: it slices it by indexing and
    stacks its results with ``torch.stack`` (which it answers through
    ``__torch_function__``). Other non-tensors are refused, as by PyTorch."""
    return (
        not isinstance(leaf, (Tensor, type))
        and hasattr(leaf, "__torch_function__")
        and hasattr(leaf, "_add_batch_dim")
        and hasattr(leaf, "_maybe_remove_batch_dim")
        and callable(getattr(leaf, "dim", None))
    )


def _check_in_dim(name: str, in_dims: Any, leaf: Any, d: int) -> None:
    if not isinstance(leaf, Tensor) and not _tensor_like(leaf):
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but "
            f"the input is of type {type(leaf)}. We cannot vmap over non-Tensor arguments, "
            "please use None as the respective in_dim"
        )
    n = leaf.dim()
    if not -n <= d < n:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, "
            f"but that input is a Tensor of dimensionality {n} so expected in_dim to satisfy "
            f"-{n} <= in_dim < {n}."
        )


def _select(t: Tensor, dim: int, index: int) -> Tensor:
    dim = dim % t.dim()
    return t[(slice(None),) * dim + (index,)]


def _element(t: Any, dim: int, index: int, size: int) -> Any:
    """Element ``index`` of ``t`` along ``dim``; for an empty batch (``size`` 0), zeros of
    an element's shape, for the one call that finds the outputs' shapes."""
    if size:
        return _select(t, dim, index)
    if not isinstance(t, Tensor):  # (a TensorDict: its own indexing, on its empty batch)
        return t
    shape = list(t.shape)
    del shape[dim % t.dim()]
    return t.new_zeros(shape)


def _check_unmapped_writes(name: str, unmapped: list) -> None:
    """RuntimeError where ``func`` wrote in place into an input it does not map: PyTorch
    runs ``func`` once, chainrule once per element, so the write would repeat."""
    for i, leaf, version in unmapped:
        if leaf._version != version:
            raise RuntimeError(
                f"vmap({name}, ...): the function wrote in place into input {i}, which is not "
                "mapped (its in_dim is None). chainrule's vmap runs the function once per "
                "batch element, so that write would happen once per element: write into a "
                "copy (x = x.clone()) or map the input."
            )


def _stack_results(name: str, results: list, out_dims: Any, size: int = 1) -> Any:
    from .autograd.functional import _stack

    first_leaves, out_spec = _flatten(results[0])
    dims = [out_dims] * len(first_leaves) if isinstance(out_dims, int) else _flatten(out_dims)[0]
    per_leaf = [_flatten(r)[0] for r in results]
    stacked = []
    for i, dim in enumerate(dims):
        column = [leaves[i] for leaves in per_leaf]
        if _tensor_like(column[0]):  # (a TensorDict: its own stack, at the out dim)
            import chainrule

            n = column[0].dim() + 1
            if not -n <= dim < n:
                raise IndexError(
                    f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                    f"but got {dim})"
                )
            stacked.append(chainrule.stack(column, dim % n))
            continue
        if not isinstance(column[0], Tensor):
            raise ValueError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                f"{type(column[0])}. Did you mean to set out_dims= to None for output?"
            )
        out = _stack(column)  # the batch dim first
        if not size:  # (an empty batch: the one call's outputs give the shapes)
            out = out[:0]
        n = out.dim()
        if not -n <= dim < n:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got "
                f"{dim})"
            )
        dim %= n
        if dim:
            order = list(range(1, n))
            order.insert(dim, 0)
            out = out.permute(*order)
        stacked.append(out)
    return _unflatten(stacked, out_spec)


# ----- functional_call: a module run with other parameters ---------------------------------

_MISSING = object()


def functional_call(
    module: Any,
    parameter_and_buffer_dicts: dict[str, Tensor] | Sequence[dict[str, Tensor]],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """``module(*args, **kwargs)`` with its parameters and buffers replaced by the tensors
    of ``parameter_and_buffer_dicts`` (dotted names, as ``state_dict`` has them; one dict
    or a sequence of dicts with distinct keys), and put back afterwards. So a loss is a
    function of the parameters, for ``grad`` or ``jacrev``. ``tie_weights``: a value given
    for one of several names of one tensor replaces it under all of them. ``strict``: the
    names must be exactly the module's."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries"
            )
        counts: dict[str, int] = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(
                f"{repeated} appeared in multiple dictionaries; behavior of functional call "
                "is ambiguous"
            )
        values = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but "
            f"got {type(parameter_and_buffer_dicts)}"
        )
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    swapped = _untie(module, values) if tie_weights else values
    if strict:
        _check_keys(module, swapped)
    originals = _swap_tensors(module, swapped)
    try:
        return module(*args, **kwargs)
    finally:
        final = _swap_tensors(module, originals)
        # what the module rebound during the call (an in-place update's result) goes back
        values.update({k: final[k] for k in values if k in final})


def stack_module_state(models: Sequence[Any]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """``(params, buffers)`` of M models of one class, each a dict from dotted names (as
    ``named_parameters`` gives them) to the M models' tensors stacked along a new first
    dim: what ``vmap(f, in_dims=(0, 0, None))`` maps ``functional_call`` over to run an
    ensemble at once. Stacked parameters are new leaves, requiring grad when the models'
    do (an optimizer can train them); the models' own parameters are not touched."""
    from . import stack  # (the package's op: imported when called, not at this import)

    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    modes = {bool(m.training) for m in models}
    if len(modes) > 1:
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(per_model: list[dict[str, Tensor]]) -> dict[str, Tensor]:
        out = {}
        for name in per_model[0]:
            tensors = [named[name] for named in per_model]
            wants = {bool(t.requires_grad) for t in tensors}
            if len(wants) > 1:
                raise RuntimeError(
                    f"Expected {name} from each model to have the same .requires_grad"
                )
            value = stack(tensors)
            out[name] = value.detach().requires_grad_() if wants == {True} else value
        return out

    params = stacked([dict(m.named_parameters()) for m in models])
    buffers = stacked([dict(m.named_buffers()) for m in models])
    return params, buffers


def _named_tensors(module: Any) -> dict[str, Tensor]:
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    return named


def _untie(module: Any, values: dict[str, Tensor]) -> dict[str, Tensor]:
    """``values`` with each given tensor also under the other names of the tensor it
    replaces (the module's tied weights); two different values for one tensor are an error."""
    names_of: dict[int, set[str]] = {}
    for name, tensor in _named_tensors(module).items():
        names_of.setdefault(id(tensor), set()).add(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    given = [name for name in values if name in tied]
    for name in given:
        names = tied[name]
        if len({id(values[n]) for n in names if n in values}) > 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(names)}, which are "
                "tied. Consider using tie_weights=False"
            )
    untied = dict(values)
    for name in given:
        for other in tied[name]:
            untied[other] = values[name]
    return untied


def _check_keys(module: Any, values: dict[str, Tensor]) -> None:
    valid = set(_named_tensors(module))
    missing = sorted(valid - set(values))
    unexpected = sorted(set(values) - valid)
    errors = []
    if unexpected:
        errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if errors:
        raise RuntimeError(
            "Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(errors)
            )
        )


def _submodule(module: Any, path: str) -> Any:
    """The submodule at the dotted ``path``, with PyTorch's errors for a missing step or a
    step that is not a Module."""
    walked = []
    for attr in path.split(".") if path else ():
        walked.append(attr)
        try:
            child = getattr(module, attr)
        except AttributeError as ex:
            raise AttributeError(f"{module._get_name()} has no attribute `{attr}`") from ex
        if not hasattr(child, "_parameters"):
            raise TypeError(
                f"submodule `{'.'.join(walked)}`: {child} is not an instance of torch.nn.Module"
            )
        module = child
    return module


def _swap_tensors(module: Any, values: dict[str, Any]) -> dict[str, Any]:
    """Put each value at its dotted name (a parameter's, a buffer's, or a plain attribute's
    place; _MISSING deletes it); returns what was there, to swap back."""
    originals: dict[str, Any] = {}
    try:
        for name, value in values.items():
            path, _, attr = name.rpartition(".")
            originals[name] = _swap_tensor(_submodule(module, path), attr, value)
    except Exception:
        for name, value in originals.items():
            path, _, attr = name.rpartition(".")
            _swap_tensor(_submodule(module, path), attr, value)
        raise
    return originals


def _swap_tensor(module: Any, name: str, value: Any) -> Any:
    if value is not _MISSING and value is not None and not isinstance(value, Tensor):
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    for store in (module._parameters, module._buffers):
        if name in store:
            original = store[name]
            if value is _MISSING:
                del store[name]
            else:
                store[name] = value
            return original
    original = getattr(module, name) if hasattr(module, name) else _MISSING
    if original is not _MISSING and original is not None and not isinstance(original, Tensor):
        raise TypeError(f"attribute `{name}`: {original} is not an instance of torch.Tensor")
    if value is not _MISSING:
        setattr(module, name, value)
    elif hasattr(module, name):
        delattr(module, name)
    return original


def __getattr__(name: str) -> Any:
    from chainrule._missing import (
        missing,
    )  # (absolute: under `chainrule run` these modules are also torch.*)

    raise missing("torch.func", name)


def linearize(func: Callable, *primals: Any) -> tuple:
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is J · tangents, the
    derivative of ``func`` at ``primals`` along ``tangents`` (forward mode, per call)."""
    out = func(*primals)
    p_leaves, _ = _flatten(primals)

    def jvp_fn(*tangents: Any) -> Any:
        t_leaves, _ = _flatten(tangents)
        for i, (p, t) in enumerate(zip(p_leaves, t_leaves)):
            if tuple(p.shape) != tuple(t.shape):
                raise RuntimeError(
                    f"tangent:{i} with shape {t.shape} in flattened pytree doesn't match the "
                    f"shape {p.shape} of the corresponding primal."
                )
        return jvp(func, primals, tangents)[1]

    return out, jvp_fn


# (last: func_extras builds on the pytree helpers above)
from .func_extras import debug_unwrap, functionalize, replace_all_batch_norm_modules_  # noqa: E402
