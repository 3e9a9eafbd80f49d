"""How a Module's hooks run: forward pre-hooks and hooks around ``forward``, and the full
backward hooks, which see the gradients of the module's inputs and outputs.

A full backward hook is built as PyTorch builds it: the module's input tensors pass
through an identity ``autograd.Function`` (``BackwardHookFunction``) before ``forward``,
and its output tensors through another after. In backward, the node of the outputs'
identity sees the gradients of the outputs (and runs the backward pre-hooks, which may
replace them); the node of the inputs' identity sees the gradients of the inputs and
calls the hooks with both. The global hooks (``register_module_forward_hook`` and its
kin) run before each module's own.
"""

from __future__ import annotations

import functools
import sys
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..._backend import xp
from ..._tensor import Tensor, _make
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ...utils.hooks import RemovableHandle

if TYPE_CHECKING:
    from .module import Module

__all__ = [
    "register_module_buffer_registration_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_backward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_full_backward_hook",
]

# ----- the global hooks: run for every module, before the module's own ---------------

_global_buffer_registration_hooks: dict[int, Callable] = OrderedDict()
_global_module_registration_hooks: dict[int, Callable] = OrderedDict()
_global_parameter_registration_hooks: dict[int, Callable] = OrderedDict()
_global_backward_pre_hooks: dict[int, Callable] = OrderedDict()
_global_backward_hooks: dict[int, Callable] = OrderedDict()
_global_forward_pre_hooks: dict[int, Callable] = OrderedDict()
_global_forward_hooks: dict[int, Callable] = OrderedDict()
_global_forward_hooks_always_called: dict[int, bool] = OrderedDict()
_global_forward_hooks_with_kwargs: dict[int, bool] = OrderedDict()
_global_is_full_backward_hook: list[bool | None] = [None]

_MIXED_BACKWARD_HOOKS = (
    "Cannot use both regular backward hooks and full backward hooks on a single Module. "
    "Please use only one of them."
)
_MIXED_GLOBAL_BACKWARD_HOOKS = (
    "Cannot use both regular backward hooks and full backward hooks as a global Module "
    "hook. Please use only one of them."
)


def has_global_hooks() -> bool:
    """Whether a global forward or backward hook is registered (every call must look)."""
    return bool(
        _global_backward_pre_hooks
        or _global_backward_hooks
        or _global_forward_hooks
        or _global_forward_pre_hooks
    )


def register_module_buffer_registration_hook(
    hook: Callable[..., Tensor | None],
) -> RemovableHandle:
    """``hook(module, name, buffer)`` runs before every buffer registration; it may return
    the buffer to register instead."""
    return RemovableHandle(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(
    hook: Callable[..., Module | None],
) -> RemovableHandle:
    """``hook(module, name, submodule)`` runs before every submodule registration."""
    return RemovableHandle(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(
    hook: Callable[..., Tensor | None],
) -> RemovableHandle:
    """``hook(module, name, param)`` runs before every parameter registration."""
    return RemovableHandle(_global_parameter_registration_hooks, hook)


def register_module_forward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, args)`` runs before every module's forward (before its own hooks)."""
    return RemovableHandle(_global_forward_pre_hooks, hook)


def register_module_forward_hook(
    hook: Callable[..., Any], *, with_kwargs: bool = False, always_call: bool = False
) -> RemovableHandle:
    """``hook(module, args, output)`` runs after every module's forward."""
    handle = RemovableHandle(
        _global_forward_hooks,
        extra_dict=[_global_forward_hooks_always_called, _global_forward_hooks_with_kwargs],
    )
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """The deprecated, non-full backward hook, for every module."""
    if _global_is_full_backward_hook[0] is True:
        raise RuntimeError(_MIXED_GLOBAL_BACKWARD_HOOKS)
    _global_is_full_backward_hook[0] = False
    return RemovableHandle(_global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, grad_output)`` runs in every module's backward, before its hooks."""
    return RemovableHandle(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, grad_input, grad_output)`` runs in every module's backward."""
    if _global_is_full_backward_hook[0] is False:
        raise RuntimeError(_MIXED_GLOBAL_BACKWARD_HOOKS)
    _global_is_full_backward_hook[0] = True
    return RemovableHandle(_global_backward_hooks, hook)


class _WrappedHook:
    """A hook that is given the module first (held weakly), for the load_state_dict hooks."""

    def __init__(self, hook: Callable, module: Module | None = None) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if module is not None:
            self.module = weakref.ref(module)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self) -> dict:
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state: dict) -> None:
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


