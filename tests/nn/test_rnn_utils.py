"""nn.utils.rnn against PyTorch's: pad_sequence (batch_first, padding_value, padding_side,
trailing dims), pack_padded_sequence (sorted, unsorted, batch_first), pad_packed_sequence
(total_length), pack_sequence, unpack_sequence, unpad_sequence, invert_permutation and the
PackedSequence tuple: values, dtypes, gradients through packing and padding, and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_close, assert_same_error, randn


def R(lib):
    return lib.nn.utils.rnn


def seqs(lib, lengths, rest=(2,), dtype=np.float64, grad=True):
    return [
        lib.tensor(randn((n, *rest), seed=i).astype(dtype), requires_grad=grad)
        for i, n in enumerate(lengths)
    ]


def backward_of(lib, out, inputs):
    """A random non-scalar backward through ``out``; the inputs' gradients."""
    w = lib.tensor(np.random.default_rng(3).standard_normal(tuple(out.shape)))
    (out * w.to(out.dtype)).sum().backward()
    return [x.grad for x in inputs]


def packed_fields(p):
    return [p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices]


PAD = {
    "right": ([3, 1, 2], (2,), {}),
    "batch_first": ([3, 1, 2], (2,), {"batch_first": True}),
    "left": ([3, 1, 2], (2,), {"padding_side": "left"}),
    "left_batch_first_value": (
        [1, 4],
        (2, 3),
        {"padding_side": "left", "batch_first": True, "padding_value": -1.5},
    ),
    "no_trailing_dims": ([2, 4, 4], (), {"padding_value": 7}),
    "one_sequence": ([3], (2,), {}),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", list(PAD))
def test_pad_sequence(case, dtype):
    lengths, rest, kw = PAD[case]

    def fn(lib):
        xs = seqs(lib, lengths, rest, dtype)
        out = R(lib).pad_sequence(xs, **kw)
        return out, backward_of(lib, out, xs)

    assert_close(fn(cr), fn(torch), 1e-6, 1e-7)


def test_pad_sequence_integers():
    def fn(lib):
        return R(lib).pad_sequence(
            (lib.tensor([1, 2, 3]), lib.tensor([4])), batch_first=True, padding_value=9
        )

    assert_close(fn(cr), fn(torch), exact=True)


PACK = {
    "sorted": ([4, 3, 1], True, False),
    "unsorted": ([2, 4, 1], False, False),
    "unsorted_batch_first": ([2, 4, 1], False, True),
    "sorted_batch_first": ([4, 4, 2], True, True),
    "ties_unsorted": ([3, 1, 3, 3], False, False),
    "shorter_than_padding": ([2, 2], True, False),
}


@pytest.mark.parametrize("case", list(PACK))
def test_pack_padded_sequence(case):
    lengths, enforce_sorted, batch_first = PACK[case]
    shape = (len(lengths), 4, 2) if batch_first else (4, len(lengths), 2)

    def fn(lib):
        x = lib.tensor(randn(shape), requires_grad=True)
        p = R(lib).pack_padded_sequence(
            x, lib.tensor(lengths), batch_first=batch_first, enforce_sorted=enforce_sorted
        )
        return packed_fields(p), backward_of(lib, p.data, [x])

    got, want = fn(cr), fn(torch)
    assert_close(got, want, 1e-12, 1e-12)


@pytest.mark.parametrize("total_length", [None, 6], ids=["none", "6"])
@pytest.mark.parametrize("batch_first", [False, True], ids=["tb", "bt"])
@pytest.mark.parametrize("case", ["sorted", "unsorted", "ties_unsorted"])
def test_pad_packed_sequence(case, batch_first, total_length):
    lengths, enforce_sorted, _ = PACK[case]

    def fn(lib):
        x = lib.tensor(randn((4, len(lengths), 3)))
        p = R(lib).pack_padded_sequence(x, lengths, enforce_sorted=enforce_sorted)
        data = p.data.detach().requires_grad_()
        p = type(p)(data, p.batch_sizes, p.sorted_indices, p.unsorted_indices)
        padded, lens = R(lib).pad_packed_sequence(
            p, batch_first=batch_first, padding_value=-2.0, total_length=total_length
        )
        return padded, lens, backward_of(lib, padded, [data])

    assert_close(fn(cr), fn(torch), 1e-12, 1e-12)


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_and_unpack_sequence(enforce_sorted):
    lengths = [4, 2, 1] if enforce_sorted else [2, 4, 1]

    def fn(lib):
        xs = seqs(lib, lengths)
        p = R(lib).pack_sequence(xs, enforce_sorted=enforce_sorted)
        back = R(lib).unpack_sequence(p)
        grads = backward_of(lib, lib.cat([b.flatten() for b in back]), xs)
        return packed_fields(p), back, grads

    assert_close(fn(cr), fn(torch), 1e-12, 1e-12)


@pytest.mark.parametrize("batch_first", [False, True])
def test_unpad_sequence(batch_first):
    def fn(lib):
        xs = seqs(lib, [3, 1, 2], grad=False)
        padded = R(lib).pad_sequence(xs, batch_first=batch_first)
        return R(lib).unpad_sequence(padded, lib.tensor([3, 1, 2]), batch_first=batch_first)

    assert_close(fn(cr), fn(torch), exact=True, requires_grad=False)


def test_packed_sequence_tuple():
    def fn(lib):
        P = R(lib).PackedSequence
        data = lib.tensor([[1.0], [2.0], [3.0]])
        a = P(data, lib.tensor([2, 1]))
        b = P(data, lib.tensor([2, 1]), lib.tensor([1, 0]))
        c = P((data, lib.tensor([2, 1])))
        d = b.double()
        return [
            packed_fields(a),
            packed_fields(b),
            packed_fields(c),
            d.data.dtype == lib.float64,
            a.to(lib.float32) is a,
            a._fields,
            len(a),
            a.is_cuda,
            R(lib).invert_permutation(lib.tensor([2, 0, 3, 1])),
            R(lib).invert_permutation(None),
        ]

    assert_close(fn(cr), fn(torch), exact=True)


ERRORS = {
    "unsorted_enforced": lambda lib: R(lib).pack_padded_sequence(
        lib.zeros(3, 2, 1), [1, 3], enforce_sorted=True
    ),
    "zero_length": lambda lib: R(lib).pack_padded_sequence(lib.zeros(3, 2, 1), [3, 0]),
    "lengths_count": lambda lib: R(lib).pack_padded_sequence(lib.zeros(3, 2, 1), [3, 2, 1]),
    "total_length": lambda lib: R(lib).pad_packed_sequence(
        R(lib).pack_sequence([lib.zeros(4, 1), lib.zeros(2, 1)]), total_length=3
    ),
    "pad_not_iterable": lambda lib: R(lib).pad_sequence(3),
    "padding_side": lambda lib: R(lib).pad_sequence([lib.zeros(2)], padding_side="middle"),
    "no_batch_sizes": lambda lib: R(lib).PackedSequence(lib.zeros(2)),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors(case):
    assert_same_error(ERRORS[case])
