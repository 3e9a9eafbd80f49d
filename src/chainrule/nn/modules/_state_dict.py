"""``Module.state_dict`` and ``Module.load_state_dict``: a module tree's state as a flat dict
of dotted names, and back, with PyTorch's key matching, hooks and error messages.

``state_dict`` walks the tree: each module puts its own entries in (``_save_to_state_dict``)
between its pre-hooks and post-hooks, and records its ``_version`` in ``_metadata``.
``load_state_dict`` walks it again: each module takes the entries under its prefix
(``_load_from_state_dict``), collecting missing and unexpected keys and errors, which
are raised together at the end when ``strict``.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter, is_lazy

if TYPE_CHECKING:
    from .module import Module, _IncompatibleKeys

_EXTRA_STATE = "_extra_state"


def state_dict(module: Module, args: tuple, destination: Any, prefix: str, keep_vars: bool) -> Any:
    """``module.state_dict(...)``: see Module.state_dict."""
    if args:
        import warnings

        warnings.warn(
            "Positional args are being deprecated, use kwargs instead. Refer to "
            "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict"
            " for details.",
            FutureWarning,
            stacklevel=3,
        )
        if destination is None:
            destination = args[0]
        if len(args) > 1 and prefix == "":
            prefix = args[1]
        if len(args) > 2 and keep_vars is False:
            keep_vars = args[2]
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    local_metadata = {"version": module._version}
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = local_metadata
    for hook in module._state_dict_pre_hooks.values():
        hook(module, prefix, keep_vars)
    module._save_to_state_dict(destination, prefix, keep_vars)
    for name, child in module._modules.items():
        if child is not None:
            child.state_dict(
                destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
            )
    for hook in module._state_dict_hooks.values():
        result = hook(module, destination, prefix, local_metadata)
        if not getattr(hook, "_from_public_api", False):
            if result is not None:
                destination = result
        elif result is not None:
            raise RuntimeError("state_dict post-hook must return None")
    return destination


def load_from_state_dict(
    module: Module,
    state_dict: dict,
    prefix: str,
    local_metadata: dict,
    strict: bool,
    missing_keys: list[str],
    unexpected_keys: list[str],
    error_msgs: list[str],
) -> None:
    """``module._load_from_state_dict(...)``: this module's own entries only."""
    from .module import Module

    for hook in module._load_state_dict_pre_hooks.values():
        hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
    persistent = {
        k: v for k, v in module._buffers.items() if k not in module._non_persistent_buffers_set
    }
    local_state = {
        k: v for k, v in (*module._parameters.items(), *persistent.items()) if v is not None
    }
    assign = local_metadata.get("assign_to_params_buffers", False)
    for name, param in local_state.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        value = state_dict[key]
        if not isinstance(value, Tensor):
            error_msgs.append(
                f'While copying the parameter named "{key}", expected torch.Tensor or '
                f"Tensor-like object from checkpoint but received {type(value)}"
            )
            continue
        # a lazy module's placeholder has no shape to check (its load hook materialised it
        # if the value has one)
        lazy = is_lazy(param)
        # a 0-d parameter takes a 1-element 1-d value (checkpoints of PyTorch 0.3)
        if not lazy and param.ndim == 0 and value.ndim == 1 and value.shape[0] == 1:
            value = value[0]
        if not lazy and value.shape != param.shape:
            error_msgs.append(
                f"size mismatch for {key}: copying a param with shape {value.shape} from "
                f"checkpoint, the shape in current model is {param.shape}."
            )
            continue
        if param.is_meta and not value.is_meta and not assign:
            warnings.warn(
                f"for {key}: copying from a non-meta parameter in the checkpoint to a meta "
                "parameter in the current model, which is a no-op. (Did you mean to pass "
                "`assign=True` to assign items in the state dictionary to their corresponding "
                "key in the module instead of copying them in place?)",
                stacklevel=2,
            )
        try:
            with no_grad():
                if assign:
                    if isinstance(param, Parameter):
                        if not isinstance(value, Parameter):
                            value = Parameter(value, requires_grad=param.requires_grad)
                        else:
                            value.requires_grad_(param.requires_grad)
                    setattr(module, name, value)
                else:
                    param.copy_(value)
        except Exception as ex:
            error_msgs.append(
                f'While copying the parameter named "{key}", whose dimensions in the model are '
                f"{param.size()} and whose dimensions in the checkpoint are {value.size()}, an "
                f"exception occurred : {ex.args}."
            )
    extra_key = prefix + _EXTRA_STATE
    if type(module).set_extra_state is not Module.set_extra_state:
        if extra_key in state_dict:
            module.set_extra_state(state_dict[extra_key])
        elif strict:
            missing_keys.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected_keys.append(extra_key)
    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key != extra_key:
                first, *rest = key[len(prefix) :].split(".", 1)
                if rest:
                    if first not in module._modules:  # an attribute path must be a module
                        unexpected_keys.append(key)
                elif first not in local_state:
                    unexpected_keys.append(key)


def load_state_dict(
    module: Module, state_dict: Mapping[str, Any], strict: bool, assign: bool
) -> _IncompatibleKeys:
    """``module.load_state_dict(...)``: every module's part, then the verdict."""
    from .module import _IncompatibleKeys

    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing_keys: list[str] = []
    unexpected_keys: list[str] = []
    error_msgs: list[str] = []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)  # a copy the modules' loaders may change
    if metadata is not None:
        state_dict._metadata = metadata  # type: ignore[attr-defined]

    stack = [(module, state_dict, "")]
    # depth first, in the order PyTorch's recursion takes (the post hooks of a module run
    # after its whole subtree is loaded: they are queued as markers)
    while stack:
        item = stack.pop()
        if item[1] is None:  # a marker: the subtree of item[0] is done
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in item[0]._load_state_dict_post_hooks.values():
                if hook(item[0], incompatible) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace."
                    )
            continue
        mod, local, prefix = item
        local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        mod._load_from_state_dict(
            local, prefix, local_metadata, True, missing_keys, unexpected_keys, error_msgs
        )
        stack.append((mod, None, prefix))
        children = []
        for name, child in mod._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                child_local = {k: v for k, v in local.items() if k.startswith(child_prefix)}
                children.append((child, child_local, child_prefix))
        stack.extend(reversed(children))

    if strict:
        if unexpected_keys:
            error_msgs.insert(
                0,
                "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)
                ),
            )
        if missing_keys:
            error_msgs.insert(
                0,
                "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)
                ),
            )
    if error_msgs:
        raise RuntimeError(
            "Error(s) in loading state_dict for {}:\n\t{}".format(
                module.__class__.__name__, "\n\t".join(error_msgs)
            )
        )
    return _IncompatibleKeys(missing_keys, unexpected_keys)
