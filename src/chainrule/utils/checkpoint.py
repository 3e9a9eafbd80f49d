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

Selective checkpointing (``context_fn=partial(create_selective_checkpoint_contexts,
policy)``) keeps the outputs of the ops a policy chooses and recomputes the rest. PyTorch
asks the policy about every aten op as it runs (a dispatch mode) and, when recomputing,
hands back the cached output instead of running a saved op. chainrule has no dispatcher
that every op call passes through (its ops compute on fast paths of their own), so the
selection works on the graph instead, at the saved-tensor hooks: when a node of the region
saves a tensor, the op that produced that tensor (its ``grad_fn``) is asked, once, and if
it is to be saved the tensor is kept as it was in the forward. Backward reads the cached
tensor, and every other saved tensor from the recomputation, which runs the function again
as PyTorch's does (the same number of calls). See ``create_selective_checkpoint_contexts``
for what this means in practice.

Also different from PyTorch: a region is recomputed at most once; later backward calls
through it (``retain_graph``) read the same recomputed tensors, where PyTorch recomputes
for each call unless the calls share a ``GraphExecGroup`` (chainrule's group raises no
error when two calls in it unpack the same tensor).
"""

from __future__ import annotations

import contextlib
import enum
import re
import traceback
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = [
    "CheckpointError",
    "CheckpointFunction",  # noqa: F822 - made on first use (module __getattr__)
    "CheckpointPolicy",
    "DefaultDeviceType",
    "GraphExecGroup",
    "SAC_IGNORED_OPS",
    "SelectiveCheckpointContext",
    "check_backward_validity",
    "checkpoint",
    "checkpoint_sequential",
    "create_selective_checkpoint_contexts",
    "detach_variable",
    "get_device_states",
    "noop_context_fn",
    "set_checkpoint_debug_enabled",
    "set_checkpoint_early_stop",
    "set_device_states",
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


# ----- global switches and the random state of devices --------------------------------------

_debug_enabled: bool | None = None  # set_checkpoint_debug_enabled; None: each call's ``debug``
_early_stop_enabled: bool | None = None  # set_checkpoint_early_stop; None: each call's


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None) -> Iterator[None]:
    """Context manager: inside it, every non-reentrant checkpoint runs as with ``debug=enabled``
    (``None``: as each call says)."""
    global _debug_enabled
    previous = _debug_enabled
    _debug_enabled = enabled
    try:
        yield
    finally:
        _debug_enabled = previous


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool) -> Iterator[None]:
    """Context manager: checkpoints whose forward runs inside it stop their recomputation as
    soon as it has given back every saved tensor (``True``), or run the whole function
    (``False``), whatever their ``early_stop`` says. Only the forward needs to be inside."""
    global _early_stop_enabled
    previous = _early_stop_enabled
    _early_stop_enabled = enable
    try:
        yield
    finally:
        _early_stop_enabled = previous


class DefaultDeviceType:
    """The device type whose random state checkpoint keeps when no input is on a device other
    than the CPU: the current accelerator's type, else ``"cpu"`` (chainrule has no
    accelerator of its own, so ``"cpu"`` unless set)."""

    _default_device_type: str | None = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        """Set the default device type."""
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        """The default device type."""
        if not DefaultDeviceType._default_device_type:
            from .. import accelerator

            current = accelerator.current_accelerator(True)
            DefaultDeviceType._default_device_type = current.type if current else "cpu"
        return DefaultDeviceType._default_device_type


def _flat_tensors(value: Any) -> Iterator[Any]:
    """The tensors in ``value``, nested in tuples, lists and dicts, in order."""
    Tensor = _tensor_class()
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _flat_tensors(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _flat_tensors(v)


def get_device_states(*args: Any) -> tuple[list[int], list[Any]]:
    """The indices of the devices (not CPU, not meta) the tensors in ``args`` are on, and
    each one's random state. chainrule draws every random number, on any device, from its
    one host generator, so each state is that generator's (``chainrule.get_rng_state()``)."""
    from .. import get_rng_state

    ids = [t.get_device() for t in _flat_tensors(args) if t.device.type not in ("cpu", "meta")]
    return ids, [get_rng_state() for _ in ids]


