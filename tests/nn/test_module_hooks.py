"""Module hooks side by side with PyTorch's: the order hooks run in, the arguments they get
(args, kwargs, outputs; grad_input and grad_output) and what their results replace.

Forward pre-hooks and forward hooks (``with_kwargs``, ``prepend``, ``always_call``,
removal), full backward hooks and backward pre-hooks (built on an identity
``autograd.Function``, as PyTorch builds them), the deprecated non-full backward hook,
and the global hooks of ``torch.nn.modules.module``.
"""

from __future__ import annotations

import warnings

import pytest
import torch

import chainrule as cr
from nn_models import arr, classes, tensor
from oracle import assert_same_error, compare


def scale(lib):
    return classes(lib).Scale()


def x_of(lib, seed=0, requires_grad=False):
    return tensor(lib, arr(3, seed=seed), requires_grad)


# ----- forward hooks ------------------------------------------------------------------------


def _forward_hooks(lib):
    log = []
    m = scale(lib)
    m.register_forward_pre_hook(lambda mod, args: log.append(("pre", len(args), mod is m)))
    m.register_forward_pre_hook(
        lambda mod, args, kwargs: log.append(("pre_kwargs", sorted(kwargs))), with_kwargs=True
    )
    m.register_forward_pre_hook(lambda mod, args: log.append(("pre_first",)), prepend=True)
    handle = m.register_forward_hook(lambda mod, args, out: log.append(("post", out)))
    m.register_forward_hook(lambda mod, args, kwargs, out: out * 10, with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: log.append(("after", out)))
    m.register_forward_hook(lambda mod, args, out: log.append(("post_first",)), prepend=True)
    out = m(x_of(lib), scale=2.0)
    handle.remove()
    handle.remove()  # twice is fine
    out2 = m(x_of(lib, 1))
    return [log, out, out2]


def _pre_hook_replaces_args(lib):
    m = scale(lib)
    m.register_forward_pre_hook(lambda mod, args: args[0] + 1)  # one value: wrapped in a tuple
    m.register_forward_pre_hook(
        lambda mod, args, kwargs: ((args[0] * 2, x_of(lib, 2)), {"scale": 3.0}), with_kwargs=True
    )
    seen = []
    m.register_forward_hook(
        lambda mod, args, kwargs, out: seen.append((args, kwargs)), with_kwargs=True
    )
    return [m(x_of(lib)), seen]


def _hooks_see_positional_args_only(lib):
    seen = []
    m = scale(lib)
    m.register_forward_pre_hook(lambda mod, args: seen.append(args))
    m.register_forward_hook(lambda mod, args, out: seen.append((args, out)))
    m(x_of(lib), y=x_of(lib, 1), scale=0.5)
    return seen


def _always_call(lib):
    log = []

    class Fails(lib.nn.Module):
        def forward(self, x, k=0):
            raise ValueError("forward failed")

    m = Fails()
    m.register_forward_pre_hook(lambda mod, args: log.append("pre"))
    m.register_forward_hook(lambda mod, args, out: log.append("normal"))
    m.register_forward_hook(lambda mod, args, out: log.append(("always", out)), always_call=True)
    m.register_forward_hook(
        lambda mod, args, kwargs, out: log.append(("always_kwargs", kwargs)),
        always_call=True,
        with_kwargs=True,
    )
    with pytest.raises(ValueError, match="forward failed"):
        m(1, k=2)
    return log


def _always_call_hook_error_is_a_warning(lib):
    class Fails(lib.nn.Module):
        def forward(self, x):
            raise ValueError("forward failed")

    def bad_hook(mod, args, out):
        raise KeyError("hook failed")

    m = Fails()
    m.register_forward_hook(bad_hook, always_call=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError):
            m(1)
    return [str(w.message) for w in caught]


def _always_call_runs_once(lib):
    log = []

    class Scale(lib.nn.Module):
        def forward(self, x):
            return x * 2

    m = Scale()
    m.register_forward_hook(lambda mod, args, out: log.append("always"), always_call=True)

    def failing(mod, args, out):
        raise ValueError("second hook failed")

    m.register_forward_hook(failing)
    with pytest.raises(ValueError):
        m(x_of(lib))
    return log


def _nested_modules_order(lib):
    log = []
    nn = lib.nn
    s = nn.Sequential(nn.Identity(), nn.Sequential(nn.Flatten(0), nn.Identity()))
    for name, mod in s.named_modules():
        mod.register_forward_pre_hook(lambda mod, args, name=name: log.append(("pre", name)))
        mod.register_forward_hook(lambda mod, args, out, name=name: log.append(("post", name)))
    s(tensor(lib, arr(2, 2)))
    return log


FORWARD = {
    "forward_hooks": _forward_hooks,
    "pre_hook_replaces_args": _pre_hook_replaces_args,
    "positional_args_only": _hooks_see_positional_args_only,
    "always_call": _always_call,
    "always_call_hook_error": _always_call_hook_error_is_a_warning,
    "always_call_runs_once": _always_call_runs_once,
    "nested_order": _nested_modules_order,
}


