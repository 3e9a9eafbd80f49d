"""``torch.ao.quantization.quantize``: ``quantize_dynamic`` (chainrule swaps ``nn.Linear``
and ``nn.LSTM`` for their dynamically quantized versions), ``prepare`` (observers) and
``prepare_qat`` (quantization-aware training of ``nn.Linear`` layers) and ``convert`` to
static quantized modules (stubs and linear layers; convolutions and the other modules
raise)."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import chainrule as torch

from ..._missing import NotImplementedInChainrule
from .fake_quantize import FakeQuantizeBase
from .qconfig import default_dynamic_qconfig, float16_dynamic_qconfig

__all__ = [
    "convert",
    "prepare",
    "prepare_qat",
    "propagate_qconfig_",
    "quantize",
    "quantize_dynamic",
]

# PyTorch's deprecation of torch.ao.quantization (its eager-mode entry points warn)
DEPRECATED = (
    "torch.ao.quantization is deprecated and will be removed in 2.10. \nFor migrations of "
    "users: \n1. Eager mode quantization (torch.ao.quantization.quantize, "
    "torch.ao.quantization.quantize_dynamic), please migrate to use torchao eager mode "
    "quantize_ API instead \n2. FX graph mode quantization "
    "(torch.ao.quantization.quantize_fx.prepare_fx,torch.ao.quantization.quantize_fx."
    "convert_fx, please migrate to use torchao pt2e quantization API instead (prepare_pt2e, "
    "convert_pt2e) \n3. pt2e quantization has been migrated to torchao "
    "(https://github.com/pytorch/ao/tree/main/torchao/quantization/pt2e) \nsee "
    "https://github.com/pytorch/ao/issues/2259 for more details"
)
_RNN_NAMES = ("LSTM", "GRU", "LSTMCell", "RNNCell", "GRUCell")
_MISSING_RNN = ("GRU", "LSTMCell", "RNNCell", "GRUCell")


def _ours(kind: type) -> bool:
    """Whether ``kind`` is chainrule's class (its module carries PyTorch's name under
    ``chainrule run``)."""
    from ..._import_hook import is_chainrule_module

    return is_chainrule_module(kind.__module__)


def _dynamic_mapping() -> dict:
    from ..nn.quantized import dynamic

    return {torch.nn.Linear: dynamic.Linear, torch.nn.LSTM: dynamic.LSTM}


def _default_spec(dtype: Any) -> dict:
    if dtype is torch.qint8:
        qconfig = default_dynamic_qconfig
    elif dtype is torch.float16:
        qconfig = float16_dynamic_qconfig
    else:
        raise ValueError(
            f"Don't know how to quantize with default settings for {dtype}. Provide full "
            "qconfig please"
        )
    types = [torch.nn.Linear] + [getattr(torch.nn, n) for n in _RNN_NAMES]
    return dict.fromkeys(types, qconfig)


def propagate_qconfig_(
    module: Any, qconfig_dict: dict | None = None, prepare_custom_config_dict: Any = None
) -> None:
    """Give each submodule its ``qconfig``: the entry for its name, else for its type, else
    its parent's."""
    qconfig_dict = qconfig_dict or {}

    def visit(mod: Any, parent_qconfig: Any, prefix: str) -> None:
        qconfig = qconfig_dict.get(type(mod), parent_qconfig)
        qconfig = qconfig_dict.get(prefix, qconfig)
        qconfig = getattr(mod, "qconfig", qconfig)
        mod.qconfig = qconfig
        for name, child in mod.named_children():
            visit(child, qconfig, f"{prefix}.{name}" if prefix else name)

    visit(module, None, "")


def _swap(module: Any, mapping: dict) -> None:
    for name, child in list(module.named_children()):
        if type(child) in mapping and getattr(child, "qconfig", None) is not None:
            setattr(module, name, mapping[type(child)].from_float(child))
        else:
            _swap(child, mapping)


def _remove_qconfig(module: Any) -> None:
    for mod in module.modules():
        if hasattr(mod, "qconfig"):
            del mod.qconfig