def set_device_states(devices: Iterable[int], states: Iterable[Any], *, device_type=None) -> None:
    """Give the devices back the random states ``get_device_states`` returned (chainrule:
    the host generator's, the last one given)."""
    from .. import set_rng_state

    if device_type is None:
        device_type = DefaultDeviceType.get_device_type()
    if device_type == "meta":
        return
    for _, state in zip(devices, states):
        set_rng_state(state)


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
    (``"none"``: no check). ``early_stop`` ends the recomputation once it has saved as many
    tensors as the forward did (``set_checkpoint_early_stop`` overrides it); ``debug`` (or
    ``set_checkpoint_debug_enabled``) logs what each run saved and adds both logs to a
    recomputation-mismatch error (chainrule logs saved tensors and their ops, PyTorch every
    operator: see ``_DEBUG_REPORT``)."""
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
    debug = _debug_enabled if _debug_enabled is not None else debug
    if debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in ("default", "none"):
        raise ValueError(
            f"determinism_check should be one of ['default', 'none'], but got {determinism_check}"
        )
    early_stop = _early_stop_enabled if _early_stop_enabled is not None else early_stop
    region = _Region(
        function, args, kwargs, preserve, context_fn, determinism_check, early_stop, debug
    )
    return region.run()


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


# ----- selective checkpointing: which ops' outputs are kept -----------------------------------


class CheckpointPolicy(enum.Enum):
    """What becomes of an op's output in a selectively checkpointed region: kept from the
    forward (``*_SAVE``) or recomputed in backward (``*_RECOMPUTE``). ``MUST`` and
    ``PREFER`` act alike here (a compiler may override a preference; chainrule has none).
    ``*_CPU_OFFLOAD`` are recomputed, as in PyTorch's eager mode."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


_SAVE = (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE)


class SelectiveCheckpointContext:
    """What a policy function is told besides the op: ``op_output``, the op's output in the
    forward, and ``is_recompute`` (always False: the policy is asked in the forward only)."""

    def __init__(self, *, is_recompute: bool, op_output: Any = None) -> None:
        self.is_recompute = is_recompute
        self.op_output = op_output


class CheckpointedOp:
    """An op as a policy sees it (PyTorch passes an aten overload such as
    ``torch.ops.aten.mm.default``; chainrule has no aten namespace). It is equal to
    its name in any of the spellings ``"mm"``, ``"aten.mm"``, ``"aten.mm.default"``,
    ``"aten::mm"``, ``"torch.mm"``, to the public function of that name (``chainrule.mm``,
    ``Tensor.mm``: anything whose ``__name__`` is the name), to a custom ``autograd.Function``
    class for that Function's nodes, and to another ``CheckpointedOp`` of the same name;
    ``fn`` is ``chainrule.<name>`` where there is one. The name is the one of the op that
    recorded the node (``chainrule.nn.functional.linear`` records ``matmul``: see
    ``grad_fn.name()``), so it follows chainrule's ops, not aten's decompositions."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def fn(self) -> Callable | None:
        import chainrule

        return getattr(chainrule, self.name, None)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CheckpointedOp):
            return other.name == self.name
        if isinstance(other, str):
            return _plain_name(other) == self.name
        if callable(other):
            return getattr(other, "__name__", None) == self.name
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"chainrule.ops.{self.name}"


# ops never cached: the copies checkpointing makes itself (a detached tensor has no node,
# so chainrule never asks about one; the entry is here for policies that read the set)
SAC_IGNORED_OPS = frozenset({CheckpointedOp("detach")})

_SPELLING = re.compile(r"^(?:aten(?:\.|::)|torch\.|chainrule\.)?([A-Za-z0-9_]+)")


def _plain_name(spelling: str) -> str:
    """``"aten.mul.Tensor"`` -> ``"mul"``: the op's name without namespace or overload."""
    match = _SPELLING.match(spelling)
    return match.group(1) if match else spelling


