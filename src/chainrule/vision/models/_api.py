"""The model registry and pretrained-weights descriptions: ``Weights`` (where a state
dict lives, its preprocessing and its facts), ``WeightsEnum`` (a model's weights),
``register_model`` and the look-ups ``get_model``, ``get_model_builder``,
``get_model_weights``, ``get_weight`` and ``list_models``."""

from __future__ import annotations

import fnmatch
import importlib
import inspect
import sys
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from functools import partial
from types import ModuleType
from typing import Any, TypeVar

from ... import nn

__all__ = [
    "Weights",
    "WeightsEnum",
    "get_model",
    "get_model_builder",
    "get_model_weights",
    "get_weight",
    "list_models",
]


@dataclass(eq=False)
class Weights:
    """One set of pretrained weights: the ``url`` of its state dict, the ``transforms``
    (a callable building the preprocessing the weights expect) and ``meta`` (categories,
    number of parameters, accuracy, recipe...)."""

    url: str
    transforms: Callable
    meta: dict[str, Any]

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, Weights):
            return NotImplemented
        if self.url != other.url or self.meta != other.meta:
            return False
        a, b = self.transforms, other.transforms
        if isinstance(a, partial) and isinstance(b, partial):
            return a.func == b.func and a.args == b.args and a.keywords == b.keywords
        return a == b


class WeightsEnum(Enum):
    """The pretrained weights of one model, one member per set (``DEFAULT`` names the best)."""

    @classmethod
    def verify(cls, obj: Any) -> Any:
        """``obj`` as a member of this enum (a member, its name, ``"<Enum>.<name>"`` or None)."""
        if obj is not None:
            if type(obj) is str:
                obj = cls[obj.replace(cls.__name__ + ".", "")]
            elif not isinstance(obj, cls):
                raise TypeError(
                    f"Invalid Weight class provided; expected {cls.__name__} "
                    f"but received {obj.__class__.__name__}."
                )
        return obj

    def get_state_dict(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The state dict, through ``hub.load_state_dict_from_url(self.url, ...)``."""
        from ...hub import load_state_dict_from_url

        return load_state_dict_from_url(self.url, *args, **kwargs)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}.{self._name_}"

    @property
    def url(self) -> str:
        return self.value.url

    @property
    def transforms(self) -> Callable:
        return self.value.transforms

    @property
    def meta(self) -> dict[str, Any]:
        return self.value.meta


M = TypeVar("M", bound=nn.Module)

BUILTIN_MODELS: dict[str, Callable[..., nn.Module]] = {}


def register_model(name: str | None = None) -> Callable[[Callable[..., M]], Callable[..., M]]:
    """A decorator adding a model builder to the registry under ``name`` (its own name
    by default)."""

    def wrapper(fn: Callable[..., M]) -> Callable[..., M]:
        key = name if name is not None else fn.__name__
        if key in BUILTIN_MODELS:
            raise ValueError(f"An entry is already registered under the name '{key}'.")
        BUILTIN_MODELS[key] = fn
        return fn

    return wrapper


def list_models(
    module: ModuleType | None = None,
    include: Iterable[str] | str | None = None,
    exclude: Iterable[str] | str | None = None,
) -> list[str]:
    """The sorted names of the registered models (those of ``module`` only if given),
    kept when matching an ``include`` pattern and dropped when matching an ``exclude`` one
    (Unix shell-style wildcards)."""
    names = {
        key
        for key, fn in BUILTIN_MODELS.items()
        if module is None or fn.__module__.rsplit(".", 1)[0] == module.__name__
    }
    if include:
        patterns = [include] if isinstance(include, str) else include
        names = {n for n in names if any(fnmatch.fnmatch(n, p) for p in patterns)}
    if exclude:
        patterns = [exclude] if isinstance(exclude, str) else exclude
        names = {n for n in names if not any(fnmatch.fnmatch(n, p) for p in patterns)}
    return sorted(names)


def get_model_builder(name: str) -> Callable[..., nn.Module]:
    """The builder function registered as ``name`` (case-insensitive)."""
    name = name.lower()
    try:
        return BUILTIN_MODELS[name]
    except KeyError:
        raise ValueError(f"Unknown model {name}") from None


def get_model(name: str, **config: Any) -> nn.Module:
    """The model registered as ``name``, built with ``config`` (``weights=...`` etc.)."""
    return get_model_builder(name)(**config)


def _get_enum_from_fn(fn: Callable) -> type[WeightsEnum]:
    # the WeightsEnum subclass in the annotation of the builder's ``weights`` parameter
    if "weights" not in inspect.signature(fn).parameters:
        raise ValueError("The method is missing the 'weights' argument.")
    annotation = typing.get_type_hints(fn).get("weights")
    for arg in typing.get_args(annotation) or (annotation,):
        if isinstance(arg, type) and issubclass(arg, WeightsEnum) and arg is not WeightsEnum:
            return arg
    raise ValueError(
        "The WeightsEnum class for the specific method couldn't be retrieved. "
        "Make sure the typing info is correct."
    )


def get_model_weights(name: Callable | str) -> type[WeightsEnum]:
    """The ``WeightsEnum`` of a model, given its builder or registered name."""
    model = get_model_builder(name) if isinstance(name, str) else name
    return _get_enum_from_fn(model)


def get_weight(name: str) -> WeightsEnum:
    """The weights member named ``"<EnumName>.<MEMBER>"`` (e.g.
    ``"ResNet50_Weights.IMAGENET1K_V2"``)."""
    try:
        enum_name, value_name = name.split(".")
    except ValueError:
        raise ValueError(f"Invalid weight name provided: '{name}'.") from None
    package = importlib.import_module(__name__.rsplit(".", 1)[0])
    candidates = [package] + [
        mod
        for key, mod in sorted(sys.modules.items())
        if key.startswith(package.__name__ + ".") and mod is not None
    ]
    for mod in candidates:
        found = mod.__dict__.get(enum_name)
        if isinstance(found, type) and issubclass(found, WeightsEnum):
            return found.verify(value_name)
    raise ValueError(
        f"The weight enum '{enum_name}' for the specific method couldn't be retrieved."
    )