# ----- the full backward hooks -----------------------------------------------------------


class BackwardHookFunction(Function):
    """The identity on tensors; its node is where a module's backward hooks look."""

    @staticmethod
    def forward(ctx: Any, *args: Tensor) -> tuple:
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple:
        return grads


class BackwardHook:
    """One forward call's full backward hooks: wraps its inputs and outputs in identity
    nodes, keeps the output gradients when they arrive, and calls the user's hooks with
    (module, grad_input, grad_output) when the input gradients do. Entries for arguments
    that are not tensors are None."""

    def __init__(self, module: Module, user_hooks: list, user_pre_hooks: list) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs: tuple | None = None
        self.n_outputs = -1
        self.output_tensors_index: list[int] | None = None
        self.n_inputs = -1
        self.input_tensors_index: list[int] | None = None
        self._input_meta: list[tuple] = []

    @staticmethod
    def _pack_with_none(indices: list[int], values: Any, size: int) -> tuple:
        res: list = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices: list[int], values: Any) -> tuple:
        return tuple(values[idx] for idx in indices)

    def _apply_on_tensors(self, on_node: Callable, args: tuple) -> tuple:
        """``args`` with their tensors passed through the identity Function (whose node
        ``on_node`` is given), and the tensors' positions; as they were if none needs grad."""
        tensors_idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in tensors_idx]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if len(new_tensors) == 0:
            raise RuntimeError(
                "Cannot set Module backward hook for a Module with no input Tensors."
            )
        grad_fns = [t.grad_fn for t in new_tensors if t.grad_fn is not None]
        on_node(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        out = tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)
        return out, tensors_idx

    def setup_input_hook(self, args: tuple) -> tuple:
        def on_node(grad_fn: Any) -> None:
            def hook(grad_input: tuple, _: tuple) -> tuple | None:
                if self.grad_outputs is None:
                    # the gradient reached the inputs without passing through the outputs
                    # (double backward, say): nothing to report
                    return None
                # every tensor input has a gradient, zeros where none flowed (as PyTorch's
                # identity Function materializes them)
                grad_input = tuple(
                    _make(xp.zeros(shape, dtype.np), dtype) if g is None else g
                    for g, (shape, dtype) in zip(grad_input, self._input_meta)
                )
                res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
                for user_hook in self.user_hooks:
                    out = user_hook(self.module, res, self.grad_outputs)
                    if out is None:
                        continue
                    if len(out) != len(res):
                        raise RuntimeError(
                            "Backward hook returned an invalid number of grad_input, "
                            f"got {len(out)}, but expected {len(res)}"
                        )
                    res = out
                self.grad_outputs = None
                return self._unpack_none(self.input_tensors_index, res)

            grad_fn.register_hook(hook)

        self._input_meta = [(a._data.shape, a._dtype) for a in args if isinstance(a, Tensor)]
        res, self.input_tensors_index = self._apply_on_tensors(on_node, args)
        self.n_inputs = len(args)
        return res

    def setup_output_hook(self, result: Any) -> Any:
        def on_node(grad_fn: Any) -> None:
            def hook(_: tuple, grad_output: tuple) -> tuple | None:
                self.grad_outputs = self._pack_with_none(
                    self.output_tensors_index, grad_output, self.n_outputs
                )
                for pre_hook in self.user_pre_hooks:
                    new = pre_hook(self.module, self.grad_outputs)
                    if new is None:
                        continue
                    if len(new) != len(self.grad_outputs):
                        raise RuntimeError(
                            "Backward pre hook returned an invalid number of grad_output, "
                            f"got {len(new)}, but expected {len(self.grad_outputs)}"
                        )
                    self.grad_outputs = new
                local_grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:
                    # no input needs a gradient: the hooks run now, with grad_input all None
                    warnings.warn(
                        "Full backward hook is firing when gradients are computed with respect "
                        "to module outputs since no inputs require gradients. See "
                        "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                        "#torch.nn.Module.register_full_backward_hook for more details.",
                        stacklevel=_engine_stacklevel(5),
                    )
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (
                            isinstance(res, tuple) and all(el is None for el in res)
                        ):
                            raise RuntimeError(
                                "Backward hook for Modules where no input requires gradient "
                                "should always return None or None for all gradients."
                            )
                    self.grad_outputs = None
                if local_grad_outputs is None:
                    return None
                return tuple(local_grad_outputs[i] for i in self.output_tensors_index)

            grad_fn.register_hook(hook)

        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, self.output_tensors_index = self._apply_on_tensors(on_node, args)
        self.n_outputs = len(args)
        return res if is_tuple else res[0]


