"""Version counters against PyTorch: a value a node saved and then modified in place makes
backward raise PyTorch's error (through views, ``detach()`` and index assignment too),
nothing is raised where nothing saved was touched, and ``.data`` is the escape hatch.
Views share memory and the version counter with their base, as PyTorch's; copies do not.
"""

from __future__ import annotations

import operator
import re

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    assert_same_error,
    compare,
    error_of,
    values,
)

MODIFIED = (
    "one of the variables needed for gradient computation has been modified by an inplace operation"
)


# ----- saved values modified in place (the engine's scenarios) ----------------------------


def _modify_exp_output_no_grad(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    with L.no_grad():
        y.add_(1)
    y.sum().backward()


def _modify_exp_output(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.add_(1)
    y.sum().backward()


def _modify_tanh_output(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x.tanh()
    y.mul_(2)
    y.sum().backward()


def _modify_mul_input(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    a = L.tensor([3.0, 4.0])
    y = x * a
    a.add_(1)
    y.sum().backward()


def _modify_mul_leaf_no_grad(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    w = L.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    with L.no_grad():
        w.mul_(2)
    y.sum().backward()


def _modify_square_input_no_grad(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    with L.no_grad():
        x.add_(1)
    y.sum().backward()


def _modify_non_leaf_input(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * y
    y.add_(1)
    z.sum().backward()


def _modify_through_detach(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.detach().zero_()
    y.sum().backward()


def _modify_through_view(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.view(2, 1).mul_(2)
    y.sum().backward()


def _modify_through_view_no_grad(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    with L.no_grad():
        y.view(-1).mul_(2)
    y.sum().backward()


def _modify_through_row(L):
    x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x.exp()
    y[0].mul_(2)
    y.sum().backward()


def _modify_through_element(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y[0].mul_(2)
    y.sum().backward()


def _modify_through_element_no_grad(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    with L.no_grad():
        y[1].add_(1)
    y.sum().backward()


def _modify_by_index_assignment(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y[0] = 5.0
    y.sum().backward()


def _modify_by_index_assignment_no_grad(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    with L.no_grad():
        y[0] = 5.0
    y.sum().backward()


@pytest.mark.parametrize(
    "program",
    [
        _modify_exp_output_no_grad,
        _modify_exp_output,
        _modify_tanh_output,
        _modify_mul_input,
        _modify_mul_leaf_no_grad,
        _modify_square_input_no_grad,
        _modify_non_leaf_input,
        _modify_through_detach,
        _modify_through_view,
        _modify_through_view_no_grad,
        _modify_through_row,
        _modify_by_index_assignment,
        _modify_by_index_assignment_no_grad,
    ],
)
def test_modified_saved_value_raises(program):
    assert_same_error(program, MODIFIED)
    msg = str(error_of(program, cr))
    assert re.search(r"is at version \d+; expected version \d+ instead", msg)


@pytest.mark.parametrize("program", [_modify_through_element, _modify_through_element_no_grad])
def test_modified_saved_value_through_an_element_view_raises(program):
    assert_same_error(program, MODIFIED)


@pytest.mark.parametrize(
    "op", [lambda y: y.mul_(y), lambda y: operator.imul(y, y)], ids=["mul_", "imul"]
)
def test_in_place_square_never_gives_a_wrong_gradient(op):
    """PyTorch raises here (y saved itself); chainrule may raise too, or be right."""
    assert MODIFIED in str(
        error_of(lambda L: op(L.tensor([1.0, 2.0], requires_grad=True) * 2).sum().backward(), torch)
    )
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    try:
        op(y)
        y.sum().backward()
    except RuntimeError as exc:
        assert MODIFIED in str(exc)
    else:
        assert y.tolist() == [4.0, 16.0]
        assert x.grad.tolist() == [8.0, 16.0]  # d/dx (2x)^2 = 8x


def test_element_of_a_vector_is_a_view():
    def f(L):
        y = L.tensor([1.0, 2.0])
        y[0].mul_(3)
        v = y[1]
        v += 5
        return y, v

    compare(f)


def test_data_escape_hatch_does_not_raise():
    def f(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.data.zero_()
        y.sum().backward()
        return x.grad

    compare(f)


# ----- programs that modify what a node saved, or not -------------------------------------


def _outcome(lib, program, x0):
    """('raises', message part) or ('ok', x.grad as an array)."""
    x = lib.tensor(x0, requires_grad=True)
    try:
        out = program(lib, x)
        out.backward(lib.ones_like(out))
    except RuntimeError as e:
        assert "modified by an inplace operation" in str(e), str(e)
        return ("raises", None)
    return ("ok", x.grad.detach().numpy().copy())


def _saves_output(L, x):
    y = x.exp()  # ExpBackward0 saves its output y
    y.add_(1)
    return y


def _saves_output_tanh(L, x):
    y = x.tanh()
    y.mul_(2)
    return y


def _saves_output_sigmoid(L, x):
    y = x.sigmoid()
    z = y * 1
    y.zero_()
    return z


def _saves_output_sqrt(L, x):
    y = (x * x + 1).sqrt()
    y.div_(2)
    return y


def _saves_output_relu(L, x):
    y = x.relu()
    y.fill_(1.0)
    return y.sum() + x.sum()


def _saves_input_sin(L, x):
    a = x * 1
    b = a.sin()  # SinBackward0 saves its input a
    a.mul_(2)
    return b


def _saves_input_log(L, x):
    a = x.abs() + 1
    b = a.log()
    a.add_(1)
    return b


def _saves_input_pow(L, x):
    a = x * 1
    b = a**3
    a.sub_(1)
    return b


def _saves_both_mul(L, x):
    a = x * 1
    b = a * a
    a.add_(1)
    return b


def _saves_through_a_view(L, x):
    y = x.exp()
    y[0] = 1.0  # the view shares y's version counter
    return y


def _saves_through_detach(L, x):
    y = x.exp()
    y.detach().zero_()  # detach() shares the counter too
    return y


def _saves_other_operand(L, x):
    w = x * 1
    b = x * w  # saves w as the other operand
    w.mul_(3)
    return b


def _constant_factor(L, x):
    y = x * 2  # MulBackward0 saves only the 2
    y.add_(1)
    return y


def _add_saves_nothing(L, x):
    a = x * 1
    b = a + 1
    a.mul_(5)
    return b * 1


def _output_not_saved(L, x):
    a = x * 1
    b = a.sin()  # saves a, not b
    b.add_(1)
    return b


def _data_escape_hatch(L, x):
    y = x.exp()
    y.data.mul_(2)  # .data shares no counter: no error, and the changed value is used
    return y


def _modified_then_used_again(L, x):
    y = x.exp()
    z = y.clone()
    y.add_(1)  # y changed, but z's graph saved only y's clone's source... it saved y
    return z


def _sum_saves_shape_only(L, x):
    a = x * 1
    b = a.sum()
    a.add_(1)
    return b


VERSION_PROGRAMS = {
    "exp_saves_output": _saves_output,
    "tanh_saves_output": _saves_output_tanh,
    "sigmoid_saves_output": _saves_output_sigmoid,
    "sqrt_saves_output": _saves_output_sqrt,
    "relu_saves_output": _saves_output_relu,
    "sin_saves_input": _saves_input_sin,
    "log_saves_input": _saves_input_log,
    "pow_saves_input": _saves_input_pow,
    "mul_saves_both": _saves_both_mul,
    "through_a_view": _saves_through_a_view,
    "through_detach": _saves_through_detach,
    "other_operand": _saves_other_operand,
    "constant_factor": _constant_factor,
    "add_saves_nothing": _add_saves_nothing,
    "output_not_saved": _output_not_saved,
    "data_escape_hatch": _data_escape_hatch,
    "clone_then_modify": _modified_then_used_again,
    "sum_saves_shape": _sum_saves_shape_only,
}


@pytest.mark.parametrize("name", sorted(VERSION_PROGRAMS))
def test_version_counter_errors_as_torch(name):
    program = VERSION_PROGRAMS[name]
    x0 = values("any", (3,), 12)
    ours = _outcome(cr, program, x0)
    theirs = _outcome(torch, program, x0)
    assert ours[0] == theirs[0], f"chainrule {ours[0]}, torch {theirs[0]}"
    if theirs[0] == "ok":
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)


def test_the_version_error_names_the_tensor_and_versions():
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.add_(1)
    with pytest.raises(RuntimeError, match=r"is at version 1; expected version 0 instead"):
        y.sum().backward()


# ----- views share memory and the version counter -----------------------------------------


VIEWS = {
    "view": (lambda x: x.view(12), True),
    "reshape": (lambda x: x.reshape(4, 3), True),
    "reshape_copy": (lambda x: x.t().reshape(12), False),
    "flatten": (lambda x: x.flatten(), True),
    "unflatten": (lambda x: x.unflatten(1, (2, 2)), True),
    "squeeze": (lambda x: x.unsqueeze(0).squeeze(0), True),
    "unsqueeze": (lambda x: x.unsqueeze(-1), True),
    "permute": (lambda x: x.permute(1, 0), True),
    "transpose": (lambda x: x.transpose(0, 1), True),
    "movedim": (lambda x: x.movedim(0, 1), True),
    "expand": (lambda x: x[:1].expand(3, 4), True),
    "narrow": (lambda x: x.narrow(1, 1, 2), True),
    "select": (lambda x: x.select(1, 0), True),
    "split": (lambda x: x.split(2, 1)[1], True),
    "chunk": (lambda x: x.chunk(2)[0], True),
    "unbind": (lambda x: x.unbind(1)[3], True),
    "unfold": (lambda x: x.unfold(1, 2, 1), True),
    "basic_index": (lambda x: x[1:, ::2], True),
    "int_index": (lambda x: x[1], True),
    "advanced_index": (lambda x: x[[0, 1]], False),
    "mask_index": (lambda x: x[x > 0], False),
    "contiguous": (lambda x: x.contiguous(), True),
    "contiguous_copy": (lambda x: x.t().contiguous(), False),
    "flip": (lambda x: x.flip(0), False),
    "roll": (lambda x: x.roll(1), False),
    "repeat": (lambda x: x.repeat(1, 1), False),
    "cat": (lambda x: cr.cat([x]), False),
    "clone": (lambda x: x.clone(), False),
    "gather": (lambda x: x.gather(0, cr.zeros(1, 4, dtype=cr.long)), False),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_share_memory_and_version_as_torch(name):
    """A view shares memory and the version counter with its input (as PyTorch); a copy not."""
    fn, is_view = VIEWS[name]
    torch_fn = {
        "cat": lambda x: torch.cat([x]),
        "gather": lambda x: x.gather(0, torch.zeros(1, 4, dtype=torch.long)),
    }.get(name, fn)
    t = torch.randn(3, 4)
    assert (torch_fn(t)._base is not None or torch_fn(t) is t) == is_view  # the oracle agrees
    x = cr.randn(3, 4)
    y = fn(x)
    before = x._version
    with cr.no_grad():
        x.add_(1)
    assert (y._version == before + 1) == is_view
    assert x._version == before + 1


def test_inplace_through_a_view_bumps_the_base_version():
    for lib in (cr, torch):
        x = lib.zeros(3, 4)
        v = x[1:].t()
        v.mul_(2)
        x[0] = 1
        x[:, 1].add_(3)
        x.view(12)[2] = 5
        assert x._version == 4 and v._version == 4
        assert x.tolist()[0] == [1.0, 4.0, 5.0, 1.0]


def test_saved_tensor_modified_through_a_view_raises():
    for lib in (cr, torch):
        y = lib.randn(3, requires_grad=True) * 1
        z = y.exp()
        y[0] = 1.0  # exp saved its output z, not y: fine
        w = y.sin()
        y[1:].mul_(2)  # sin saved y, which just changed
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            w.sum().backward()
        z.sum().backward()
