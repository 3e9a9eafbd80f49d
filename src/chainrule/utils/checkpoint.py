"""``chainrule.utils.checkpoint`` (PyTorch's ``torch.utils.checkpoint``): activation
checkpointing, memory traded for a second forward.

``checkpoint(fn, *args, use_reentrant=False)`` runs ``fn`` recording its graph as usual, but
under ``saved_tensors_hooks`` whose pack hook keeps only a small handle for each tensor the
region's nodes save (autograd/saved_hooks.py): the activations are freed once the forward
is done. The first time backward needs one of them, ``fn`` runs again on the same inputs
(the random state restored), with grad recording on and hooks that collect what its nodes
save, in order; each handle then gives back its tensor. The recomputation's own graph is
connected to the inputs, so derivatives of any order go through (``create_graph``).

``use_reentrant=True`` is PyTorch's older variant: a custom Function whose forward runs
``fn`` without recording and whose backward runs it again with recording and calls
``backward`` inside; it accumulates into the parameters' ``.grad`` and so refuses
``autograd.grad`` and ``backward(inputs=...)``, as PyTorch's does.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "CheckpointError",
    "check_backward_validity",
    "checkpoint",
    "checkpoint_sequential",
    "detach_variable",
    "noop_context_fn",
]


class CheckpointError(RuntimeError):
    """The recomputation saved other tensors than the forward did."""


def noop_context_fn() -> tuple:
    """The default ``context_fn``: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def _tensor_class() -> type:
    from .._tensor import Tensor

    return Tensor


def check_backward_validity(inputs: Iterable[Any]) -> None:
    """Warn when no input tensor requires grad: the checkpointed region gets no gradient."""
    Tensor = _tensor_class()
    if not any(x.requires_grad for x in inputs if isinstance(x, Tensor)):
        warnings.warn(
            "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2
        )


def detach_variable(inputs: tuple) -> tuple:
    """Each tensor detached, keeping its ``requires_grad``; other values as they are."""
    Tensor = _tensor_class()
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            "Only tuple of tensors is supported. Got Unsupported input type: ",
            type(inputs).__name__,
        )
    out = []
    for x in inputs:
        if not isinstance(x, Tensor):
            out.append(x)
            continue
        d = x.detach()
        d.requires_grad = x.requires_grad
        out.append(d)
    return tuple(out)


_USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
    "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
    "exception. use_reentrant=False is recommended, but if you need to preserve the current "
    "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
    "the differences between the two variants."
)

_DEBUG_TIP = (
    "\nTip: To see a more detailed error message, either pass `debug=True` to\n"
    "`torch.utils.checkpoint.checkpoint(...)` or wrap the code block\n"
    "with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to\n"
    "enable checkpoint‑debug mode globally.\n"
)


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = None,
    context_fn: Callable[[], tuple] = noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    early_stop: bool = True,
    **kwargs: Any,
) -> Any:
    """``function(*args, **kwargs)``, keeping none of the tensors its backward needs: they
    are recomputed by running ``function`` again when backward reaches the region.
    ``preserve_rng_state`` (default True) replays the random draws; ``context_fn`` gives
    the contexts of the forward and of the recomputation; ``determinism_check="default"``
    checks that the recomputation saved tensors of the same shapes, dtypes and devices
    (``"none"``: no check). ``debug`` and ``early_stop`` are accepted (the recomputation
    always runs the whole region)."""
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(
                "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
            )
        return _reentrant().apply(function, preserve, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(
            f"determinism_check should be one of ['default', 'none'], but got {determinism_check}"
        )
    return _Region(function, args, kwargs, preserve, context_fn, determinism_check).run()


def checkpoint_sequential(
    functions: Any, segments: int, input: Any, use_reentrant: bool | None = None, **kwargs: Any
) -> Any:  # noqa: A002
    """A sequence of functions (or an ``nn.Sequential``) run in ``segments`` chunks, every
    chunk but the last checkpointed."""
    from ..nn import Sequential

    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is recommended, but if you need to preserve "
            "the current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(start: int, end: int) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for j in range(start, end + 1):
                x = functions[j](x)
            return x

        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(  # noqa: A001
            run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve
        )
    return run(end + 1, len(functions) - 1)(input)


# ----- the variant on saved-tensor hooks ----------------------------------------------------


class _Handle:
    """What the forward's pack hook keeps for a saved tensor: its place in the order."""

    __slots__ = ("region", "index")

    def __init__(self, region: _Region, index: int) -> None:
        self.region, self.index = region, index


class _Region:
    """One checkpointed call: its function and inputs, the random state and the inputs'
    versions at the forward, the metadata of what its nodes saved, and, once recomputed,
    the tensors themselves."""

    def __init__(self, function, args, kwargs, preserve, context_fn, determinism_check) -> None:
        from .. import get_rng_state

        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng = get_rng_state() if preserve else None
        self.context_fn = context_fn
        self.check = determinism_check == "default"
        self.versions: list = []  # (each tensor input, its version at the forward)
        self.metadata: list = []
        self.recomputed: list | None = None

    def run(self) -> Any:
        from .._tensor import _counter
        from ..autograd.graph import saved_tensors_hooks

        Tensor = _tensor_class()
        # (every tensor input gets a version counter now: a later write is seen)
        self.versions = [(x, _counter(x)[0]) for x in self.args if isinstance(x, Tensor)]
        forward_context, self.recompute_context = self.context_fn()
        with saved_tensors_hooks(self._pack, _unpack), forward_context:
            return self.function(*self.args, **self.kwargs)

    def _pack(self, t: Any) -> _Handle:
        self.metadata.append(_metadata(t))
        return _Handle(self, len(self.metadata) - 1)

    def recompute(self) -> None:
        """Run the function again, with recording on, collecting what its nodes save."""
        from .. import enable_grad, get_rng_state, set_rng_state
        from ..autograd.graph import _modified_message, saved_tensors_hooks

        for x, version in self.versions:
            now = x._vc[0]
            if now != version:
                raise RuntimeError(_modified_message(None, x, now, version))
        saved: list = []

        def keep(t: Any) -> int:
            saved.append(t)
            return len(saved) - 1

        state = get_rng_state() if self.rng is not None else None
        try:
            if self.rng is not None:
                set_rng_state(self.rng)
            with saved_tensors_hooks(keep, saved.__getitem__), enable_grad():
                with self.recompute_context:
                    self.function(*self.args, **self.kwargs)
        finally:
            if state is not None:
                set_rng_state(state)
        if len(saved) != len(self.metadata):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.metadata)}\n"
                f"Number of tensors saved during recomputation: {len(saved)}.\n{_DEBUG_TIP}"
            )
        if self.check:
            lines = ""
            for i, (meta, t) in enumerate(zip(self.metadata, saved)):
                again = _metadata(t)
                if again != meta:
                    lines += (
                        f"tensor at position {i}:\nsaved metadata: {meta}\n"
                        f"recomputed metadata: {again}\n"
                    )
            if lines:
                raise CheckpointError(
                    "torch.utils.checkpoint: Recomputed values for the following tensors have "
                    f"different metadata than during the forward pass.\n{lines}.\n{_DEBUG_TIP}"
                )
        self.recomputed = saved