# ----- a call with hooks ---------------------------------------------------------------


def backward_hooks(module: Module) -> tuple[list, list]:
    """The module's (full, non-full) backward hooks, the global ones first."""
    full: list = []
    non_full: list = []
    is_full = _global_is_full_backward_hook[0]
    if is_full is True:
        full += _global_backward_hooks.values()
    elif is_full is False:
        non_full += _global_backward_hooks.values()
    if module._is_full_backward_hook is True:
        full += module._backward_hooks.values()
    elif module._is_full_backward_hook is False:
        non_full += module._backward_hooks.values()
    return full, non_full


def call_with_hooks(module: Module, args: tuple, kwargs: dict) -> Any:
    """``module(*args, **kwargs)`` with its hooks (and the global ones), as PyTorch runs them:
    forward pre-hooks, forward, forward hooks; the backward hooks wired into the graph. The
    ``always_call`` forward hooks also run when forward raises."""
    result = None
    called_always: set[int] = set()
    try:
        backward_pre = [*_global_backward_pre_hooks.values(), *module._backward_pre_hooks.values()]
        full, non_full = backward_hooks(module)
        for hook_id, hook in (
            *_global_forward_pre_hooks.items(),
            *module._forward_pre_hooks.items(),
        ):
            if hook_id in module._forward_pre_hooks_with_kwargs:
                new = hook(module, args, kwargs)
                if new is not None:
                    if not (isinstance(new, tuple) and len(new) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {new}."
                        )
                    args, kwargs = new
            else:
                new = hook(module, args)
                if new is not None:
                    args = new if isinstance(new, tuple) else (new,)
        bw_hook = None
        if full or backward_pre:
            bw_hook = BackwardHook(module, full, backward_pre)
            args = bw_hook.setup_input_hook(args)
        result = module.forward(*args, **kwargs)
        for hook_id, hook in (*_global_forward_hooks.items(), *module._forward_hooks.items()):
            if hook_id in module._forward_hooks_always_called or (
                hook_id in _global_forward_hooks_always_called
            ):
                called_always.add(hook_id)
            if hook_id in module._forward_hooks_with_kwargs or (
                hook_id in _global_forward_hooks_with_kwargs
            ):
                new = hook(module, args, kwargs, result)
            else:
                new = hook(module, args, result)
            if new is not None:
                result = new
        if bw_hook is not None:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn(
                    "For backward hooks to be called, module output should be a Tensor or a "
                    f"tuple of Tensors but received {type(result)}",
                    stacklevel=3,
                )
            result = bw_hook.setup_output_hook(result)
        if non_full:
            _register_non_full(module, non_full, args, result)
        return result
    except Exception:
        _run_always_called(module, args, kwargs, result, called_always)
        raise


def _engine_stacklevel(torch_level: int) -> int:
    """The ``stacklevel``, counted from a backward hook, that names the frame PyTorch's
    ``torch_level`` names from its own: PyTorch's hook runs two frames under
    ``autograd.backward``/``autograd.grad`` (its level 3) and three under
    ``Tensor.backward``, while chainrule's engine puts its own frames between (and the
    overrides' dispatch may wrap the entry point in one more)."""
    from ...autograd import _backward, grad, tensor_backward
    from ...overrides import _Overridable

    levels = {_backward.__code__: 3, grad.__code__: 3, tensor_backward.__code__: 4}
    wrapper = _Overridable.__call__.__code__
    frame, depth = sys._getframe(1), 1  # (the hook's frame: stacklevel 1)
    while frame is not None and frame.f_code not in levels:
        frame, depth = frame.f_back, depth + 1
    if frame is None:  # (not under a backward call: the engine run from elsewhere)
        return torch_level
    above = torch_level - levels[frame.f_code]
    while above > 0 and frame.f_back is not None:
        frame, depth = frame.f_back, depth + 1
        if frame.f_code is not wrapper:
            above -= 1
    return depth + above  # (past the outermost frame: Python's "sys:1", as PyTorch's)