def _op_of(node: Any) -> CheckpointedOp:
    """The op that recorded ``node``: an op's own name, else the Function's class name."""
    op = getattr(node, "_op", None)
    name = getattr(op, "name", None)
    if not isinstance(name, str):
        name = re.sub(r"Backward\d*$", "", node.name())
    return CheckpointedOp(name)


def create_selective_checkpoint_contexts(
    policy_fn_or_list: Callable | list, allow_cache_entry_mutation: bool = False
) -> tuple:
    """The ``context_fn`` pair of selective checkpointing. ``policy_fn_or_list`` is a policy
    ``policy(ctx, op, *args, **kwargs) -> CheckpointPolicy`` (or a bool: True is MUST_SAVE,
    False PREFER_RECOMPUTE), or a list of ops (``CheckpointedOp`` spellings: names,
    chainrule functions, Function classes) whose outputs are saved, all others recomputed.
    A cached output written in place after it was cached makes backward raise, unless
    ``allow_cache_entry_mutation``.

    Differences from PyTorch, all from chainrule having no dispatcher (see the module's
    docstring): the policy is asked about an op only when a node of the region saves one
    of its outputs for backward, when that first happens (PyTorch asks about every op, right
    after it runs), with no ``args``/``kwargs`` (only ``op`` and ``ctx.op_output``); an op
    is one of chainrule's (``CheckpointedOp``), so policies name chainrule's ops; and a
    saved op still runs in the recomputation (its result is unused: backward reads the
    cached one), and the ops after it compute from their recomputed inputs, so a region
    whose recomputation differs from its forward (global state changed between them)
    differs from PyTorch beyond the cached tensors themselves. A tensor made before the
    region and used in it without being an argument (a closure's) counts as an output of
    the op that made it."""
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not (isinstance(op, (str, CheckpointedOp)) or callable(op)):
                raise ValueError(
                    f"Expected op in `op_list` to be an OpOverload but got: {op} "
                    f"of type {type(op)}. "
                )
        ops = list(policy_fn_or_list)

        def policy_fn(ctx: SelectiveCheckpointContext, op: CheckpointedOp, *args, **kwargs):
            if op in ops:
                return CheckpointPolicy.MUST_SAVE
            return CheckpointPolicy.PREFER_RECOMPUTE

    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    selection = _Selection(policy_fn, allow_cache_entry_mutation)
    return _SelectingForward(selection), _SelectingRecompute(selection)


class _Selection:
    """One region's policy, what it said about each op so far in the forward, and whether
    cached outputs may have been written since."""

    def __init__(self, policy: Callable, allow_mutation: bool) -> None:
        self.policy = policy
        self.allow_mutation = allow_mutation
        self.asked: dict = {}  # id(node) -> (node, its policy), during the forward
        self.outside: set = set()  # ids of the inputs' nodes: not ops of the region

    def cache(self, t: Any) -> _Cached | None:
        """``t`` kept as it is now if the op that made it is to be saved, else None."""
        node = t.grad_fn
        if node is None or id(node) in self.outside:
            return None
        known = self.asked.get(id(node))
        if known is None:
            op = _op_of(node)
            if op in SAC_IGNORED_OPS:
                return None
            ctx = SelectiveCheckpointContext(is_recompute=False, op_output=t)
            policy = self.policy(ctx, op)
            if isinstance(policy, bool):
                policy = CheckpointPolicy.MUST_SAVE if policy else CheckpointPolicy.PREFER_RECOMPUTE
            known = self.asked[id(node)] = (node, policy)
        return _Cached(t.detach()) if known[1] in _SAVE else None