def quantize_dynamic(
    model: Any,
    qconfig_spec: Any = None,
    dtype: Any = None,
    mapping: dict | None = None,
    inplace: bool = False,
) -> Any:
    """The model with its ``nn.Linear`` and ``nn.LSTM`` layers (those ``qconfig_spec``
    names: types, submodule names, or a dict of either to qconfigs) replaced by dynamically
    quantized ones (qint8 weights). Dynamic quantization of GRU and the RNN cells, and
    float16 weights, are not implemented in chainrule: a model they would change raises."""
    warnings.warn(DEPRECATED, DeprecationWarning, stacklevel=2)
    dtype = torch.qint8 if dtype is None else dtype
    if qconfig_spec is None:
        qconfig_spec = _default_spec(dtype)
    elif isinstance(qconfig_spec, set):
        if dtype is torch.qint8:
            qconfig = default_dynamic_qconfig
        elif dtype is torch.float16:
            qconfig = float16_dynamic_qconfig
        else:
            raise RuntimeError(f"Unknown dtype specified for quantize_dynamic: {dtype}")
        qconfig_spec = dict.fromkeys(qconfig_spec, qconfig)
    mapping = _dynamic_mapping() if mapping is None else mapping
    if not inplace:
        model = copy.deepcopy(model)
    propagate_qconfig_(model, qconfig_spec)
    for name, mod in model.named_modules():
        if getattr(mod, "qconfig", None) is None or type(mod) in mapping:
            if type(mod) in mapping and mod.qconfig.weight().dtype is not torch.qint8:
                raise NotImplementedInChainrule(
                    "quantize_dynamic with float16 weights is not implemented in chainrule"
                )
            continue
        if type(mod).__name__ in _MISSING_RNN and _ours(type(mod)):
            raise NotImplementedInChainrule(
                f"quantize_dynamic of {type(mod).__name__} ({name or 'the model'}) is not "
                "implemented in chainrule (it quantizes nn.Linear and nn.LSTM)"
            )
    _swap(model, mapping)
    _remove_qconfig(model)
    return model


def _propagation_list() -> set:
    """The module types that get observers in ``prepare`` (PyTorch's default list, of the
    classes chainrule has)."""
    from ..nn import qat
    from .stubs import DeQuantStub, QuantStub

    names = (
        "BatchNorm2d BatchNorm3d Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d "
        "ConvTranspose3d ELU Embedding EmbeddingBag GRU GRUCell GroupNorm Hardswish "
        "InstanceNorm1d InstanceNorm2d InstanceNorm3d LSTM LSTMCell LayerNorm LeakyReLU "
        "Linear PReLU RNNCell ReLU6 Sequential"
    ).split()
    found = {getattr(torch.nn, n) for n in names if hasattr(torch.nn, n)}
    return found | {QuantStub, DeQuantStub, qat.Linear}


def _observer_forward_hook(self: Any, input: Any, output: Any) -> Any:  # noqa: A002
    """Forward hook: the output goes through the module's activation_post_process."""
    return self.activation_post_process(output)


def _observer_forward_pre_hook(self: Any, input: Any) -> Any:  # noqa: A002
    """Forward pre-hook (memoryless observers): the input goes through it."""
    return self.activation_post_process(input[0])


def _memoryless(qconfig: Any) -> bool:
    act = qconfig.activation()
    if isinstance(act, FakeQuantizeBase) and hasattr(act, "activation_post_process"):
        act = act.activation_post_process
    return getattr(act, "averaging_constant", None) == 1


def _insert_observer(module: Any) -> None:
    from .stubs import DeQuantStub

    if getattr(module, "qconfig", None) is None or isinstance(module, DeQuantStub):
        return
    module.add_module("activation_post_process", module.qconfig.activation())
    if _memoryless(module.qconfig):
        module.register_forward_pre_hook(_observer_forward_pre_hook, prepend=True)
    else:
        module.register_forward_hook(_observer_forward_hook, prepend=True)


def _add_observer_(module: Any, allowed: set, non_leaf: set | None) -> None:
    from ..nn.intrinsic.modules.fused import _FusedModule
    from ..nn.quantized.modules.functional_modules import FloatFunctional, QFunctional

    for child in module.children():
        if type(child) is torch.nn.Dropout:
            continue
        if isinstance(child, (FloatFunctional, QFunctional)):  # (its own observer slot)
            if getattr(child, "qconfig", None) is not None:
                child.activation_post_process = child.qconfig.activation()
            continue
        if isinstance(child, _FusedModule) or (non_leaf is not None and type(child) in non_leaf):
            _insert_observer(child)
        else:
            _add_observer_(child, allowed, non_leaf)
    leaf = next(iter(module.children()), None) is None
    if leaf and not isinstance(module, torch.nn.Sequential) and type(module) in allowed:
        _insert_observer(module)