def _register_non_full(module: Module, hooks: list, args: tuple, result: Any) -> None:
    """The deprecated backward hooks: hooks of the node that made the (first) output."""
    var = result
    while not isinstance(var, Tensor):
        var = (
            next(v for v in var.values() if isinstance(v, Tensor))
            if isinstance(var, dict)
            else var[0]
        )
    grad_fn = var.grad_fn
    if grad_fn is not None:
        for hook in hooks:
            grad_fn.register_hook(_WrappedHook(hook, module))
        _warn_non_full(args, result, grad_fn)


_NON_FULL = "Using a non-full backward hook when "
_NON_FULL_USE_FULL = "Please use register_full_backward_hook to get the documented behavior."


def _warn_non_full(inputs: Any, result: Any, grad_fn: Any) -> None:
    """The deprecation warning of a non-full backward hook that will miss gradients: the
    module's inputs or outputs are not all tensors, or its forward is more than one node."""
    if isinstance(result, Tensor):
        result = (result,)
    elif not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
        warnings.warn(
            "Using non-full backward hooks on a Module that does not return a single Tensor "
            "or a tuple of Tensors is deprecated and will be removed in future versions. This "
            f"hook will be missing some of the grad_output. {_NON_FULL_USE_FULL}",
            FutureWarning,
            stacklevel=4,
        )
        return
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    elif not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
        warnings.warn(
            "Using non-full backward hooks on a Module that does not take as input a single "
            "Tensor or a tuple of Tensors is deprecated and will be removed in future "
            "versions. This hook will be missing some of the grad_input. "
            f"{_NON_FULL_USE_FULL}",
            FutureWarning,
            stacklevel=4,
        )
        return
    out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
    if not out_grad_fn or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
        message = (
            f"{_NON_FULL}outputs are nested in python data structure is deprecated and will "
            "be removed in future versions. This hook will be missing some grad_output."
        )
    elif len(out_grad_fn) > 1:
        message = (
            f"{_NON_FULL}outputs are generated by different autograd Nodes is deprecated and "
            "will be removed in future versions. This hook will be missing some grad_output. "
            f"{_NON_FULL_USE_FULL}"
        )
    else:
        inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
        if inputs_grad_fn == {n[0] for n in grad_fn.next_functions}:
            return
        message = (
            f"{_NON_FULL}the forward contains multiple autograd Nodes is deprecated and will "
            "be removed in future versions. This hook will be missing some grad_input. "
            f"{_NON_FULL_USE_FULL}"
        )
    warnings.warn(message, FutureWarning, stacklevel=4)


def _run_always_called(
    module: Module, args: tuple, kwargs: dict, result: Any, called: set[int]
) -> None:
    """After forward raised: the ``always_call`` forward hooks that have not run yet. Their
    own errors are reported as warnings (the forward's error is the one raised)."""
    for hook_id, hook in _global_forward_hooks.items():
        if hook_id in _global_forward_hooks_always_called and hook_id not in called:
            try:
                new = hook(module, args, result)
                if new is not None:
                    result = new
            except Exception as e:
                warnings.warn(
                    "global module forward hook with ``always_call=True`` raised an exception "
                    f"that was silenced as another error was raised in forward: {str(e)}",
                    stacklevel=3,
                )
    for hook_id, hook in module._forward_hooks.items():
        if hook_id in module._forward_hooks_always_called and hook_id not in called:
            try:
                if hook_id in module._forward_hooks_with_kwargs:
                    new = hook(module, args, kwargs, result)
                else:
                    new = hook(module, args, result)
                if new is not None:
                    result = new
            except Exception as e:
                warnings.warn(
                    "module forward hook with ``always_call=True`` raised an exception that "
                    f"was silenced as another error was raised in forward: {str(e)}",
                    stacklevel=3,
                )
