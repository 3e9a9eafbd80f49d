"""``torch.optim.Optimizer``: parameter groups, per-parameter state, ``state_dict`` and its
loading, ``zero_grad``, and the step and state-dict hooks, as PyTorch 2.13 has them.

Every optimizer updates its parameters in place on their arrays (``p._data``) with the
backend's ufuncs and bumps the parameter's version counter, as an in-place op would, so a
graph that saved the parameter refuses to run backward afterwards, as in PyTorch.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Hashable, Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

import chainrule

from .._backend import xp
from .._layout import strided
from .._tensor import Tensor
from ..nn.modules.module import typename
from ..nn.parameter import Parameter
from ..utils.hooks import RemovableHandle
from . import _sparse

__all__ = [
    "Optimizer",
    "register_optimizer_step_post_hook",
    "register_optimizer_step_pre_hook",
    "required",
]

StateDict = dict[str, Any]
ParamsT = Iterable[Tensor] | Iterable[dict[str, Any]] | Iterable[tuple[str, Tensor]]


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_optimizer_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_optimizer_post_hooks: OrderedDict[int, Callable] = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """A hook ``hook(optimizer, args, kwargs)`` run before every optimizer's ``step``."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """A hook ``hook(optimizer, args, kwargs)`` run after every optimizer's ``step``."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _scalar_dtype() -> Any:
    """The dtype of the ``step`` counters: float64 under a float64 default, else float32."""
    default = chainrule.get_default_dtype()
    return chainrule.float64 if default == chainrule.float64 else chainrule.float32


def _scalar_tensor(value: float) -> Tensor:
    return chainrule.tensor(float(value), dtype=_scalar_dtype())


def _value(x: Any) -> Any:
    """A 0-d tensor's Python number (PyTorch's ``_get_value``); anything else as is."""
    return x.item() if isinstance(x, Tensor) else x


def _to_scalar(x: Any) -> Any:
    """A one-element tensor hyperparameter as a Python number (PyTorch's ``_to_scalar``)."""
    return x.item() if isinstance(x, Tensor) else x


def _lr_number(lr: Any) -> Any:
    """A tensor ``lr`` as a NumPy scalar of its dtype: PyTorch computes the step sizes with
    the 0-d tensor, so in float32 where it is float32; a Python number as it is."""
    return lr._data.reshape(())[()] if isinstance(lr, Tensor) else lr


def _over(numerator: Any, denominator: Any) -> Any:
    """``numerator / denominator`` as PyTorch divides: a Python number over a 0-d tensor
    (here a NumPy scalar) is the tensor's reciprocal times the number (two roundings)."""
    if isinstance(denominator, xp.generic) and not isinstance(numerator, xp.generic):
        return (1 / denominator) * numerator
    return numerator / denominator


def _check_lr(lr: Any) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_nonneg(name: str, value: Any) -> None:
    if not 0.0 <= value:
        raise ValueError(f"Invalid {name} value: {value}")


def _check_betas(betas: Any) -> None:
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


def _check_adam_family(lr: Any, eps: float, betas: Any, weight_decay: float) -> None:
    """The Adam family's checks, in PyTorch's order: lr, eps, the betas, weight_decay."""
    _check_lr(lr)
    _check_nonneg("epsilon", eps)
    _check_betas(betas)
    _check_nonneg("weight_decay", weight_decay)


def _check_fused(fused: Any, foreach: Any, differentiable: Any) -> None:
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _refuse_complex(params: list[Tensor], name: str) -> None:
    """PyTorch's error of an optimizer that has no complex form (Adafactor, Muon), raised
    before the group's first update when one of its parameters with a gradient is complex."""
    if any(p.is_complex() for p in params):
        raise RuntimeError(f"{name} does not support complex parameters")


# What PyTorch's capturable steps name in their device check (others: params, state_steps)
_CAPTURED = {
    "NAdam": ("params, mu_products and state_steps", "params, mu_products, and state_steps"),
    "ASGD": ("params, mus, etas, and state_steps",) * 2,
}


def _capturable_refusal(name: str, foreach: bool) -> str:
    """PyTorch's error of a ``capturable=True`` step on CPU parameters (capturable steps
    are for accelerators: make the group's ``capturable`` False, or move the parameters)."""
    tensors = _CAPTURED.get(name, ("params and state_steps",) * 2)[foreach]
    devices = ["cuda", "xpu", "hpu", "privateuseone"]
    if name in ("RMSprop", "Rprop") or not (foreach or name == "Adadelta"):
        devices.append("xla")
    return f"If capturable=True, {tensors} must be on supported devices: {devices}."