def _unpack(handle: _Handle) -> Any:
    region = handle.region
    if region.recomputed is None:
        region.recompute()
    return region.recomputed[handle.index]


def _metadata(t: Any) -> dict:
    return {"shape": t.shape, "dtype": t.dtype, "device": t.device}


# ----- the reentrant variant: a custom Function -------------------------------------------

_REENTRANT_MISUSE = (
    "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing "
    "an `inputs` parameter to .backward(). To resolve this error, you can either set "
    "use_reentrant=False, or call .backward() without passing the `inputs` argument."
)


def _reentrant() -> type:
    """``CheckpointFunction`` (made on first use: it needs autograd.Function)."""
    global _CheckpointFunction
    if _CheckpointFunction is not None:
        return _CheckpointFunction
    from .. import autograd, enable_grad, get_rng_state, no_grad, set_rng_state

    Tensor = _tensor_class()

    class CheckpointFunction(autograd.Function):
        @staticmethod
        def forward(ctx: Any, run_function: Callable, preserve_rng_state: bool, *args: Any):
            check_backward_validity(args)
            ctx.run_function = run_function
            ctx.preserve_rng_state = preserve_rng_state
            ctx.rng = get_rng_state() if preserve_rng_state else None
            ctx.inputs = [None if isinstance(x, Tensor) else x for x in args]
            ctx.tensor_places = [i for i, x in enumerate(args) if isinstance(x, Tensor)]
            ctx.save_for_backward(*[x for x in args if isinstance(x, Tensor)])
            with no_grad():
                return run_function(*args)

        @staticmethod
        def backward(ctx: Any, *grads: Any) -> tuple:
            if not autograd._is_checkpoint_valid():
                raise RuntimeError(_REENTRANT_MISUSE)
            inputs = list(ctx.inputs)
            for i, t in zip(ctx.tensor_places, ctx.saved_tensors):
                inputs[i] = t
            detached = detach_variable(tuple(inputs))
            state = get_rng_state() if ctx.rng is not None else None
            try:
                if ctx.rng is not None:
                    set_rng_state(ctx.rng)
                with enable_grad():
                    outputs = ctx.run_function(*detached)
            finally:
                if state is not None:
                    set_rng_state(state)
            if isinstance(outputs, Tensor):
                outputs = (outputs,)
            pairs = [
                (o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad
            ]
            if not pairs:
                raise RuntimeError(
                    "none of output has requires_grad=True, this checkpoint() is not necessary"
                )
            autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
            return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in detached)

    _CheckpointFunction = CheckpointFunction
    return CheckpointFunction


_CheckpointFunction: type | None = None
