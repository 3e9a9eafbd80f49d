"""``torch.ao.quantization.fuse_modules``: a layer and what follows it made one module
before quantization (conv + bn folded into the conv in eval mode; linear or conv + relu
into ``LinearReLU``/``ConvReLU2d`` ...). The training-mode fusions of ``fuse_modules_qat``
with batch norm (``ConvBn2d``, ``LinearBn1d``) are not implemented: they raise."""

from __future__ import annotations

import copy
from typing import Any

from chainrule import nn
from chainrule._missing import NotImplementedInChainrule
from chainrule.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval

from ..nn import intrinsic as nni

__all__ = ["fuse_known_modules", "fuse_modules", "fuse_modules_qat", "get_fuser_method"]

_CONV_RELU = {nn.Conv1d: nni.ConvReLU1d, nn.Conv2d: nni.ConvReLU2d, nn.Conv3d: nni.ConvReLU3d}


def _same_mode(what: str, *mods: Any) -> None:
    if len({m.training for m in mods}) != 1:
        raise AssertionError(f"{what} both must be in the same mode (train or eval).")


def _no_train_bn(what: str) -> NotImplementedInChainrule:
    return NotImplementedInChainrule(
        f"fusing {what} for quantization-aware training (torch.ao.nn.intrinsic's "
        "ConvBn/LinearBn modules) is not implemented in chainrule"
    )


def fuse_conv_bn(is_qat: bool, conv: Any, bn: Any) -> Any:
    _same_mode("Conv and BN", conv, bn)
    if is_qat:
        raise _no_train_bn("Conv and BatchNorm")
    return fuse_conv_bn_eval(conv, bn)


def fuse_conv_bn_relu(is_qat: bool, conv: Any, bn: Any, relu: Any) -> Any:
    _same_mode("Conv and BN", conv, bn, relu)
    if is_qat:
        raise _no_train_bn("Conv, BatchNorm and ReLU")
    fused = _CONV_RELU.get(type(conv))
    if fused is None:
        raise NotImplementedError(f"Cannot fuse eval modules: {(conv, bn, relu)}")
    return fused(fuse_conv_bn_eval(conv, bn), relu)


def fuse_linear_bn(is_qat: bool, linear: Any, bn: Any) -> Any:
    _same_mode("Linear and BN", linear, bn)
    if is_qat:
        raise _no_train_bn("Linear and BatchNorm")
    return fuse_linear_bn_eval(linear, bn)


def _sequence(fused: type) -> Any:
    def fuse(is_qat: bool, *mods: Any) -> Any:
        return fused(*mods)

    return fuse


def _mapping() -> dict:
    found: dict = {
        (nn.Linear, nn.ReLU): _sequence(nni.LinearReLU),
        (nn.Linear, nn.BatchNorm1d): fuse_linear_bn,
        (nn.BatchNorm2d, nn.ReLU): _sequence(nni.BNReLU2d),
        (nn.BatchNorm3d, nn.ReLU): _sequence(nni.BNReLU3d),
    }
    for conv, bn in ((nn.Conv1d, nn.BatchNorm1d), (nn.Conv2d, nn.BatchNorm2d)):
        found[(conv, bn)] = fuse_conv_bn
        found[(conv, bn, nn.ReLU)] = fuse_conv_bn_relu
    found[(nn.Conv3d, nn.BatchNorm3d)] = fuse_conv_bn
    found[(nn.Conv3d, nn.BatchNorm3d, nn.ReLU)] = fuse_conv_bn_relu
    for conv, fused in _CONV_RELU.items():
        found[(conv, nn.ReLU)] = _sequence(fused)
    return found


def get_fuser_method(op_list: tuple, additional_fuser_method_mapping: dict | None = None) -> Any:
    """The function that fuses the module types ``op_list`` (None if none does)."""
    mapping = {**_mapping(), **(additional_fuser_method_mapping or {})}
    return mapping.get(tuple(op_list))


def fuse_known_modules(
    mod_list: list, is_qat: bool, additional_fuser_method_mapping: dict | None = None
) -> list:
    """The fused module first, then an ``nn.Identity`` for each other module; the first
    module's forward pre-hooks and the last one's forward hooks move to the fused one."""
    types = tuple(type(m) for m in mod_list)
    fuser = get_fuser_method(types, additional_fuser_method_mapping)
    if fuser is None:
        raise NotImplementedError(f"Cannot fuse modules: {types}")
    fused = fuser(is_qat, *mod_list)
    for hook in mod_list[0]._forward_pre_hooks.values():
        fused.register_forward_pre_hook(hook)
    mod_list[0]._forward_pre_hooks.clear()
    for hook in mod_list[-1]._forward_hooks.values():
        fused.register_forward_hook(hook)
    mod_list[-1]._forward_hooks.clear()
    out = [fused]
    for _ in mod_list[1:]:
        identity = nn.Identity()
        identity.training = mod_list[0].training
        out.append(identity)
    return out


def _get(model: Any, key: str) -> Any:
    for part in key.split("."):
        model = getattr(model, part)
    return model


def _set(model: Any, key: str, module: Any) -> None:
    *path, last = key.split(".")
    for part in path:
        model = getattr(model, part)
    setattr(model, last, module)


def _fuse(
    model: Any, modules_to_fuse: list, is_qat: bool, inplace: bool, fuser_func: Any, config: Any
) -> Any:
    if not inplace:
        model = copy.deepcopy(model)
    extra = (config or {}).get("additional_fuser_method_mapping", {})
    groups = (
        [modules_to_fuse] if all(isinstance(m, str) for m in modules_to_fuse) else modules_to_fuse
    )
    for group in groups:
        fused = fuser_func([_get(model, key) for key in group], is_qat, extra)
        for key, module in zip(group, fused, strict=True):
            _set(model, key, module)
    return model


def fuse_modules(
    model: Any,
    modules_to_fuse: list,
    inplace: bool = False,
    fuser_func: Any = fuse_known_modules,
    fuse_custom_config_dict: Any = None,
) -> Any:
    """Fuse each list of submodule names (or the one list) of ``model`` (eval mode)."""
    return _fuse(model, modules_to_fuse, False, inplace, fuser_func, fuse_custom_config_dict)


def fuse_modules_qat(
    model: Any,
    modules_to_fuse: list,
    inplace: bool = False,
    fuser_func: Any = fuse_known_modules,
    fuse_custom_config_dict: Any = None,
) -> Any:
    """``fuse_modules`` for quantization-aware training (training mode)."""
    return _fuse(model, modules_to_fuse, True, inplace, fuser_func, fuse_custom_config_dict)
