"""Bad input to torch.nn gets PyTorch's exception type and message (issue 9): wrong rank or
channels for the convolutions (functions and modules), class targets out of range, size
mismatches in ``load_state_dict``, Linear's shapes and dtypes (with and without a bias, so
through ``mm`` and ``addmm``), the recurrent layers' input sizes, embedding indices out of
range, batch norm's parameters (PyTorch's order of checks), pooling windows larger than the
input, adaptive pooling of too few dims, padding too large for reflection, interpolate
without a size.

Each case is ``fn(lib)``, run on both libraries by ``oracle.check_same_error``.
"""

from __future__ import annotations

import itertools
import warnings

import pytest

from oracle import check_same_error, compare


def F(lib):
    return lib.nn.functional


def t(lib, *shape, dtype=None):
    return lib.zeros(*shape) if dtype is None else lib.zeros(*shape, dtype=dtype)


CASES = {
    "conv1d_rank": lambda L: F(L).conv1d(t(L, 2, 2, 3, 3), t(L, 4, 2, 3)),
    "conv1d_channels": lambda L: F(L).conv1d(t(L, 1, 3, 5), t(L, 4, 2, 3)),
    "conv2d_rank": lambda L: F(L).conv2d(t(L, 3, 5), t(L, 4, 3, 3, 3)),
    "conv2d_channels": lambda L: F(L).conv2d(t(L, 1, 2, 5, 5), t(L, 4, 3, 3, 3)),
    "conv2d_kernel_too_big": lambda L: F(L).conv2d(t(L, 1, 3, 2, 2), t(L, 4, 3, 3, 3)),
    "conv3d_rank": lambda L: F(L).conv3d(t(L, 1, 2, 5, 5), t(L, 4, 2, 3, 3, 3)),
    "conv3d_channels": lambda L: F(L).conv3d(t(L, 1, 1, 4, 4, 4), t(L, 4, 2, 3, 3, 3)),
    "conv_transpose1d_rank": lambda L: F(L).conv_transpose1d(t(L, 2, 2, 2, 3), t(L, 2, 4, 3)),
    "conv_transpose1d_channels": lambda L: F(L).conv_transpose1d(t(L, 1, 3, 5), t(L, 2, 4, 3)),
    "conv_transpose2d_rank": lambda L: F(L).conv_transpose2d(t(L, 2, 5), t(L, 2, 4, 3, 3)),
    "conv_transpose2d_channels": lambda L: F(L).conv_transpose2d(
        t(L, 1, 3, 5, 5), t(L, 2, 4, 3, 3)
    ),
    "conv_transpose3d_channels": lambda L: F(L).conv_transpose3d(
        t(L, 1, 3, 2, 2, 2), t(L, 2, 4, 1, 1, 1)
    ),
    "Conv2d_module_channels": lambda L: L.nn.Conv2d(3, 4, 3)(t(L, 1, 2, 5, 5)),
    "Conv2d_module_rank": lambda L: L.nn.Conv2d(3, 4, 3)(t(L, 5, 5)),
    "Conv1d_module_channels": lambda L: L.nn.Conv1d(3, 4, 3)(t(L, 2, 5, 6)),
    "Conv3d_module_rank": lambda L: L.nn.Conv3d(1, 4, 3)(t(L, 1, 5, 6)),
    "ConvTranspose2d_module_channels": lambda L: L.nn.ConvTranspose2d(3, 4, 3)(t(L, 1, 2, 5, 5)),
    "ConvTranspose1d_module_rank": lambda L: L.nn.ConvTranspose1d(3, 4, 3)(t(L, 1, 1, 3, 5)),
    "cross_entropy_target_oob": lambda L: F(L).cross_entropy(t(L, 3, 5), L.tensor([1, 5, 0])),
    "cross_entropy_target_negative": lambda L: F(L).cross_entropy(t(L, 3, 5), L.tensor([1, -3, 0])),
    "nll_loss_target_oob": lambda L: F(L).nll_loss(t(L, 3, 5), L.tensor([1, 5, 0])),
    "nll_loss_2d_target_oob": lambda L: F(L).nll_loss(
        t(L, 1, 3, 2, 2), L.tensor([[[0, 1], [3, 0]]])
    ),
    "CrossEntropyLoss_oob": lambda L: L.nn.CrossEntropyLoss()(t(L, 2, 3), L.tensor([0, 7])),
    "linear_shapes": lambda L: L.nn.Linear(4, 3)(t(L, 2, 5)),
    "F_linear_shapes": lambda L: F(L).linear(t(L, 2, 5), t(L, 3, 4)),
    "F_linear_dtypes": lambda L: F(L).linear(t(L, 2, 4), t(L, 3, 4, dtype=L.float64)),
    "F_linear_dtypes_bias": lambda L: F(L).linear(t(L, 2, 4), t(L, 3, 4), t(L, 3, dtype=L.float64)),
    "Linear_double_input": lambda L: L.nn.Linear(4, 3)(t(L, 2, 4, dtype=L.float64)),
    "lstm_rank": lambda L: L.nn.LSTM(4, 3)(t(L, 2, 3, 4, 5)),
    "lstm_size": lambda L: L.nn.LSTM(4, 3)(t(L, 2, 3, 5)),
    "lstm_unbatched_size": lambda L: L.nn.LSTM(4, 3)(t(L, 2, 5)),
    "lstm_hx_shape": lambda L: L.nn.LSTM(4, 3)(t(L, 2, 3, 4), (t(L, 1, 2, 3), t(L, 1, 3, 3))),
    "gru_size": lambda L: L.nn.GRU(4, 3)(t(L, 2, 3, 5)),
    "rnn_rank": lambda L: L.nn.RNN(4, 3)(t(L, 4)),
    "embedding_oob": lambda L: F(L).embedding(L.tensor([0, 5]), t(L, 5, 3)),
    "Embedding_oob": lambda L: L.nn.Embedding(5, 3)(L.tensor([[0, 7]])),
    "embedding_negative": lambda L: F(L).embedding(L.tensor([0, -6]), t(L, 5, 3)),
    "embedding_float_index": lambda L: F(L).embedding(L.tensor([0.0, 1.0]), t(L, 5, 3)),
    "batchnorm_channels": lambda L: L.nn.BatchNorm2d(3)(t(L, 2, 4, 2, 2)),
    "batchnorm1d_channels": lambda L: L.nn.BatchNorm1d(3)(t(L, 2, 4)),
    "batchnorm1d_rank": lambda L: L.nn.BatchNorm1d(3)(t(L, 2, 3, 4, 5)),
    "batchnorm2d_rank": lambda L: L.nn.BatchNorm2d(3)(t(L, 2, 3)),
    "batchnorm_one_value": lambda L: L.nn.BatchNorm1d(3)(t(L, 1, 3)),
    "F_batch_norm_order": lambda L: F(L).batch_norm(
        t(L, 2, 4), t(L, 3), t(L, 3), t(L, 5), training=True
    ),
    "F_batch_norm_weight": lambda L: F(L).batch_norm(t(L, 2, 3), t(L, 3), t(L, 3), t(L, 5)),
    "F_batch_norm_running": lambda L: F(L).batch_norm(t(L, 2, 3), t(L, 4), t(L, 3)),
    "max_pool2d_too_big": lambda L: F(L).max_pool2d(t(L, 1, 1, 2, 2), 3),
    "max_pool2d_too_big_module": lambda L: L.nn.MaxPool2d(5)(t(L, 1, 1, 4, 4)),
    "max_pool1d_too_big": lambda L: F(L).max_pool1d(t(L, 1, 1, 2), 3),
    "avg_pool2d_too_big": lambda L: F(L).avg_pool2d(t(L, 1, 1, 2, 2), 3),
    "avg_pool1d_too_big": lambda L: F(L).avg_pool1d(t(L, 1, 1, 2), 3),
    "max_pool2d_pad_half": lambda L: F(L).max_pool2d(t(L, 1, 1, 4, 4), 2, padding=2),
    "adaptive_avg_pool2d_small": lambda L: F(L).adaptive_avg_pool2d(t(L, 1, 0, 2), 2),
    "adaptive_avg_pool2d_rank": lambda L: F(L).adaptive_avg_pool2d(t(L, 2), 2),
    "adaptive_avg_pool2d_empty": lambda L: F(L).adaptive_avg_pool2d(t(L, 1, 1, 0, 2), 2),
    "adaptive_max_pool2d_empty": lambda L: F(L).adaptive_max_pool2d(t(L, 1, 1, 0, 2), 2),
    "pad_reflect_too_big": lambda L: F(L).pad(t(L, 1, 1, 3), (3, 0), mode="reflect"),
    "pad_reflect_too_big_2d": lambda L: F(L).pad(t(L, 1, 1, 3, 3), (1, 1, 3, 3), mode="reflect"),
    "ReflectionPad2d_too_big": lambda L: L.nn.ReflectionPad2d(4)(t(L, 1, 1, 3, 3)),
    "pad_circular_too_big": lambda L: F(L).pad(t(L, 1, 1, 3), (4, 0), mode="circular"),
    "pad_odd_length": lambda L: F(L).pad(t(L, 1, 1, 3), (1, 1, 1)),
    "interpolate_neither": lambda L: F(L).interpolate(t(L, 1, 1, 3)),
    "interpolate_both": lambda L: F(L).interpolate(t(L, 1, 1, 3), size=4, scale_factor=2),
    "interpolate_bad_mode_rank": lambda L: F(L).interpolate(t(L, 1, 1, 3), size=4, mode="bilinear"),
    "Upsample_neither": lambda L: L.nn.Upsample()(t(L, 1, 1, 3)),
    "state_dict_size_mismatch": lambda L: L.nn.Linear(3, 2).load_state_dict(
        L.nn.Linear(4, 2).state_dict()
    ),
    "state_dict_size_mismatch_seq": lambda L: L.nn.Sequential(
        L.nn.Linear(3, 2), L.nn.ReLU(), L.nn.Linear(2, 1)
    ).load_state_dict(
        L.nn.Sequential(L.nn.Linear(3, 5), L.nn.ReLU(), L.nn.Linear(5, 1)).state_dict()
    ),
    "state_dict_missing": lambda L: L.nn.Linear(3, 2).load_state_dict({"weight": t(L, 2, 3)}),
    "state_dict_mismatch_and_missing": lambda L: L.nn.Linear(3, 2).load_state_dict(
        {"weight": t(L, 2, 4), "foo": t(L, 1)}
    ),
    "lin_in64_w32": lambda L: F(L).linear(t(L, 2, 4, dtype=L.float64), t(L, 3, 4)),
    "lin_in64_w32_bias": lambda L: F(L).linear(t(L, 2, 4, dtype=L.float64), t(L, 3, 4), t(L, 3)),
    "lin_in64_w32_b64": lambda L: F(L).linear(
        t(L, 2, 4, dtype=L.float64), t(L, 3, 4), t(L, 3, dtype=L.float64)
    ),
    "lin_1d": lambda L: F(L).linear(t(L, 4, dtype=L.float64), t(L, 3, 4)),
    "lin_1d_b": lambda L: F(L).linear(t(L, 4, dtype=L.float64), t(L, 3, 4), t(L, 3)),
    "lin_3d": lambda L: F(L).linear(t(L, 2, 2, 4, dtype=L.float64), t(L, 3, 4)),
    "lin_3d_b": lambda L: F(L).linear(t(L, 2, 2, 4, dtype=L.float64), t(L, 3, 4), t(L, 3)),
    "lin_3d_w64": lambda L: F(L).linear(t(L, 2, 2, 4), t(L, 3, 4, dtype=L.float64), t(L, 3)),
    "lin_int": lambda L: F(L).linear(t(L, 2, 4, dtype=L.int64), t(L, 3, 4)),
    "lin_b_only": lambda L: F(L).linear(t(L, 2, 4), t(L, 3, 4), t(L, 3, dtype=L.float64)),
    "lin_3d_b_only": lambda L: F(L).linear(t(L, 2, 2, 4), t(L, 3, 4), t(L, 3, dtype=L.float64)),
    "lin_1d_b_only": lambda L: F(L).linear(t(L, 4), t(L, 3, 4), t(L, 3, dtype=L.float64)),
    "lin_bias_shape": lambda L: F(L).linear(t(L, 2, 4), t(L, 3, 4), t(L, 2)),
    "aap_1": lambda L: F(L).adaptive_avg_pool2d(t(L, 2, 2), 2),
    "aap_1d": lambda L: F(L).adaptive_avg_pool2d(t(L, 3), 2),
    "aap_neg": lambda L: F(L).adaptive_avg_pool2d(t(L, 1, 1, 2, 2), -1),
    "aap_triple": lambda L: F(L).adaptive_avg_pool2d(t(L, 1, 1, 2, 2), (1, 2, 3)),
    "aap1d_small": lambda L: F(L).adaptive_avg_pool1d(t(L, 2), 2),
    "aap1d_0": lambda L: F(L).adaptive_avg_pool1d(t(L, 1, 2, 0), 2),
    "aap3d_small": lambda L: F(L).adaptive_avg_pool3d(t(L, 2, 2), 2),
    "amp2d_small": lambda L: F(L).adaptive_max_pool2d(t(L, 2), 2),
    "AAP2d_mod_small": lambda L: L.nn.AdaptiveAvgPool2d(2)(t(L, 3)),
    "bn_w": lambda L: F(L).batch_norm(t(L, 2, 4), t(L, 4), t(L, 4), t(L, 5)),
    "bn_b": lambda L: F(L).batch_norm(t(L, 2, 4), t(L, 4), t(L, 4), t(L, 4), t(L, 5)),
    "bn_rv": lambda L: F(L).batch_norm(t(L, 2, 4), t(L, 4), t(L, 3)),
    "bn_none_running_train": lambda L: F(L).batch_norm(
        t(L, 2, 4), None, None, t(L, 5), training=True
    ),
    "bn_none_running_eval": lambda L: F(L).batch_norm(t(L, 2, 4), None, None, training=False),
    "bn_w_b_bad": lambda L: F(L).batch_norm(
        t(L, 2, 4), t(L, 3), t(L, 3), t(L, 5), t(L, 6), training=True
    ),
    "bn_eval_order": lambda L: F(L).batch_norm(
        t(L, 2, 4), t(L, 3), t(L, 3), t(L, 5), training=False
    ),
    "bn_1d_input": lambda L: F(L).batch_norm(t(L, 4), t(L, 4), t(L, 4), training=True),
    "bn_one_value": lambda L: F(L).batch_norm(t(L, 1, 4), t(L, 4), t(L, 4), training=True),
    "bn_dtype_then_size": lambda L: F(L).batch_norm(
        t(L, 2, 4), t(L, 4, dtype=L.float64), t(L, 4), t(L, 3), training=True
    ),
    "bn_dtype_w": lambda L: F(L).batch_norm(
        t(L, 2, 4), t(L, 4), t(L, 4), t(L, 4, dtype=L.float64), training=True
    ),
    "bn_dtype_rm_eval": lambda L: F(L).batch_norm(
        t(L, 2, 4), t(L, 4, dtype=L.float64), t(L, 4), training=False
    ),
    "aap_small_spatial": lambda L: F(L).adaptive_avg_pool2d(t(L, 1, 2), 2),
    "aap_2d_2": lambda L: F(L).adaptive_avg_pool2d(t(L, 2, 3), (1,)),
    "AdaptiveAvgPool2d_1d": lambda L: L.nn.AdaptiveAvgPool2d((5, 7))(t(L, 3)),
    "AdaptiveAvgPool2d_2d": lambda L: L.nn.AdaptiveAvgPool2d((5, 7))(t(L, 3, 4)),
    "AdaptiveAvgPool1d_1d": lambda L: L.nn.AdaptiveAvgPool1d(5)(t(L, 3)),
    "AdaptiveMaxPool2d_1d": lambda L: L.nn.AdaptiveMaxPool2d(2)(t(L, 3)),
    "AdaptiveAvgPool2d_none": lambda L: L.nn.AdaptiveAvgPool2d((None, 2))(t(L, 3)),
}