class _Cached:
    """An op's output kept from the forward, and its version then; backward takes it once."""

    __slots__ = ("value", "version")

    def __init__(self, value: Any) -> None:
        self.value, self.version = value, value._version

    def take(self, allow_mutation: bool) -> Any:
        value = self.value
        if value is None:
            raise RuntimeError(
                "Trying to backward an extra time. You are only allowed to backward once on "
                "any region computed under selective activation checkpoint."
            )
        if not allow_mutation and value._version != self.version:
            raise RuntimeError(
                "Tensor cached during selective activation checkpoint has been mutated"
            )
        self.value = None
        return value


class _SelectingForward(contextlib.nullcontext):
    """The forward's context of a selective pair: the region reads its selection."""

    def __init__(self, selection: _Selection) -> None:
        super().__init__()
        self.selection = selection


class _SelectingRecompute(contextlib.nullcontext):
    """The recomputation's context of a selective pair (the region does the work)."""

    def __init__(self, selection: _Selection) -> None:
        super().__init__()
        self.selection = selection


class GraphExecGroup:
    """Context manager: the backward calls inside one group recompute each checkpointed region
    at most once. chainrule recomputes a region at most once whatever the grouping (later
    backward calls, with ``retain_graph``, read the same recomputed tensors, where PyTorch
    outside a group recomputes for each call), so a group changes nothing else here; groups
    do not nest, as in PyTorch."""

    _current: GraphExecGroup | None = None

    def __enter__(self) -> GraphExecGroup:
        if GraphExecGroup._current is not None:
            raise RuntimeError(
                "GraphExecGroup contexts cannot be nested. "
                f"Already inside group {GraphExecGroup._current}"
            )
        GraphExecGroup._current = self
        return self

    def __exit__(self, *args: object) -> None:
        GraphExecGroup._current = None


# ----- the variant on saved-tensor hooks ----------------------------------------------------


class _StopRecomputation(Exception):
    """Raised by the recomputation's pack hook once every saved tensor is back (early stop)."""


class _Handle:
    """What the forward's pack hook keeps for a saved tensor: its place in the order, and the
    tensor itself where selective checkpointing keeps it."""

    __slots__ = ("region", "index", "cached")

    def __init__(self, region: _Region, index: int, cached: _Cached | None) -> None:
        self.region, self.index, self.cached = region, index, cached


