"""From unconstrained reals to a constraint (PyTorch's
``torch.distributions.constraint_registry``): ``biject_to(c)`` gives a bijection onto
``c`` (for samplers that move in R^n, such as HMC), ``transform_to(c)`` a transform onto
``c`` that may not be injective but suits optimization. Each looks up a factory by the
constraint's class; ``register`` adds one.

    constraint    biject_to                      transform_to
    real          identity                       identity
    independent   IndependentTransform(base's)   IndependentTransform(base's)
    (0, ∞), [0, ∞), (a, ∞), [a, ∞)
                  exp, then x + a                exp, then x + a
    (-∞, b)       exp, then b - x                exp, then b - x
    [a, b], [a, b)
                  sigmoid (then a + (b - a) x unless a = 0 and b = 1)
    simplex       StickBreakingTransform         SoftmaxTransform
    lower_cholesky              -                LowerCholeskyTransform
    positive (semi)definite     -                PositiveDefiniteTransform
    corr_cholesky CorrCholeskyTransform          CorrCholeskyTransform
    cat, stack    Cat/StackTransform of the parts' transforms

(``positive`` and ``nonnegative`` share their class with ``greater_than`` and
``greater_than_eq``, so they get exp then x + 0, as in PyTorch.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A table from constraint classes to factories ``factory(constraint) -> Transform``."""

    def __init__(self) -> None:
        self._registry: dict[type, Callable] = {}

    def register(self, constraint: Any, factory: Callable | None = None) -> Any:
        """Register ``factory`` for the class of ``constraint`` (a Constraint subclass or
        an instance of one); without ``factory``, a decorator that does so."""
        if factory is None:
            return lambda f: self.register(constraint, f)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError(
                "Expected constraint to be either a Constraint subclass or instance, "
                f"but got {constraint}"
            )
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint: Any) -> transforms.Transform:
        """The transform from unconstrained space onto ``constraint``."""
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints"
            ) from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _both(constraint: Any) -> Callable[[Callable], Callable]:
    """Register the decorated factory in both registries."""

    def decorator(factory: Callable) -> Callable:
        biject_to.register(constraint, factory)
        transform_to.register(constraint, factory)
        return factory

    return decorator


@_both(constraints.real)
def _to_real(constraint: Any) -> transforms.Transform:
    return transforms.identity_transform


@biject_to.register(constraints.independent)
def _biject_to_independent(constraint: Any) -> transforms.Transform:
    return transforms.IndependentTransform(
        biject_to(constraint.base_constraint), constraint.reinterpreted_batch_ndims
    )


@transform_to.register(constraints.independent)
def _transform_to_independent(constraint: Any) -> transforms.Transform:
    return transforms.IndependentTransform(
        transform_to(constraint.base_constraint), constraint.reinterpreted_batch_ndims
    )


@_both(constraints.greater_than)
@_both(constraints.greater_than_eq)
def _to_greater_than(constraint: Any) -> transforms.Transform:
    """y = a + e^x"""
    return transforms.ComposeTransform(
        [transforms.ExpTransform(), transforms.AffineTransform(constraint.lower_bound, 1)]
    )


@_both(constraints.less_than)
def _to_less_than(constraint: Any) -> transforms.Transform:
    """y = b - e^x"""
    return transforms.ComposeTransform(
        [transforms.ExpTransform(), transforms.AffineTransform(constraint.upper_bound, -1)]
    )


@_both(constraints.interval)
@_both(constraints.half_open_interval)
def _to_interval(constraint: Any) -> transforms.Transform:
    """y = a + (b - a) σ(x)"""
    low, high = constraint.lower_bound, constraint.upper_bound
    number = (int, float)
    if isinstance(low, number) and low == 0 and isinstance(high, number) and high == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform(
        [transforms.SigmoidTransform(), transforms.AffineTransform(low, high - low)]
    )


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint: Any) -> transforms.Transform:
    return transforms.StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint: Any) -> transforms.Transform:
    return transforms.SoftmaxTransform()


@transform_to.register(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint: Any) -> transforms.Transform:
    return transforms.LowerCholeskyTransform()


@transform_to.register(constraints.positive_definite)
@transform_to.register(constraints.positive_semidefinite)
def _transform_to_positive_definite(constraint: Any) -> transforms.Transform:
    return transforms.PositiveDefiniteTransform()


@_both(constraints.corr_cholesky)
def _to_corr_cholesky(constraint: Any) -> transforms.Transform:
    return transforms.CorrCholeskyTransform()


@biject_to.register(constraints.cat)
def _biject_to_cat(constraint: Any) -> transforms.Transform:
    parts = [biject_to(c) for c in constraint.cseq]
    return transforms.CatTransform(parts, constraint.dim, constraint.lengths)


@transform_to.register(constraints.cat)
def _transform_to_cat(constraint: Any) -> transforms.Transform:
    parts = [transform_to(c) for c in constraint.cseq]
    return transforms.CatTransform(parts, constraint.dim, constraint.lengths)


@biject_to.register(constraints.stack)
def _biject_to_stack(constraint: Any) -> transforms.Transform:
    return transforms.StackTransform([biject_to(c) for c in constraint.cseq], constraint.dim)


@transform_to.register(constraints.stack)
def _transform_to_stack(constraint: Any) -> transforms.Transform:
    return transforms.StackTransform([transform_to(c) for c in constraint.cseq], constraint.dim)