# the matrix products behind Linear: addmm, addbmm, addmv and baddbmm do not promote (each
# with its own message and order of checks)
PRODUCTS = {
    "addmm": ((3,), (2, 4), (4, 3)),
    "addbmm": ((3, 3), (2, 3, 4), (2, 4, 3)),
    "addmv": ((3,), (3, 4), (4,)),
    "baddbmm": ((2, 3, 3), (2, 3, 4), (2, 4, 3)),
}
DTYPES = ("float32", "float64", "int64")
for _name, _shapes in PRODUCTS.items():
    for _dts in itertools.product(DTYPES, repeat=3):
        if len(set(_dts)) > 1:
            CASES[f"{_name}_{'_'.join(_dts)}"] = (
                lambda n, s, d: (
                    lambda L: getattr(L, n)(
                        *[t(L, *shape, dtype=getattr(L, dt)) for shape, dt in zip(s, d)]
                    )
                )
            )(_name, _shapes, _dts)
for _dt in ("int64", "int32", "int16", "int8", "uint8", "bool", "float16", "float64"):
    CASES[f"mm_{_dt}_float32"] = (
        lambda d: lambda L: L.mm(t(L, 2, 4, dtype=getattr(L, d)), t(L, 4, 3))
    )(_dt)
    CASES[f"linear_bias_{_dt}_float32"] = (
        lambda d: lambda L: F(L).linear(t(L, 2, 4, dtype=getattr(L, d)), t(L, 3, 4), t(L, 3))
    )(_dt)


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_error_as_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_same_error(CASES[name])


# no error in PyTorch either (output size 1 takes the mean without checking the input; a
# 1-D weight is a dot product; output size 0 is empty)
NO_ERROR = {
    "lin_w1d": lambda L: F(L).linear(t(L, 2, 4), t(L, 4)),
    "aap_zero_out": lambda L: F(L).adaptive_avg_pool2d(t(L, 1, 1, 2, 2), 0),
    "aap_small_spatial3": lambda L: F(L).adaptive_avg_pool2d(t(L, 2, 1, 2), (3, 3)),
    "aap_4": lambda L: F(L).adaptive_avg_pool2d(t(L, 1, 1, 0, 0), 1),
    "aap_5d": lambda L: F(L).adaptive_avg_pool2d(t(L, 1, 1, 1, 2, 2), 1),
}


@pytest.mark.parametrize("name", sorted(NO_ERROR))
def test_no_error_where_torch_has_none(name):
    compare(NO_ERROR[name])
