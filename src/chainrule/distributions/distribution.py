"""``Distribution``: what every distribution has (batch and event shapes, sampling, the
log density, moments), and the checks of parameters and values PyTorch makes when
``validate_args`` is on (the default)."""

from __future__ import annotations

import warnings
from typing import Any

from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


def _size(shape: Any = ()) -> Any:
    from .._tensor import Size

    return shape if isinstance(shape, Size) else Size(shape)


class Distribution:
    """The base class: a batch of distributions of the same family, each over events of
    ``event_shape``. Subclasses set ``arg_constraints`` and ``support`` and define what
    they can (``rsample`` for reparameterized samples, ``log_prob``, ``entropy``, ...)."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = True  # (PyTorch's default under __debug__)

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn the checks of parameters and values on or off for every distribution."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Any = (), event_shape: Any = (), validate_args: Any = None):
        self._batch_shape = _size(batch_shape)
        self._event_shape = _size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if not self._validate_args:
            return
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(
                f"{self.__class__} does not define `arg_constraints`. Please set "
                "`arg_constraints = {}` or initialize the distribution with "
                "`validate_args=False` to turn off validation.",
                stacklevel=2,
            )
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue  # (a constraint that depends on other parameters: not checked)
            if param not in self.__dict__ and isinstance(
                getattr(type(self), param, None), lazy_property
            ):
                continue  # (computed from the other parameterization when first read)
            value = getattr(self, param)
            if not constraint.check(value).all():
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                    f"constraint {constraint!r}, but found invalid values:\n{value}"
                )

    @property
    def batch_shape(self) -> Any:
        return self._batch_shape

    @property
    def event_shape(self) -> Any:
        return self._event_shape

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        raise NotImplementedError

    @property
    def support(self) -> constraints.Constraint:
        raise NotImplementedError

    @property
    def mean(self) -> Any:
        raise NotImplementedError

    @property
    def mode(self) -> Any:
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self) -> Any:
        raise NotImplementedError

    @property
    def stddev(self) -> Any:
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = ()) -> Any:
        """A sample of shape ``sample_shape + batch_shape + event_shape``, not recorded."""
        from .. import no_grad

        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Any:
        raise NotImplementedError

    def sample_n(self, n: int) -> Any:
        warnings.warn(
            "sample_n will be deprecated. Use .sample((n,)) instead", UserWarning, stacklevel=2
        )
        return self.sample((n,))

    def log_prob(self, value: Any) -> Any:
        raise NotImplementedError

    def cdf(self, value: Any) -> Any:
        raise NotImplementedError

    def icdf(self, value: Any) -> Any:
        raise NotImplementedError

    def entropy(self) -> Any:
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Any:
        """Every value of the support, along a new leading dim (families with a finite
        support only)."""
        raise NotImplementedError

    def perplexity(self) -> Any:
        return self.entropy().exp()

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """The same distributions broadcast to the batch shape ``batch_shape`` (no copy: the
        parameters become expanded views, so gradients flow back to the originals).

        Every tensor attribute whose leading dims are the batch shape is expanded to
        ``batch_shape`` + its trailing dims, every sub-distribution (a base, the components
        of a mixture) likewise by its batch shape; other attributes are shared. A family
        that keeps something else overrides this. A batch shape the parameters cannot be
        expanded to raises PyTorch's error of ``Tensor.expand``."""
        from .._tensor import Tensor

        new_batch = _size(batch_shape)
        old_batch = tuple(self._batch_shape)
        n = len(old_batch)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        expanded: dict = {}  # (one attribute under two names stays one: Bernoulli's _param)
        for name, value in self.__dict__.items():
            if id(value) in expanded:
                value = expanded[id(value)]
            elif isinstance(value, Tensor) and tuple(value.shape[:n]) == old_batch:
                value = expanded.setdefault(
                    id(value), value.expand(tuple(new_batch) + tuple(value.shape[n:]))
                )
            elif isinstance(value, Distribution) and tuple(value.batch_shape[:n]) == old_batch:
                value = expanded.setdefault(
                    id(value), value.expand(tuple(new_batch) + tuple(value.batch_shape[n:]))
                )
            new.__dict__[name] = value
        Distribution.__init__(new, new_batch, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        """The object a subclass's ``expand`` fills: ``_instance``, else a bare instance of
        ``type(self)``; a subclass of ``cls`` with its own ``__init__`` must define its own
        ``expand`` (PyTorch's rule and error)."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def _extended_shape(self, sample_shape: Any = ()) -> Any:
        return _size(
            tuple(_size(sample_shape)) + tuple(self._batch_shape) + tuple(self._event_shape)
        )

    def _validate_sample(self, value: Any) -> None:
        """PyTorch's checks of a value given to ``log_prob``: a tensor whose rightmost dims
        are the event's, broadcastable with the batch, within the support."""
        from .._tensor import Tensor

        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        start = value.dim() - len(self._event_shape)
        if tuple(value.shape[start:]) != tuple(self._event_shape):
            raise ValueError(
                "The right-most size of value must match event_shape: "
                f"{value.size()} vs {self._event_shape}."
            )
        actual = value.size()
        expected = _size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    "Value is not broadcastable with batch_shape+event_shape: "
                    f"{actual} vs {expected}."
                )
        support = self.support
        if not support.check(value).all():
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}"
            )

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        parts = []
        for p in names:
            v = self.__dict__[p]
            parts.append(f"{p}: {v if v.numel() == 1 else v.size()}")
        return f"{type(self).__name__}({', '.join(parts)})"


class _LocationScale(Distribution):
    """A family of a real location ``loc`` and a positive ``scale``, broadcast together
    (Normal, Laplace): its shapes, checks, mean and mode."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        from .utils import broadcast_all

        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    @property
    def mean(self) -> Any:
        return self.loc

    @property
    def mode(self) -> Any:
        return self.loc
