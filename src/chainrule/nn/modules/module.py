"""``nn.Module``: the base class of every layer and model.

A Module keeps its state in three ordered dicts, filled by attribute assignment:
``_parameters`` (each a :class:`~chainrule.nn.Parameter`), ``_buffers`` (tensors that are
state but not parameters, such as running means) and ``_modules`` (its submodules). On
them are built iteration (``named_parameters`` ...), conversion (``to``, ``double``),
``state_dict``/``load_state_dict``, ``train``/``eval`` and the printed tree. Calling a
module runs ``forward`` between its hooks (``_hooks.py``).

The behaviour, names and error messages are PyTorch's (``torch/nn/modules/module.py``).
"""

from __future__ import annotations

import inspect
import types
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from ..._tensor import Tensor, device
from ...autograd.anomaly_mode import _anomaly
from ...autograd.grad_mode import no_grad
from ...utils.hooks import RemovableHandle
from ..parameter import Buffer, Parameter
from . import _hooks, _scope
from ._hooks import (  # noqa: F401 (the global hook dicts: torch.nn.modules.module has them)
    _global_backward_hooks,
    _global_backward_pre_hooks,
    _global_buffer_registration_hooks,
    _global_forward_hooks,
    _global_forward_hooks_always_called,
    _global_forward_hooks_with_kwargs,
    _global_forward_pre_hooks,
    _global_module_registration_hooks,
    _global_parameter_registration_hooks,
    _WrappedHook,
    register_module_backward_hook,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)

__all__ = [
    "Module",
    "register_module_buffer_registration_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_backward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_full_backward_hook",
]

T = TypeVar("T", bound="Module")

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it missed and the keys it did not expect."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s: str, num_spaces: int) -> str:
    """Indent every line but the first by ``num_spaces`` (blank lines stay empty)."""
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    rest = [(num_spaces * " ") + line if line.strip() else "" for line in lines]
    return first + "\n" + "\n".join(rest)


def typename(obj: Any) -> str:
    """PyTorch's ``torch.typename``: ``torch.FloatTensor`` for a tensor, else the qualified
    name of the type (chainrule's own classes named under ``torch``, as PyTorch names them)."""
    if isinstance(obj, Tensor):
        return obj._dtype.legacy_type
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    if module == "chainrule" or module.startswith("chainrule."):
        module = "torch" + module[len("chainrule") :]
    return f"{module}.{qualname}"


def class_repr(cls: type) -> str:
    """``str(cls)`` as PyTorch's messages show it: chainrule's classes under ``torch``."""
    module = cls.__module__
    if module == "builtins":
        return f"<class '{cls.__qualname__}'>"
    if module == "chainrule" or module.startswith("chainrule."):
        module = "torch" + module[len("chainrule") :]
    return f"<class '{module}.{cls.__qualname__}'>"


def _forward_unimplemented(self: Module, *input: Any) -> Any:
    """The computation of a call: every subclass defines it (call the module, not this)."""
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function'
    )


def _renamed_init(init: Callable[..., None], cls: type) -> Callable[..., None]:
    """A copy of ``init`` named ``cls.__init__`` (the name a wrong call's TypeError shows)."""
    copy = types.FunctionType(
        init.__code__, init.__globals__, init.__name__, init.__defaults__, init.__closure__
    )
    copy.__kwdefaults__ = init.__kwdefaults__
    copy.__doc__ = init.__doc__
    copy.__annotations__ = init.__annotations__
    copy.__module__ = cls.__module__
    copy.__qualname__ = f"{cls.__qualname__}.__init__"
    return copy