@pytest.mark.parametrize("fn", FORWARD.values(), ids=FORWARD.keys())
def test_forward_hooks_as_torch(fn):
    compare(fn)


def test_pre_hook_with_kwargs_must_return_a_pair():
    def fn(lib):
        m = scale(lib)
        m.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
        m(x_of(lib))

    assert_same_error(fn)


def test_handles_are_context_managers_and_remove_their_flags():
    m = scale(cr)
    with m.register_forward_hook(lambda *a: None, with_kwargs=True, always_call=True) as h:
        assert h.id in m._forward_hooks_with_kwargs and h.id in m._forward_hooks_always_called
    assert not m._forward_hooks and not m._forward_hooks_with_kwargs
    assert not m._forward_hooks_always_called


# ----- backward hooks -----------------------------------------------------------------------


def _full_backward(lib):
    log = []
    m = scale(lib)
    m.register_full_backward_hook(lambda mod, gin, gout: log.append(("hook", gin, gout)))
    m.register_full_backward_hook(lambda mod, gin, gout: log.append(("first",)), prepend=True)
    m.register_full_backward_pre_hook(lambda mod, gout: log.append(("pre", gout)))
    m.register_full_backward_pre_hook(lambda mod, gout: log.append(("pre_first",)), prepend=True)
    x = x_of(lib, requires_grad=True)
    y = x_of(lib, 1)  # does not require grad: its grad_input is zeros, as in PyTorch
    out = m(x, y, scale=2.0)
    log.append(("output node", out.grad_fn.name()))
    out.backward(tensor(lib, arr(3, seed=2)))
    return [log, x.grad, m.w.grad]


def _hooks_replace_gradients(lib):
    m = scale(lib)
    m.register_full_backward_pre_hook(lambda mod, gout: (gout[0] * 2,))
    m.register_full_backward_hook(lambda mod, gin, gout: (gin[0] * 3, None))
    x = x_of(lib, requires_grad=True)
    y = x_of(lib, 1, requires_grad=True)
    m(x, y).sum().backward()
    return [x.grad, y.grad, m.w.grad]