class _Region:
    """One checkpointed call: its function and inputs, the random state and the inputs'
    versions at the forward, the metadata of what its nodes saved, and, once recomputed,
    the tensors themselves."""

    def __init__(
        self, function, args, kwargs, preserve, context_fn, determinism_check, early_stop, debug
    ) -> None:
        from .. import get_rng_state

        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng = get_rng_state() if preserve else None
        self.context_fn = context_fn
        self.check = determinism_check == "default"
        self.early_stop = early_stop
        self.log: list | None = [] if debug else None  # debug: what the forward saved, where
        self.versions: list = []  # (each tensor input, its version at the forward)
        self.metadata: list = []
        self.selection: _Selection | None = None
        self.recomputed: list | None = None

    def run(self) -> Any:
        from .._tensor import _counter
        from ..autograd.graph import saved_tensors_hooks

        Tensor = _tensor_class()
        # (every tensor input gets a version counter now: a later write is seen)
        self.versions = [(x, _counter(x)[0]) for x in self.args if isinstance(x, Tensor)]
        forward_context, self.recompute_context = self.context_fn()
        if isinstance(forward_context, _SelectingForward):
            self.selection = forward_context.selection
            self.selection.outside = {id(x.grad_fn) for x, _ in self.versions if x.grad_fn}
        try:
            with saved_tensors_hooks(self._pack, _unpack), forward_context:
                return self.function(*self.args, **self.kwargs)
        finally:
            if self.selection is not None:
                self.selection.asked = {}  # (the forward's nodes are not held)

    def _pack(self, t: Any) -> _Handle:
        index = len(self.metadata)
        self.metadata.append(_metadata(t))
        if self.log is not None:
            self.log.append(_event(t))
        cached = self.selection.cache(t) if self.selection is not None else None
        return _Handle(self, index, cached)

    def recompute(self) -> None:
        """Run the function again, with recording on, collecting what its nodes save (until
        the last one the forward saved, with early stop)."""
        from .. import enable_grad, get_rng_state, set_rng_state
        from ..autograd.graph import _modified_message, saved_tensors_hooks

        for x, version in self.versions:
            now = x._vc[0]
            if now != version:
                raise RuntimeError(_modified_message(None, x, now, version))
        saved: list = []
        log: list | None = [] if self.log is not None else None
        expected = len(self.metadata)

        def keep(t: Any) -> int:
            if log is not None:
                log.append(_event(t))
            if len(saved) == expected:
                self._fail(
                    "torch.utils.checkpoint: trying to save more tensors during recomputation "
                    f"than during the original forward pass.\n{_DEBUG_TIP}",
                    log,
                )
            saved.append(t)
            if self.early_stop and len(saved) == expected:
                raise _StopRecomputation
            return len(saved) - 1

        state = get_rng_state() if self.rng is not None else None
        try:
            if self.rng is not None:
                set_rng_state(self.rng)
            with saved_tensors_hooks(keep, saved.__getitem__), enable_grad():
                with self.recompute_context:
                    self.function(*self.args, **self.kwargs)
        except _StopRecomputation:
            pass
        finally:
            if state is not None:
                set_rng_state(state)
        if len(saved) != expected:
            self._fail(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {expected}\n"
                f"Number of tensors saved during recomputation: {len(saved)}.\n{_DEBUG_TIP}",
                log,
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
                self._fail(
                    "torch.utils.checkpoint: Recomputed values for the following tensors have "
                    f"different metadata than during the forward pass.\n{lines}.\n{_DEBUG_TIP}",
                    log,
                )
        self.recomputed = saved

    def _fail(self, message: str, log: list | None) -> None:
        """Raise CheckpointError with ``message``; in debug mode, after both runs' logs."""
        if log is None or self.log is None:
            raise CheckpointError(message)
        raise CheckpointError(
            _DEBUG_REPORT.format(forward=_listing(self.log), recompute=_listing(log))
            + message.split(_DEBUG_TIP)[0]  # (the tip is to turn on what is on)
        )


def _unpack(handle: _Handle) -> Any:
    region = handle.region
    if region.recomputed is None:
        region.recompute()  # (also for a cached tensor: the function runs as in PyTorch)
    if handle.cached is not None:
        return handle.cached.take(region.selection.allow_mutation)
    return region.recomputed[handle.index]


def _metadata(t: Any) -> dict:
    return {"shape": t.shape, "dtype": t.dtype, "device": t.device}


# ----- debug mode: what each run saved, and from where ----------------------------------------

_PACKAGE = __file__.rsplit("utils", 1)[0]

_DEBUG_REPORT = """\
An error happened while unpacking tensors; dumping logs of latest computation
because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.
(chainrule logs the tensors each run saved for backward, in order, each with the op that
made it and the user code that saved it, where PyTorch logs every operator that ran.)

Tensors saved during the original forward:

{forward}
Tensors saved during recomputation:

{recompute}
 ERROR: Detected non-determinism while running activation checkpointing

"""


def _event(t: Any) -> tuple:
    """A saved tensor as debug mode logs it: the op that made it, its metadata, and the
    frames of user code (outside chainrule) that led to the save."""
    node = t.grad_fn
    made_by = f"output of {_op_of(node).name}" if node is not None else "leaf or input"
    frames = [
        f"{f.filename}:{f.lineno}:{f.name}"
        for f in traceback.extract_stack()[:-3]
        if not f.filename.startswith(_PACKAGE)
    ]
    return made_by, _metadata(t), frames


def _listing(log: list) -> str:
    out = ""
    for i, (made_by, meta, frames) in enumerate(log):
        out += f"{i}: {made_by}, {meta}   ({i + 1} of {len(log)})\n"
        out += "".join(f"    {line}\n" for line in frames[-4:])
    return out


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


def __getattr__(name: str) -> Any:
    if name == "CheckpointFunction":  # (made on first use)
        return _reentrant()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