def _parse_to(*args: Any, **kwargs: Any) -> tuple[Any, Any, bool]:
    """``Module.to``'s arguments as (device, dtype, non_blocking): ``to(device, dtype)``,
    ``to(dtype)`` or ``to(tensor)``, positionally or by keyword."""
    from ... import _dtypes
    from ..._dtypes import dtype as DType

    dev = kwargs.pop("device", None)
    dt = kwargs.pop("dtype", None)
    non_blocking = bool(kwargs.pop("non_blocking", False))
    kwargs.pop("memory_format", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments: {sorted(kwargs)}")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        first = rest.pop(0)
        dev, dt = first.device, first.dtype
    elif rest and isinstance(rest[0], DType):
        dt = rest.pop(0)
    elif rest and (rest[0] is None or isinstance(rest[0], (str, int, device))):
        dev = rest.pop(0)
        if rest and (rest[0] is None or isinstance(rest[0], DType)):
            dt = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest:
        raise TypeError(f"to() received an invalid combination of arguments: {tuple(args)}")
    if dev is not None:
        dev = device(dev)
    if dt is not None:
        dt = _dtypes.to_dtype(dt)
    return dev, dt, non_blocking


class Module:
    """Base class of all neural network modules: subclass it, assign parameters and
    submodules in ``__init__`` (after ``super().__init__()``) and define ``forward``."""

    dump_patches: bool = False
    _version: int = 1
    training: bool
    call_super_init: bool = False
    forward: Callable[..., Any] = _forward_unimplemented

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A family base that sets ``_init_per_subclass`` shares its __init__ among layers
        # that each have their own in PyTorch: give each layer a copy under its own name,
        # so that a wrong argument's TypeError names the layer, as PyTorch's does.
        if "__init__" not in cls.__dict__:
            init = cls.__init__
            owner = init.__qualname__.rpartition(".")[0]
            for base in cls.__mro__[1:]:
                if base.__qualname__ == owner:
                    if base.__dict__.get("_init_per_subclass", False):
                        cls.__init__ = _renamed_init(init, cls)  # type: ignore[method-assign]
                    break

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if self.call_super_init is False and kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if self.call_super_init is False and args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_backward_pre_hooks", OrderedDict())
        setattr_("_backward_hooks", OrderedDict())
        setattr_("_is_full_backward_hook", None)
        setattr_("_forward_hooks", OrderedDict())
        setattr_("_forward_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks_always_called", OrderedDict())
        setattr_("_forward_pre_hooks", OrderedDict())
        setattr_("_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_("_state_dict_hooks", OrderedDict())
        setattr_("_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_post_hooks", OrderedDict())
        setattr_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    # ----- registration ------------------------------------------------------------

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer: state saved in ``state_dict`` (unless not ``persistent``) that is
        not a parameter."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        for hook in _global_buffer_registration_hooks.values():
            output = hook(self, name, tensor)
            if output is not None:
                tensor = output
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter, reachable as the attribute ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param.grad_fn:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        for hook in _global_parameter_registration_hooks.values():
            output = hook(self, name, param)
            if output is not None:
                param = output
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a submodule, reachable as the attribute ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            output = hook(self, name, module)
            if output is not None:
                module = output
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias of :meth:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` (``''``: self)."""
        if target == "":
            return self
        mod: Module = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Set the submodule at the dotted path ``target`` (``strict``: it must exist)."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`" + "module" + f"` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]):
            mod = getattr(parent, atoms[-1])
            if not isinstance(mod, Module):
                raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target``."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target``."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    def get_extra_state(self) -> Any:
        """The extra state ``state_dict`` saves (define it, and ``set_extra_state``, in a
        subclass that has some)."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
            "to report this bug."
        )

    def set_extra_state(self, state: Any) -> None:
        """Load the extra state that ``get_extra_state`` gave."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
            "to report this bug."
        )

    # ----- attributes: parameters, buffers and submodules by name ----------------------

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        if "_parameters" in d:
            params = d["_parameters"]
            if name in params:
                return params[name]
        if "_buffers" in d:
            buffers = d["_buffers"]
            if name in buffers:
                return buffers[name]
        if "_modules" in d:
            modules = d["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__

        def remove_from(*dicts_or_sets: Any) -> None:
            for c in dicts_or_sets:
                if name in c:
                    if isinstance(c, dict):
                        del c[name]
                    else:
                        c.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            for hook in _global_module_registration_hooks.values():
                output = hook(self, name, value)
                if output is not None:
                    value = output
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            for hook in _global_module_registration_hooks.values():
                output = hook(self, name, value)
                if output is not None:
                    value = output
            modules[name] = value
            return
        buffers = d.get("_buffers")
        # (a Buffer is a flagged Tensor: its isinstance check runs in Python, so after Tensor's)
        is_buffer = isinstance(value, Tensor) and isinstance(value, Buffer)
        if is_buffer or buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            if is_buffer:
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self._register_buffer_by_assignment(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def _register_buffer_by_assignment(self, name: str, value: Any, persistent: bool) -> None:
        """``register_buffer``, also for a subclass whose own ``register_buffer`` does not
        take ``persistent`` (then the buffer must be persistent)."""
        if getattr(self.register_buffer, "__func__", None) is Module.register_buffer:
            self.register_buffer(name, value, persistent)
        elif "persistent" in inspect.signature(self.register_buffer).parameters:
            self.register_buffer(name, value, persistent)
        elif not persistent:
            raise RuntimeError(
                "Registering a non-persistent buffer on a Module subclass that implements "
                "register_buffer() without the persistent argument is not allowed."
            )
        else:
            self.register_buffer(name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self) -> list[str]:
        keys = [
            *dir(self.__class__),
            *self.__dict__,
            *self._parameters,
            *self._modules,
            *self._buffers,
        ]
        return sorted(key for key in keys if not key[0].isdigit())

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        # modules pickled before these attributes existed
        for name in (
            "_forward_pre_hooks",
            "_forward_pre_hooks_with_kwargs",
            "_forward_hooks_with_kwargs",
            "_forward_hooks_always_called",
            "_state_dict_hooks",
            "_state_dict_pre_hooks",
            "_load_state_dict_pre_hooks",
            "_load_state_dict_post_hooks",
            "_backward_pre_hooks",
        ):
            if name not in self.__dict__:
                self.__dict__[name] = OrderedDict()
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    # ----- iteration -----------------------------------------------------------------

    def _named_members(
        self,
        get_members: Callable[[Module], Any],
        prefix: str = "",
        recurse: bool = True,
        remove_duplicate: bool = True,
    ) -> Iterator[tuple[str, Any]]:
        """(dotted name, member) for the members of self (and of its submodules), each
        object once unless ``remove_duplicate`` is False."""
        memo: set = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters of self and (``recurse``) of its submodules, each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) pairs, in registration order, depth first."""
        yield from self._named_members(
            lambda module: module._parameters.items(),
            prefix=prefix,
            recurse=recurse,
            remove_duplicate=remove_duplicate,
        )

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The buffers of self and (``recurse``) of its submodules, each once."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, buffer) pairs, in registration order, depth first."""
        yield from self._named_members(
            lambda module: module._buffers.items(),
            prefix=prefix,
            recurse=recurse,
            remove_duplicate=remove_duplicate,
        )

    def children(self) -> Iterator[Module]:
        """The direct submodules, each once."""
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """(name, submodule) for the direct submodules, each module once."""
        memo: set = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        """Self and every module below it, depth first."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """(dotted name, module) for self (``prefix``) and every module below it; a module
        in ``memo`` (shared through the recursion) is skipped."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    # ----- modes and gradients ----------------------------------------------------------

    def train(self: T, mode: bool = True) -> T:
        """Set training mode (``mode=False``: evaluation) on self and every submodule."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self: T) -> T:
        """Evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self: T, requires_grad: bool = True) -> T:
        """Set ``requires_grad`` on every parameter (freeze a part with False)."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter: to None, or (``set_to_none=False``) to
        zeros in place."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    # ----- conversion --------------------------------------------------------------------

    def _apply(self: T, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> T:
        """Replace every parameter's and buffer's value by ``fn`` of it (and each gradient by
        ``fn`` of it). Parameters stay the same objects: their ``.data`` is set, as PyTorch
        does for CPU tensors."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            grad = param._grad
            if applied is not param:
                param.data = applied
            if grad is not None:
                with no_grad():
                    grad_applied = fn(grad)
                if grad_applied is not grad:
                    grad.data = grad_applied
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self: T, fn: Callable[[Module], None]) -> T:
        """Call ``fn`` on every submodule (children first), then on self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self: T, *args: Any, **kwargs: Any) -> T:
        """Cast the floating parameters and buffers to a floating dtype (``to(dtype)``,
        ``to(tensor)``, ``to(device, dtype)``); the only device is the CPU. With
        ``memory_format=``, the 4-D and 5-D ones are also laid out in that format."""
        layout = kwargs.get("memory_format")
        dev, dt, _ = _parse_to(*args, **kwargs)
        if dt is not None and not (dt.is_floating_point or dt.is_complex):
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dt}"
            )
        if dt is not None and dt.is_complex:
            warnings.warn(
                "Complex modules are a new feature under active development whose design may "
                "change, and some modules might not work as expected when using complex tensors "
                "as parameters or buffers. Please file an issue at "
                "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml if a "
                "complex module does not work as expected.",
                stacklevel=2,
            )

        def convert(t: Tensor) -> Tensor:
            cast = dt if t.is_floating_point() or t.is_complex() else None
            if layout is not None and t.dim() in (4, 5):
                return t.to(dev, cast, memory_format=layout)
            return t.to(dev, cast)

        return self._apply(convert)

    def cpu(self: T) -> T:
        return self._apply(lambda t: t.cpu())

    def cuda(self: T, device: Any = None) -> T:
        """chainrule runs on the CPU only: a module with tensors raises Tensor.cuda's error."""
        return self._apply(lambda t: t.cuda(device))

    def ipu(self: T, device: Any = None) -> T:
        """Move to an IPU: chainrule runs on the CPU only (Tensor.ipu's error, if any tensor)."""
        return self._apply(lambda t: t.ipu(device))

    def xpu(self: T, device: Any = None) -> T:
        """Move to an XPU: chainrule runs on the CPU only (Tensor.xpu's error, if any tensor)."""
        return self._apply(lambda t: t.xpu(device))

    def mtia(self: T, device: Any = None) -> T:
        """Move to an MTIA: chainrule runs on the CPU only (Tensor.mtia's error, if any)."""
        return self._apply(lambda t: t.mtia(device))

    def type(self: T, dst_type: Any) -> T:
        """Cast every parameter and buffer to ``dst_type`` (a dtype or a type name)."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self: T) -> T:
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self: T) -> T:
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self: T) -> T:
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self: T) -> T:
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self: T, *, device: Any, recurse: bool = True) -> T:
        """Replace every parameter and buffer by an uninitialised one of its shape."""
        from ..._creation import empty_like

        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def share_memory(self: T) -> T:
        """Move every parameter, buffer and gradient into memory shared between processes
        (``Tensor.share_memory_``): processes forked after, or spawned with the module,
        train the same weights (Hogwild)."""
        return self._apply(lambda t: t.share_memory_())

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Compile this module's calls in place (``torch.compile``'s arguments, checked):
        chainrule runs compiled code eagerly (``chainrule.compiler``), so calls go on as
        before."""
        from ... import compiler

        compiler.compile(self.forward, *args, **kwargs)

    # ----- hooks ---------------------------------------------------------------------

    def register_forward_pre_hook(
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """``hook(module, args)`` (``with_kwargs``: ``hook(module, args, kwargs)``) runs
        before ``forward``; it may return new args (and kwargs)."""
        handle = RemovableHandle(
            self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs
        )
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(
        self,
        hook: Callable[..., Any],
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """``hook(module, args, output)`` (``with_kwargs``: ``hook(module, args, kwargs,
        output)``) runs after ``forward``; it may return a new output. ``always_call``:
        it also runs when forward raises."""
        handle = RemovableHandle(
            self._forward_hooks,
            extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called],
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """``hook(module, grad_output)`` runs when the gradients of the outputs are known;
        it may return new ones."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` runs when the gradients of the inputs
        are known (grad_input: one per positional argument, None for non-tensors); it may
        return new grad_input."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(_hooks._MIXED_BACKWARD_HOOKS)
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Deprecated: a hook on the node that made the output (use the full hook)."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(_hooks._MIXED_BACKWARD_HOOKS)
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def _get_backward_hooks(self) -> tuple[list, list]:
        return _hooks.backward_hooks(self)

    def _get_backward_pre_hooks(self) -> list:
        return [*_hooks._global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    def _register_state_dict_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict``; a
        result replaces the state dict (of the root module only)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook that was "
                "previously registered via register_state_dict_post_hook"
            )
        return RemovableHandle(self._state_dict_hooks, hook)

    def register_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict``; it
        may change the dict in place and must return None."""
        hook._from_public_api = True  # type: ignore[attr-defined]
        return RemovableHandle(self._state_dict_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, prefix, keep_vars)`` before ``state_dict``."""
        return RemovableHandle(self._state_dict_pre_hooks, hook)

    def _register_load_state_dict_pre_hook(
        self, hook: Callable[..., Any], with_module: bool = False
    ) -> RemovableHandle:
        return RemovableHandle(
            self._load_state_dict_pre_hooks, _WrappedHook(hook, self if with_module else None)
        )

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module's part of ``load_state_dict``."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, incompatible_keys)`` after ``load_state_dict``; it may edit the
        key lists in place and must return None."""
        return RemovableHandle(self._load_state_dict_post_hooks, hook)

    # ----- calling ------------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _anomaly.record:  # nodes remember where they were made: also in which module
            return _scope.recorded_call(self, args, kwargs)
        if not (
            self._forward_hooks
            or self._forward_pre_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
            or _hooks.has_global_hooks()
        ):
            return self.forward(*args, **kwargs)
        return _hooks.call_with_hooks(self, args, kwargs)

    _call_impl = __call__

    # ----- state dict ------------------------------------------------------------------

    T_destination = TypeVar("T_destination", bound=dict[str, Any])

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        """Put this module's own parameters and persistent buffers (detached unless
        ``keep_vars``) into ``destination``, and its extra state if it has one."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(
        self,
        *args: Any,
        destination: dict | None = None,
        prefix: str = "",
        keep_vars: bool = False,
    ) -> dict[str, Any]:
        """The parameters and persistent buffers of self and every submodule, by dotted
        name, in an OrderedDict whose ``_metadata`` holds each module's ``version``."""
        from ._state_dict import state_dict

        return state_dict(self, args, destination, prefix, keep_vars)

    def _load_from_state_dict(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
    ) -> None:
        """Copy this module's own entries of ``state_dict`` into its parameters and buffers
        (not its submodules'); report missing and unexpected keys and errors in the lists."""
        from ._state_dict import load_from_state_dict

        load_from_state_dict(
            self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
            error_msgs,
        )  # fmt: skip

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        """Copy the parameters and buffers of ``state_dict`` into self and its submodules
        (``assign``: take the dict's tensors themselves). With ``strict``, missing or
        unexpected keys are an error; returns them as ``(missing_keys, unexpected_keys)``."""
        from ._state_dict import load_state_dict

        return load_state_dict(self, state_dict, strict, assign)

    # ----- printing ------------------------------------------------------------------

    def _get_name(self) -> str:
        return self.__class__.__name__

    def extra_repr(self) -> str:
        """What the module prints inside its parentheses (a subclass's own settings)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            "(" + key + "): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