def _hooked_step(func: Callable) -> Callable:
    """``step`` wrapped to run the global and the optimizer's pre and post hooks."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        self = args[0]
        pre_hooks = getattr(self, "_optimizer_step_pre_hooks", None)
        if pre_hooks is None:
            # Optimizer.__init__ never ran (a wrapper such as accelerate's): PyTorch hooks
            # a class's step in that __init__, so such a step runs no hooks there
            return func(*args, **kwargs)
        if not (
            _global_optimizer_pre_hooks
            or pre_hooks
            or self._optimizer_step_post_hooks
            or _global_optimizer_post_hooks
        ):  # (no hook anywhere, the usual case: the step itself)
            return func(*args, **kwargs)
        for pre_hook in chain(
            _global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()
        ):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(
                        f"{func} must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {result}."
                    )
        out = func(*args, **kwargs)
        for post_hook in chain(
            self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()
        ):
            post_hook(self, args, kwargs)
        return out

    wrapper.hooked = True  # type: ignore[attr-defined]
    return wrapper


class Optimizer:
    """Base class of the optimizers: ``param_groups`` (each a dict of hyperparameters and
    its ``params``), ``state`` (per parameter), ``defaults``."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = _hooked_step(step)  # type: ignore[method-assign]

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict[int, Callable] = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be "
                "an iterable of Tensors or dicts, but got " + typename(params)
            )
        self.state: defaultdict[Any, Any] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self) -> dict[str, Any]:
        return {
            "defaults": self.defaults,
            "state": self.state,
            "param_groups": self.param_groups,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in (
            "_optimizer_step_pre_hooks",
            "_optimizer_step_post_hooks",
            "_optimizer_state_dict_pre_hooks",
            "_optimizer_state_dict_post_hooks",
            "_optimizer_load_state_dict_pre_hooks",
            "_optimizer_load_state_dict_post_hooks",
        ):
            self.__dict__.setdefault(name, OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # ----- hooks -----------------------------------------------------------------

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs) -> None or (args, kwargs)`` before ``step``."""
        return RemovableHandle(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs) -> None`` after ``step``."""
        return RemovableHandle(self._optimizer_step_post_hooks, hook)

    @staticmethod
    def _register(hooks: OrderedDict, hook: Callable, prepend: bool) -> RemovableHandle:
        handle = RemovableHandle(hooks, hook)
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """``hook(optimizer)`` before ``state_dict``."""
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """``hook(optimizer, state_dict) -> state_dict or None`` after ``state_dict``."""
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """``hook(optimizer, state_dict) -> state_dict or None`` before loading."""
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """``hook(optimizer)`` after loading."""
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ----- state dict ------------------------------------------------------------

    def state_dict(self) -> StateDict:
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}``; the
        state's tensors are the optimizer's own (not copies), as in PyTorch."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        mapping: dict[int, int] = {}
        start = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {
            (mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()
        }
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _cast_state(param: Tensor, value: Any, key: Hashable = None, policy: Any = None) -> Any:
        """A state value for ``param``: tensors cast to its dtype (``step`` kept, or made
        float32 for capturable/fused groups), containers rebuilt."""
        if isinstance(value, Tensor):
            if key == "step":
                return value.to(dtype=chainrule.float32) if policy else value
            return value.to(dtype=param.dtype) if param.is_floating_point() else value
        if isinstance(value, dict):
            return {k: Optimizer._cast_state(param, v, k, policy) for k, v in value.items()}
        if isinstance(value, Iterable) and not isinstance(value, str):
            return type(value)(Optimizer._cast_state(param, v, None, policy) for v in value)
        return value

    def load_state_dict(self, state_dict: StateDict) -> None:
        """Load a ``state_dict()``: group hyperparameters replaced, state matched to the
        parameters by order."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group "
                "that doesn't match the size of optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )
        policy = {}
        for g in state_dict["param_groups"]:
            flag = bool(g.get("fused", False) or g.get("capturable", False))
            for index in g["params"]:
                policy.setdefault(index, flag)
        state: defaultdict[Any, Any] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = self._cast_state(param, v, None, policy.get(k, False))
            else:
                state[k] = v

        def update_group(group: dict[str, Any], new_group: dict[str, Any]) -> dict[str, Any]:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # ----- gradients and groups ----------------------------------------------------

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Set every parameter's ``.grad`` to None (or, with ``set_to_none=False``, to
        zeros, detached)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None:  # (parameters are leaves: no non-leaf warning to give)
                    if set_to_none:
                        p._grad = None
                    else:
                        g = p.grad
                        if g.grad_fn is not None:
                            g.detach_()
                        else:
                            g.requires_grad_(False)
                        g._data[...] = 0
                        g._bump()
                elif p.__class__ is not Parameter and p.layout is not strided:
                    # a sparse parameter keeps its gradient with its values (chainrule/sparse)
                    if set_to_none:
                        p.grad = None
                    elif p.grad is not None:
                        p.grad.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One optimization step (each optimizer defines it)."""
        raise NotImplementedError

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (a dict with ``params`` and any hyperparameters; the
        rest from ``defaults``)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but "
                "the ordering of tensors in sets will change between runs. "
                "Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) == len(tensors):
                param_group["param_names"] = names
            else:
                raise ValueError(
                    "all optimizer params should be with/without names. "
                    "Some param names are missing"
                )
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, "
                    "but one of the params is " + typename(param)
                )
            if not self.defaults.get("differentiable", None) and not (
                param.is_leaf or param.retains_grad
            ):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; "
                "in future, this will cause an error; "
                "see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        param_set: set[Tensor] = set()
        for group in self.param_groups:
            param_set.update(set(group["params"]))
            if ("param_names" in param_group) != ("param_names" in group):
                text = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {text} to the optimizer"
                )
        if not param_set.isdisjoint(set(param_group["params"])):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ----- helpers for the optimizers ------------------------------------------------

    @staticmethod
    def _with_grad(group: dict[str, Any], name: str) -> list[Tensor]:
        """The group's parameters that have a gradient (a sparse one: PyTorch's error, but
        for the optimizers that take it: optim/_sparse.py)."""
        out = []
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            if g.__class__ is not Tensor and g.is_sparse and name not in _sparse.TAKES_SPARSE:
                raise _sparse.refuse(name)
            out.append(p)
        if out and group.get("capturable") and any(p.device.type == "cpu" for p in out):
            raise AssertionError(_capturable_refusal(name, bool(group.get("foreach"))))
        return out

    @staticmethod
    def _closure_loss(closure: Callable[[], Any] | None) -> Any:
        """The closure's loss, computed with grad enabled (None without a closure)."""
        if closure is None:
            return None
        with chainrule.enable_grad():
            return closure()