def _no_input_needs_grad(lib):
    """The hooks fire at the outputs, with grad_input all None (and a warning)."""
    log = []
    m = scale(lib)
    m.register_full_backward_hook(lambda mod, gin, gout: log.append((gin, gout)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m(x_of(lib)).sum().backward()
    return [log, [str(w.message).split(".")[0] for w in caught], m.w.grad]


def _warning_site(lib, how):
    """Where the no-input-needs-grad warning points: the frame that PyTorch's hook names."""
    m = scale(lib)
    m.register_full_backward_hook(lambda mod, gin, gout: None)
    out = m(x_of(lib)).sum()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if how == "tensor_backward":
            out.backward()
        elif how == "backward":
            lib.autograd.backward(out)
        else:
            _grad_from_a_helper(lib, out, m.w)
    return [(w.filename, w.lineno) for w in caught]


def _grad_from_a_helper(lib, out, w):
    """``autograd.grad`` one frame down: PyTorch's warning names this frame's caller."""
    return lib.autograd.grad(out, w)


@pytest.mark.parametrize("how", ["tensor_backward", "backward", "grad"])
def test_no_input_warning_names_the_frame_torch_names(how):
    ours, theirs = _warning_site(cr, how), _warning_site(torch, how)
    assert ours == theirs
    assert len(theirs) == 1 and theirs[0][0] == __file__


def test_no_input_warning_site_with_dispatch_switched_on():
    """With ``__torch_function__`` dispatch on (a subclass defines it), the wrapper around
    ``Tensor.backward`` adds a frame that the warning's site skips."""
    from chainrule import overrides

    class Sub(cr.Tensor):
        pass

    try:
        assert overrides._state.enabled
        ours = _warning_site(cr, "tensor_backward")
    finally:
        overrides._reset()
    assert ours == _warning_site(torch, "tensor_backward")


def _tuple_outputs(lib):
    log = []
    m = classes(lib).Two()
    m.register_full_backward_pre_hook(lambda mod, gout: log.append(("pre", gout)))
    m.register_full_backward_hook(lambda mod, gin, gout: log.append(("hook", gin, gout)))
    a = tensor(lib, arr(2), requires_grad=True)
    b = tensor(lib, arr(2, seed=3))
    out = m(a, 5, b)
    out[0].sum().backward(retain_graph=True)  # the second output gets no gradient: None
    out = m(a, 5, b)
    (out[0].sum() + out[1]).backward()
    return [log, a.grad, out[2]]


def _called_twice(lib):
    """Each call has its own hook state: two calls, two backward passes."""
    log = []
    m = scale(lib)
    m.register_full_backward_hook(lambda mod, gin, gout: log.append((gin, gout)))
    x = x_of(lib, requires_grad=True)
    first = m(x)
    second = m(x * 2)
    (first.sum() + (second * 3).sum()).backward()
    return [log, x.grad]


def _non_full(lib):
    log = []
    m = scale(lib)
    m.register_backward_hook(lambda mod, gin, gout: log.append((len(gin), gout)))
    x = x_of(lib, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m(x).backward(tensor(lib, arr(3, seed=4)))
    return [log, x.grad]


def _global_hooks(lib):
    log = []
    mm = lib.nn.modules.module
    nn = lib.nn
    s = nn.Sequential(nn.Identity(), nn.Flatten(0))
    s[0].register_forward_hook(lambda mod, args, out: log.append("own"))
    handles = [
        mm.register_module_forward_pre_hook(lambda mod, args: log.append(("pre", type(mod).__name__))),
        mm.register_module_forward_hook(lambda mod, args, out: log.append(("post", type(mod).__name__))),
        mm.register_module_full_backward_hook(lambda mod, gin, gout: log.append(("bw", type(mod).__name__))),
        mm.register_module_full_backward_pre_hook(lambda mod, gout: log.append(("bwpre", type(mod).__name__))),
    ]  # fmt: skip
    try:
        s(tensor(lib, arr(2, 2), requires_grad=True)).sum().backward()
    finally:
        for h in handles:
            h.remove()
    s(tensor(lib, arr(2, 2)))
    return log


def _registration_hooks(lib):
    log = []
    mm = lib.nn.modules.module

    def replace(module, name, value):
        log.append(("buffer", name))
        return lib.zeros(2) if name == "count" else None

    handles = [
        mm.register_module_parameter_registration_hook(lambda m, n, p: log.append(("param", n))),
        mm.register_module_module_registration_hook(lambda m, n, s: log.append(("module", n))),
        mm.register_module_buffer_registration_hook(replace),
    ]
    try:
        m = classes(lib).Net()
    finally:
        for h in handles:
            h.remove()
    return [log, m.body[0].count]


BACKWARD = {
    "full_backward": _full_backward,
    "hooks_replace_gradients": _hooks_replace_gradients,
    "no_input_needs_grad": _no_input_needs_grad,
    "tuple_outputs": _tuple_outputs,
    "called_twice": _called_twice,
    "non_full": _non_full,
    "global_hooks": _global_hooks,
    "registration_hooks": _registration_hooks,
}


@pytest.mark.parametrize("fn", BACKWARD.values(), ids=BACKWARD.keys())
def test_backward_hooks_as_torch(fn):
    compare(fn, rtol=1e-5, atol=1e-6)


def _wrong_count(lib):
    m = scale(lib)
    m.register_full_backward_hook(lambda mod, gin, gout: (gin[0], gin[0], gin[0]))
    m(x_of(lib, requires_grad=True)).sum().backward()


def _wrong_pre_count(lib):
    m = scale(lib)
    m.register_full_backward_pre_hook(lambda mod, gout: (gout[0], gout[0]))
    m(x_of(lib, requires_grad=True)).sum().backward()


def _mixed(full_first):
    def fn(lib):
        m = scale(lib)
        if full_first:
            m.register_full_backward_hook(lambda *a: None)
            m.register_backward_hook(lambda *a: None)
        else:
            m.register_backward_hook(lambda *a: None)
            m.register_full_backward_hook(lambda *a: None)

    return fn


def _no_input_hook_returns(lib):
    m = scale(lib)
    m.register_full_backward_hook(lambda mod, gin, gout: (x_of(lib),))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m(x_of(lib)).sum().backward()


BACKWARD_ERRORS = {
    "wrong_grad_input_count": _wrong_count,
    "wrong_grad_output_count": _wrong_pre_count,
    "full_then_regular": _mixed(True),
    "regular_then_full": _mixed(False),
    "no_input_hook_returns_values": _no_input_hook_returns,
}


@pytest.mark.parametrize("fn", BACKWARD_ERRORS.values(), ids=BACKWARD_ERRORS.keys())
def test_backward_hook_errors_as_torch(fn):
    assert_same_error(fn)


def test_hook_state_is_per_module_and_removable():
    m = scale(cr)
    calls = []
    h = m.register_full_backward_hook(lambda mod, gin, gout: calls.append(1))
    x = x_of(cr, requires_grad=True)
    m(x).sum().backward()
    h.remove()
    m(x).sum().backward()
    assert calls == [1]
    assert not m._backward_hooks
    assert m(x).grad_fn.name() == "MulBackward0"  # no hooks: no identity nodes


def test_no_hooks_means_no_extra_nodes():
    """Without hooks a call is ``forward`` itself: the output's node is the last op's."""
    for lib in (cr, torch):
        assert scale(lib)(x_of(lib, requires_grad=True)).grad_fn.name() == "MulBackward0"
