"""Inference tensors: what ``inference_mode`` makes, against PyTorch.

A tensor made inside ``inference_mode`` (and every view of it) is an inference tensor:
``is_inference()`` is True, it has no readable version counter, it cannot be saved for
backward, and it is written in place only inside inference mode. Views of normal tensors
taken inside the mode, and results computed from inference tensors outside it, are normal.
"""

from __future__ import annotations

import pytest

from oracle import assert_same_error, both, compare


def made_inside(lib):
    with lib.inference_mode():
        return lib.ones(3) * 2


def test_is_inference_of_what_the_mode_makes():
    def f(lib):
        normal = lib.ones(3)
        with lib.inference_mode():
            made = lib.ones(3)
            computed = normal * 2
            view_of_normal = normal[1:]
            view_of_made = made[1:]
            with lib.inference_mode(False):
                nested_off = lib.ones(2)
        with lib.no_grad():
            under_no_grad = lib.ones(2)
        return [
            made.is_inference(),
            computed.is_inference(),
            view_of_normal.is_inference(),
            view_of_made.is_inference(),
            nested_off.is_inference(),
            under_no_grad.is_inference(),
            normal.is_inference(),
            lib.is_inference(computed),
            computed.detach().is_inference(),
            computed.data.is_inference(),
            computed.view(3).is_inference(),
            (computed * 2).is_inference(),  # computed outside the mode: normal
            computed.clone().is_inference(),
            computed.exp().is_inference(),
        ]

    got, want = both(f)
    assert got == want


def test_inference_tensors_do_not_track_a_version():
    assert_same_error(lambda lib: made_inside(lib)._version)
    assert_same_error(lambda lib: made_inside(lib)[1:]._version)


def test_a_view_of_a_normal_tensor_taken_in_the_mode_keeps_its_version():
    def f(lib):
        a = lib.ones(3)
        with lib.inference_mode():
            v = a[1:]
            a.add_(1)  # a normal tensor written inside the mode: its version moves
        v.add_(1)  # and its views may be written outside it
        return [a._version, v._version, a]

    compare(f)


@pytest.mark.parametrize(
    "write",
    [
        lambda t: t.add_(1),
        lambda t: t.zero_(),
        lambda t: t.copy_(t * 0),
        lambda t: t.fill_(2.0),
        lambda t: t[1:].mul_(2),
        lambda t: t.__setitem__(0, 5.0),
        lambda t: t.__setitem__(slice(None), 5.0),
        lambda t: t.sigmoid_(),
    ],
    ids=["add_", "zero_", "copy_", "fill_", "view_mul_", "setitem", "setitem_all", "sigmoid_"],
)
def test_writes_outside_the_mode_are_refused(write):
    assert_same_error(lambda lib: write(made_inside(lib)))


def test_out_into_an_inference_tensor_outside_the_mode_is_refused():
    assert_same_error(lambda lib: lib.add(lib.ones(3), 1, out=made_inside(lib)))


def test_writes_inside_the_mode_are_allowed():
    def f(lib):
        y = made_inside(lib)
        with lib.inference_mode():
            y.add_(1)
            y[0] = 7.0
        return y

    compare(f)


def test_requires_grad_on_an_inference_tensor():
    assert_same_error(lambda lib: made_inside(lib).requires_grad_())

    def f(lib):
        y = made_inside(lib)
        y.requires_grad_(False)  # turning it off is allowed
        with lib.inference_mode():
            z = lib.ones(3) * 1
            z.requires_grad_()  # and on, inside the mode
            r = lib.ones(3, requires_grad=True)
        return [y.requires_grad, z.requires_grad, z.is_inference(), r.requires_grad]

    got, want = both(f)
    assert got == want


def test_inference_tensors_cannot_be_saved_for_backward():
    def saved(lib):
        w = lib.ones(3, requires_grad=True)
        return w * made_inside(lib)  # mul saves the other operand for w's gradient

    assert_same_error(saved)

    def custom(lib):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, c):
                ctx.save_for_backward(c)
                return x * c

            @staticmethod
            def backward(ctx, g):
                return g * ctx.saved_tensors[0], None

        return Square.apply(lib.ones(3, requires_grad=True), made_inside(lib))

    assert_same_error(custom)


def test_a_custom_function_saves_inference_tensors_when_no_backward_can_run():
    def f(lib):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                return 2 * g * ctx.saved_tensors[0]

        w = lib.full((3,), 3.0, requires_grad=True)
        with lib.inference_mode():
            inside = Square.apply(w)  # grad mode off: nothing is recorded, nothing saved
        with lib.no_grad():
            y = made_inside(lib)
            off = Square.apply(y)
        plain = Square.apply(made_inside(lib))  # no input requires grad
        return [inside, inside.requires_grad, off, plain, plain.grad_fn is None]

    compare(f)


def test_inference_tensors_in_a_graph_that_saves_nothing_of_them():
    def f(lib):
        w = lib.ones(3, requires_grad=True)
        y = made_inside(lib)
        (w + y).sum().backward()  # add saves nothing
        (w * y.sigmoid()).sum().backward()  # sigmoid outside the mode makes a normal tensor
        with lib.inference_mode():
            r = lib.full((3,), 2.0, requires_grad=True)
        (r * 3).sum().backward()  # a leaf made in the mode that is not saved
        return [w.grad, r.grad]

    compare(f)


def test_inference_mode_false_turns_grad_mode_on():
    def f(lib):
        out = []
        for outer in (lib.no_grad, lib.inference_mode):
            with outer():
                with lib.inference_mode(False):
                    out += [lib.is_grad_enabled(), lib.is_inference_mode_enabled()]
                out += [lib.is_grad_enabled(), lib.is_inference_mode_enabled()]
        return out

    got, want = both(f)
    assert got == want