def prepare(
    model: Any,
    inplace: bool = False,
    allow_list: Any = None,
    observer_non_leaf_module_list: Any = None,
    prepare_custom_config_dict: Any = None,
) -> Any:
    """The model with observers: each leaf module of a quantizable type that has a qconfig
    (``model.qconfig``, inherited by submodules) gets ``activation_post_process`` (its
    qconfig's activation observer) run on its output by a forward hook."""
    warnings.warn(DEPRECATED, DeprecationWarning, stacklevel=2)
    return _prepare(model, inplace, allow_list, observer_non_leaf_module_list)


def _prepare(model: Any, inplace: bool, allow_list: Any, non_leaf: Any) -> Any:
    if not inplace:
        model = copy.deepcopy(model)
    propagate_qconfig_(model, None)
    if not any(getattr(m, "qconfig", None) for m in model.modules()):
        warnings.warn(
            "None of the submodule got qconfig applied. Make sure you passed correct "
            "configuration through `qconfig_dict` or by assigning the `.qconfig` attribute "
            "directly on submodules",
            stacklevel=3,
        )
    _add_observer_(model, set(allow_list) if allow_list else _propagation_list(), non_leaf)
    return model


def _qat_mapping() -> dict:
    from ..nn import intrinsic, qat

    return {
        torch.nn.Linear: qat.Linear,
        torch.nn.Conv2d: qat.Conv2d,
        intrinsic.LinearReLU: intrinsic.qat.LinearReLU,
        intrinsic.ConvReLU2d: intrinsic.qat.ConvReLU2d,
    }


def _swap_with_hooks(module: Any, mapping: dict) -> None:
    """Swap each submodule whose type ``mapping`` names (and that has a qconfig) for
    ``mapping[type].from_float(it)``, keeping its forward hooks."""
    for name, child in list(module.named_children()):
        if getattr(child, "qconfig", None) is not None and type(child).__name__ in _NO_QAT:
            if _ours(type(child)):
                raise NotImplementedInChainrule(
                    f"prepare_qat of {type(child).__name__} ({name}): chainrule's QAT modules "
                    "are Linear, Conv2d, LinearReLU and ConvReLU2d"
                )
        if type(child) in mapping and getattr(child, "qconfig", None) is not None:
            made = mapping[type(child)].from_float(child)
            for hook in child._forward_pre_hooks.values():
                made.register_forward_pre_hook(hook)
            for hook in child._forward_hooks.values():
                made.register_forward_hook(hook)
            made.train(child.training)
            setattr(module, name, made)
        else:
            _swap_with_hooks(child, mapping)


def prepare_qat(model: Any, mapping: dict | None = None, inplace: bool = False) -> Any:
    """The model ready for quantization-aware training: its ``nn.Linear`` layers (those with
    a qconfig) become ``nn.qat.Linear`` (weights fake quantized), and observers (the
    qconfig's fake quantizers) follow the quantizable modules, as ``prepare`` adds them."""
    warnings.warn(DEPRECATED, DeprecationWarning, stacklevel=2)
    if not model.training:
        raise AssertionError("prepare_qat only works on models in training mode")
    mapping = _qat_mapping() if mapping is None else mapping
    if not inplace:
        model = copy.deepcopy(model)
    propagate_qconfig_(model, None)
    _swap_with_hooks(model, mapping)
    return _prepare(model, True, None, set(mapping.values()))


def _static_mapping() -> dict:
    from ..nn import intrinsic, qat
    from ..nn.quantized import modules as nnq
    from .stubs import DeQuantStub, QuantStub

    return {
        QuantStub: nnq.Quantize,
        DeQuantStub: nnq.DeQuantize,
        torch.nn.Linear: nnq.Linear,
        qat.Linear: nnq.Linear,
        intrinsic.LinearReLU: intrinsic.quantized.LinearReLU,
        intrinsic.qat.LinearReLU: intrinsic.quantized.LinearReLU,
        torch.nn.Conv2d: nnq.Conv2d,
        qat.Conv2d: nnq.Conv2d,
        intrinsic.ConvReLU2d: intrinsic.quantized.ConvReLU2d,
        intrinsic.qat.ConvReLU2d: intrinsic.quantized.ConvReLU2d,
        nnq.FloatFunctional: nnq.QFunctional,
        torch.nn.ReLU6: nnq.ReLU6,
        torch.nn.Dropout: nnq.Dropout,
    }


