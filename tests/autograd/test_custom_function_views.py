"""Outputs of a custom Function that alias its input (an input returned as-is, or a view
made in its forward) are views whose own backward the view machinery must not replace:
writing into one, or using one after its base was written, raises PyTorch's errors
instead of giving a wrong gradient."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

import chainrule


def _functions(lib: Any) -> dict:
    class Id(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class View(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view(2, 1)

        @staticmethod
        def backward(ctx, g):
            return g.view(2) * 3

    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x, x

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + g2

    class ViewAndOther(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:1], x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            return g2 * 2

    return {"Id": Id, "View": View, "Two": Two, "ViewAndOther": ViewAndOther}


def _write_after(x: Any, y: Any) -> Any:
    x.mul_(2)
    return y * 1


CASES: dict[str, Callable] = {
    "input returned, written": lambda f, x: f["Id"].apply(x).mul_(2),
    "input returned, base written": lambda f, x: _write_after(x, f["Id"].apply(x)),
    "input returned, base written, reduced": lambda f, x: _write_after(x, f["Id"].apply(x)).sum(),
    "view made in forward, written": lambda f, x: f["View"].apply(x).add_(1),
    "view made in forward, base written": lambda f, x: _write_after(x, f["View"].apply(x)),
    "two outputs, one written": lambda f, x: f["Two"].apply(x)[0].add_(1),
    "a view and another output, the view written": lambda f, x: (
        f["ViewAndOther"].apply(x)[0].add_(1)
    ),
    "input returned, no write": lambda f, x: f["Id"].apply(x) * x,
    "view made in forward, no write": lambda f, x: f["View"].apply(x) * 2,
    "other output written": lambda f, x: f["ViewAndOther"].apply(x)[1].add_(1),
    "input of a slice returned": lambda f, x: f["Id"].apply(x[1:]) ** 2,
}


def _run(lib: Any, case: Callable) -> tuple:
    a = lib.tensor([-1.0, 2.0], requires_grad=True)
    x = a * 1
    try:
        case(_functions(lib), x).sum().backward()
    except RuntimeError as exc:
        return ("error", str(exc))
    return ("grad", a.grad.tolist())


@pytest.mark.parametrize("name", list(CASES))
def test_as_pytorch(name: str) -> None:
    assert _run(chainrule, CASES[name]) == _run(torch, CASES[name])


def test_an_input_returned_as_is_is_a_view_of_it() -> None:
    for lib in (torch, chainrule):
        x = lib.tensor([-1.0, 2.0], requires_grad=True) * 1
        y = _functions(lib)["Id"].apply(x)
        assert y._is_view() and y._base is x


def test_grad_fn_of_an_output_whose_base_was_written_without_grad() -> None:
    """A write under no_grad: the output's grad_fn is then refused, naming its node."""
    messages = []
    for lib in (torch, chainrule):
        x = lib.tensor([-1.0, 2.0], requires_grad=True) * 1
        y = _functions(lib)["Id"].apply(x)
        with lib.no_grad():
            x.mul_(2)
        with pytest.raises(RuntimeError) as info:
            y.grad_fn  # noqa: B018 - the property raises
        messages.append(str(info.value))
    assert messages[1] == messages[0]


def test_full_backward_hook_on_an_inplace_layer_refuses_as_pytorch() -> None:
    """A full backward hook wraps the layer's input in a Function returning it as-is: an
    in-place layer then writes into that view (PyTorch's error, not a wrong gradient)."""
    messages = []
    for lib in (torch, chainrule):
        layer = lib.nn.LeakyReLU(0.1, inplace=True)
        layer.register_full_backward_hook(lambda mod, gi, go: None)
        a = lib.tensor([[-1.0, 0.5]], requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            layer(a * 1).sum().backward()
        messages.append(str(info.value))
    assert messages[1] == messages[0]
