"""nn.utils cases a sweep against PyTorch found wrong: pad_sequence broadcasting a sequence's
trailing dims into its slot (and PyTorch's errors where it cannot), its dtype (the first
sequence's), PackedSequence's integer casts, the errors of pack_padded_sequence and
unpad_sequence, the empty-tensor inf-norm error of get_total_norm, orthogonal for wide and
tall matrices without trivialization and for complex ones, and setting an integer ``.data``
on a tensor that requires grad (vector_to_parameters)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_close, assert_same_error, randn


def R(lib):
    return lib.nn.utils.rnn


def backward_of(lib, out, inputs):
    """A random non-scalar backward through ``out``; the inputs' gradients."""
    w = lib.tensor(np.random.default_rng(3).standard_normal(tuple(out.shape)))
    (out * w.to(out.dtype)).sum().backward()
    return [x.grad for x in inputs]


# ----- pad_sequence: a sequence broadcast into its (L_b, *) slot -------------------------------

BROADCASTS = [
    [(3, 2), (2, 1)],
    [(3, 2), (2,)],
    [(3, 2, 2), (2, 2)],
    [(3, 2), (2, 1), (4, 2)],
]


@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["left", "right"])
def test_pad_sequence_broadcasts_trailing_dims(shapes, batch_first, side):
    def fn(lib):
        xs = [lib.tensor(randn(s, seed=i), requires_grad=True) for i, s in enumerate(shapes)]
        out = R(lib).pad_sequence(xs, batch_first, 7.0, side)
        return out, backward_of(lib, out, xs)

    assert_close(fn(cr), fn(torch))


@pytest.mark.parametrize(
    "shapes",
    [[(3, 2), (2, 3)], [(3, 1), (2, 3)], [(3,), (2, 1)], [(3, 2), (2, 2, 1)], [(3, 2), (2, 1, 2)]],
    ids=str,
)
def test_pad_sequence_trailing_dims_that_do_not_fit(shapes):
    assert_same_error(lambda lib: R(lib).pad_sequence([lib.ones(s) for s in shapes]))


@pytest.mark.parametrize(
    "dtypes",
    [("int64", "float32"), ("float32", "int64"), ("float32", "float64"), ("bool", "int64")],
)
def test_pad_sequence_takes_the_first_sequences_dtype(dtypes):
    def fn(lib):
        a = lib.tensor([1.7, -2.5]).to(getattr(lib, dtypes[0]))
        b = lib.tensor([3.9]).to(getattr(lib, dtypes[1]))
        return R(lib).pad_sequence([a, b], padding_value=1.5)

    assert_close(fn(cr), fn(torch), exact=True)


# ----- packing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("cast", ["byte", "char", "short", "int", "long", "half", "double"])
def test_packed_sequence_casts(cast):
    def fn(lib):
        x = lib.tensor(randn((4, 3), seed=1) * 5)
        p = getattr(R(lib).pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False), cast)()
        return [p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices]

    assert_close(fn(cr), fn(torch), exact=True)


@pytest.mark.parametrize("shape", [(5,), ()], ids=str)
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_padded_sequence_without_a_batch_dim(shape, batch_first):
    assert_same_error(
        lambda lib: R(lib).pack_padded_sequence(lib.ones(shape), [1], batch_first=batch_first)
    )


@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_padded_sequence_length_past_the_end(batch_first):
    # PyTorch reads past the end of its input here (its batch_sizes then count more
    # elements than its data holds); chainrule refuses
    x = cr.ones(5, 3) if not batch_first else cr.ones(3, 5)
    with pytest.raises(RuntimeError, match="at most the padded sequence length 5"):
        R(cr).pack_padded_sequence(x, [6, 3, 1], batch_first=batch_first)


@pytest.mark.parametrize("lengths", [[4, 2], [3, 2, 1, 1, 1]], ids=str)
def test_unpad_sequence_lengths_count_must_match(lengths):
    assert_same_error(
        lambda lib: R(lib).unpad_sequence(lib.ones(4, 3, 2), lib.tensor(lengths), True)
    )


# ----- clip_grad -------------------------------------------------------------------------------


@pytest.mark.parametrize("foreach", [None, True, False])
@pytest.mark.parametrize("norm_type", [float("inf"), "inf"])
def test_clip_grad_norm_inf_of_an_empty_gradient(foreach, norm_type):
    def fn(lib):
        p = lib.zeros(0, requires_grad=True)
        p.grad = lib.zeros(0)
        return lib.nn.utils.clip_grad_norm_([p], 1.0, norm_type, foreach=foreach)

    assert_same_error(fn)


# ----- orthogonal ------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(2, 4), (4, 2)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_orthogonal_householder_without_trivialization_non_square(shape, dtype):
    def fn(lib):
        m = lib.nn.Linear(shape[1], shape[0], bias=False).to(getattr(lib, dtype))
        with lib.no_grad():
            m.weight.copy_(lib.tensor(randn(shape, seed=2)))
        lib.nn.utils.parametrizations.orthogonal(m, use_trivialization=False)
        x = lib.arange(2 * shape[1], dtype=m.weight.dtype).reshape(2, shape[1])
        m(x).pow(2).sum().backward()
        return [m.weight, m.parametrizations.weight.original.grad]

    assert_close(fn(cr), fn(torch), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2)], ids=str)
@pytest.mark.parametrize("orthogonal_map", [None, "matrix_exp", "cayley"])
@pytest.mark.parametrize("trivialization", [True, False])
def test_orthogonal_complex(shape, orthogonal_map, trivialization):
    z = randn(shape, seed=2) + 1j * randn(shape, seed=3)

    def fn(lib):
        m = lib.nn.Linear(shape[1], shape[0], bias=False)
        m.weight = lib.nn.Parameter(lib.tensor(z).to(lib.complex128))
        lib.nn.utils.parametrizations.orthogonal(
            m, orthogonal_map=orthogonal_map, use_trivialization=trivialization
        )
        q = m.weight
        gram = q @ q.mH if shape[0] <= shape[1] else q.mH @ q
        q.abs().sum().backward()
        out = [gram, list(m.state_dict())]
        if shape[0] == shape[1] or not trivialization:  # (else a random completion)
            out += [q, m.parametrizations.weight.original.grad]
        return out

    assert_close(fn(cr), fn(torch), rtol=1e-6, atol=1e-8)


def test_orthogonal_householder_refuses_complex():
    def fn(lib):
        m = lib.nn.Linear(3, 2, bias=False).to(lib.complex64)
        lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map="householder")

    assert_same_error(fn)


# ----- integer data on a tensor that requires grad ---------------------------------------------


def test_vector_to_parameters_refuses_integer_data():
    def fn(lib):
        params = [lib.nn.Parameter(lib.zeros(2, 3)), lib.nn.Parameter(lib.zeros(4))]
        lib.nn.utils.vector_to_parameters(lib.arange(10), params)

    assert_same_error(fn)


def test_integer_data_on_a_tensor_without_grad():
    def fn(lib):
        t = lib.zeros(3)
        t.data = lib.arange(3)
        return t

    assert_close(fn(cr), fn(torch), exact=True)