# the observed module types PyTorch converts that chainrule cannot (yet)
_UNCONVERTIBLE = (
    "BatchNorm2d BatchNorm3d Conv1d Conv3d ConvTranspose1d ConvTranspose2d "
    "ConvTranspose3d ELU Embedding EmbeddingBag GroupNorm Hardswish InstanceNorm1d "
    "InstanceNorm2d InstanceNorm3d LayerNorm LeakyReLU PReLU LSTM ConvReLU1d "
    "ConvReLU3d BNReLU2d BNReLU3d"
).split()
# the module types PyTorch's prepare_qat makes QAT modules of that chainrule cannot
_NO_QAT = ("Conv3d", "ConvReLU3d")


def _convert(module: Any, mapping: dict, use_precomputed_fake_quant: bool) -> None:
    from ..nn.intrinsic.modules.fused import _FusedModule

    for name, child in list(module.named_children()):
        if not isinstance(child, _FusedModule):  # (a fused module converts as one)
            _convert(child, mapping, use_precomputed_fake_quant)
        if getattr(child, "qconfig", None) is None:
            continue
        kind = type(child)
        if kind in mapping:
            made = mapping[kind].from_float(
                child, use_precomputed_fake_quant=use_precomputed_fake_quant
            )
            for hook in child._forward_pre_hooks.values():
                if hook is not _observer_forward_pre_hook:
                    made.register_forward_pre_hook(hook)
            for hook in child._forward_hooks.values():
                if hook is not _observer_forward_hook:
                    made.register_forward_hook(hook)
            setattr(module, name, made)
        elif kind.__name__ in _UNCONVERTIBLE and _ours(kind):
            raise NotImplementedInChainrule(
                f"torch.ao.quantization.convert of {kind.__name__} ({name}): chainrule's static "
                "quantized modules are Quantize, DeQuantize, Linear, Conv2d, LinearReLU, "
                "ConvReLU2d, QFunctional, ReLU6 and Dropout (with nn.ReLU, nn.MaxPool2d, "
                "global average pooling, mean and flatten running on quantized tensors); "
                "the others are not implemented"
            )


def convert(
    module: Any,
    mapping: dict | None = None,
    inplace: bool = False,
    remove_qconfig: bool = True,
    is_reference: bool = False,
    convert_custom_config_dict: Any = None,
    use_precomputed_fake_quant: bool = False,
) -> Any:
    """The observed (or QAT) model with its QuantStubs, DeQuantStubs and linear layers
    replaced by statically quantized ones (``Quantize``, ``DeQuantize``, ``QuantizedLinear``
    with the scales and zero points their observers chose). Other modules PyTorch would
    convert (convolutions, norms ...) raise: chainrule has no quantized kernels for them."""
    warnings.warn(DEPRECATED, DeprecationWarning, stacklevel=2)
    if is_reference:
        raise NotImplementedInChainrule(
            "convert(is_reference=True) (reference quantized modules) is not implemented in "
            "chainrule"
        )
    if not inplace:
        module = copy.deepcopy(module)
    _convert(module, _static_mapping() if mapping is None else mapping, use_precomputed_fake_quant)
    if remove_qconfig:
        _remove_qconfig(module)
    return module


def quantize(
    model: Any, run_fn: Any, run_args: Any, mapping: dict | None = None, inplace: bool = False
) -> Any:
    """Post-training static quantization in one call: prepare, ``run_fn(model, *run_args)``
    to calibrate, convert."""
    warnings.warn(DEPRECATED, DeprecationWarning, stacklevel=2)
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    _prepare(model, True, None, None)
    run_fn(model, *run_args)
    _convert(model, _static_mapping() if mapping is None else mapping, False)
    _remove_qconfig(model)
    return model


def quantize_qat(model: Any, run_fn: Any, run_args: Any, inplace: bool = False) -> Any:
    """Quantization-aware training in one call: prepare_qat, ``run_fn(model, *run_args)``
    to train, convert."""
    warnings.warn(DEPRECATED, DeprecationWarning, stacklevel=2)
    if not inplace:
        model = copy.deepcopy(model)
    model.train()
    mapping = _qat_mapping()
    propagate_qconfig_(model, None)
    _swap_with_hooks(model, mapping)
    _prepare(model, True, None, set(mapping.values()))
    run_fn(model, *run_args)
    _convert(model, _static_mapping(), False)
    _remove_qconfig(model)
    return model
