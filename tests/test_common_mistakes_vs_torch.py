"""The errors a PyTorch user meets every day (wrong shapes, dtypes, autograd and module
misuse): chainrule raises PyTorch 2.13's exception type with its exact message.

Each case is a small program run under both libraries, with ``torch``, ``nn`` and ``F``
bound to the library under test."""

from __future__ import annotations

import pytest
import torch

import chainrule as cr

# ----- shapes -----------------------------------------------------------------------------

SHAPES = {
    "matmul_inner": "torch.randn(2, 3) @ torch.randn(4, 5)",
    "matmul_1d": "torch.matmul(torch.randn(3), torch.randn(4))",
    "matmul_batch": "torch.matmul(torch.randn(2, 2, 3), torch.randn(3, 4, 5))",
    "mm_3d": "torch.mm(torch.randn(2, 3, 4), torch.randn(4, 5))",
    "bmm_2d": "torch.bmm(torch.randn(2, 3), torch.randn(3, 4))",
    "bmm_batch": "torch.bmm(torch.randn(2, 3, 4), torch.randn(3, 4, 5))",
    "linear_in_features": "nn.Linear(10, 5)(torch.randn(4, 8))",
    "conv2d_channels": "nn.Conv2d(3, 8, 3)(torch.randn(1, 4, 10, 10))",
    "conv2d_dims": "nn.Conv2d(3, 8, 3)(torch.randn(10, 10))",
    "conv1d_small": "nn.Conv1d(3, 4, 5)(torch.randn(1, 3, 3))",
    "conv3d_channels": "nn.Conv3d(3, 8, 3)(torch.randn(1, 4, 5, 5, 5))",
    "convT2d_channels": "nn.ConvTranspose2d(3, 8, 3)(torch.randn(1, 4, 5, 5))",
    "batch_norm_features": "nn.BatchNorm1d(5)(torch.randn(4, 6))",
    "batch_norm_dims": "nn.BatchNorm2d(5)(torch.randn(4, 5))",
    "batch_norm_one_value": "nn.BatchNorm1d(5)(torch.randn(1, 5))",
    "layer_norm_shape": "nn.LayerNorm(5)(torch.randn(4, 6))",
    "embedding_out_of_range": "nn.Embedding(10, 3)(torch.tensor([10]))",
    "cross_entropy_batch": "F.cross_entropy(torch.randn(4, 5), torch.tensor([1, 2, 3]))",
    "cross_entropy_class": "F.cross_entropy(torch.randn(4, 5), torch.tensor([1, 2, 3, 5]))",
    "nll_loss_target_2d": "F.nll_loss(torch.randn(4, 5), torch.tensor([[1], [2], [3], [0]]))",
    "cat_sizes": "torch.cat([torch.randn(2, 3), torch.randn(2, 4)])",
    "stack_sizes": "torch.stack([torch.randn(2, 3), torch.randn(2, 4)])",
    "view_size": "torch.randn(2, 3).view(4)",
    "view_two_inferred": "torch.randn(2, 3).view(-1, -1)",
    "view_negative_size": "torch.randn(2, 3).view(-2, 3)",
    "reshape_negative_size": "torch.randn(2, 3).reshape(3, -3)",
    "expand_size": "torch.randn(2, 3).expand(4, 3)",
    "expand_last_dim_first": "torch.randn(2, 3).expand(3, 2)",
    "expand_leading": "torch.randn(2, 3).expand(1, 3, 2)",
    "broadcast_add": "torch.randn(2, 3) + torch.randn(4)",
    "broadcast_inplace": "a = torch.randn(3); a.add_(torch.randn(2, 3))",
    "getitem_out_of_range": "torch.randn(3)[3]",
    "getitem_0d": "torch.tensor(1.)[0]",
    "max_pool_dims": "nn.MaxPool2d(2)(torch.randn(4))",
    "lstm_input_size": "nn.LSTM(10, 20)(torch.randn(5, 3, 8))",
    "transpose_dim": "torch.randn(2, 3).transpose(0, 2)",
    "sum_dim": "torch.randn(2, 3).sum(2)",
}

# x[key] = value where value does not fit: a basic key copies (expand's error), an
# advanced one puts (index_put's shape mismatch, leading size-1 dims of value dropped)
SETITEM = {
    "int_key": ("0", "torch.randn(3)"),
    "slice_key_extra_dims": ("slice(0, 2)", "torch.randn(5, 2, 4)"),
    "last_dim_first": ("(slice(None), slice(1, 3))", "torch.randn(2, 3)"),
    "whole": ("slice(None)", "torch.randn(2, 3)"),
    "ellipsis": ("Ellipsis", "torch.randn(4, 4)"),
    "leading_ones": ("0", "torch.randn(1, 1, 3)"),
    "list_key": ("[0, 1]", "torch.randn(1, 1, 3)"),
    "int_and_list": ("(0, [0, 1])", "torch.randn(4)"),
    "bool_mask": ("a > 0", "torch.randn(2, 3)"),
}
SETITEM_INPUTS = {
    "plain": "a = torch.arange(12.).reshape(3, 4) - 5",
    "recorded": "a = (torch.arange(12.).reshape(3, 4) - 5).requires_grad_() * 1",
    "float64": "a = torch.arange(12., dtype=torch.float64).reshape(3, 4) - 5",
}

INDEX_OPS = {
    "index_select_float": "torch.zeros(3, 4).index_select(0, torch.tensor([1.]))",
    "index_add_float": "torch.zeros(3, 4).index_add(0, torch.tensor([1.]), torch.ones(1, 4))",
    "index_add_matrix": "torch.zeros(3).index_add(0, torch.tensor([[0]]), torch.ones(1))",
    "index_add_range_1d": "torch.zeros(3).index_add(0, torch.tensor([3]), torch.ones(1))",
    "index_add_range_first": "torch.zeros(3, 4).index_add(0, torch.tensor([3]), torch.ones(1, 4))",
    "index_add_range_mid": "torch.zeros(2, 3, 4).index_add(1, torch.tensor([3]), "
    "torch.ones(2, 1, 4))",
    "index_copy_int32": "torch.zeros(3).index_copy(0, torch.tensor([1], dtype=torch.int32), "
    "torch.ones(1))",
    "index_copy_matrix": "torch.zeros(3).index_copy(0, torch.tensor([[0]]), torch.ones(1))",
    "index_copy_negative": "torch.zeros(3).index_copy(0, torch.tensor([-1]), torch.ones(1))",
    "index_copy_count": "torch.zeros(3, 4).index_copy(1, torch.tensor([0]), torch.ones(3, 2))",
    "index_copy_dims": "torch.zeros(3, 4).index_copy(1, torch.tensor([0]), torch.ones(4))",
    "index_copy_dtype_first": "torch.zeros(3, 4, dtype=torch.float64).index_copy(1, "
    "torch.tensor([5]), torch.ones(3, 2))",
    "index_fill_int32": "torch.zeros(3).index_fill(0, torch.tensor([1], dtype=torch.int32), 1.)",
    "index_fill_matrix": "torch.zeros(3).index_fill(0, torch.tensor([[0]]), 1.)",
    "gather_dims": "torch.gather(torch.randn(3, 4), 1, torch.tensor([1]))",
    "gather_size": "torch.gather(torch.randn(3, 4), 1, torch.zeros(5, 5, dtype=torch.long))",
    "scatter_dims": "torch.zeros(3, 4).scatter(1, torch.tensor([1]), 1.)",
    "scatter_src_small": "torch.zeros(3, 4).scatter(1, torch.zeros(3, 2, dtype=torch.long), "
    "torch.randn(3, 1))",
    "scatter_index_big": "torch.zeros(3, 4).scatter(0, torch.zeros(5, 5, dtype=torch.long), "
    "torch.ones(1, 1))",
    "scatter_value_big": "torch.zeros(3, 4).scatter(1, torch.zeros(5, 1, dtype=torch.long), 1.)",
    "scatter_add_big": "torch.zeros(3, 4).scatter_add(1, torch.zeros(5, 5, dtype=torch.long), "
    "torch.ones(1, 1))",
    "masked_fill_float_mask": "torch.randn(3).masked_fill(torch.ones(3), 0.)",
    "masked_fill_long_mask": "torch.randn(3).masked_fill(torch.ones(3, dtype=torch.long), 0.)",
    "masked_scatter_float_mask": "torch.ones(2).masked_scatter(torch.ones(2), torch.ones(2))",
}

# ----- dtypes -----------------------------------------------------------------------------


def _matmul_dtype_cases() -> dict:
    shapes = [(2, 2), (2,), (2, 2, 2), (1, 2, 2), (3, 2, 2)]
    pairs = [("long", "float"), ("float", "float64"), ("int32", "float")]
    out = {}
    for sa, sb in [(a, b) for a in shapes for b in shapes if (a, b) != ((2,), (2,))]:
        if sa == (1, 2, 2) and sb == (3, 2, 2) or len(sa) + len(sb) <= 6:
            for a, b in pairs:
                out[f"matmul_{sa}_{sb}_{a}_{b}"] = (
                    f"torch.ones({sa}, dtype=torch.{a}) @ torch.ones({sb}, dtype=torch.{b})"
                )
    return out


DTYPES = {
    **_matmul_dtype_cases(),
    "mm_long_float": "torch.mm(torch.ones(2, 2, dtype=torch.long), torch.ones(2, 2))",
    "dot_long_float": "torch.dot(torch.ones(2, dtype=torch.long), torch.ones(2))",
    "linear_float64": "nn.Linear(3, 2)(torch.randn(4, 3, dtype=torch.float64))",
    "cross_entropy_float_target": "F.cross_entropy(torch.randn(4, 5), torch.tensor([1., 2., 3., 0.]))",
    "nll_loss_float_target": "F.nll_loss(torch.randn(4, 5), torch.tensor([1., 2., 3., 0.]))",
    "embedding_float_indices": "nn.Embedding(10, 3)(torch.tensor([1., 2.]))",
    "index_float_tensor": "torch.randn(3)[torch.tensor([1.])]",
    "bool_neg": "-torch.tensor([True, False])",
    "bool_sub": "torch.tensor([True]) - torch.tensor([False])",
    "int_requires_grad": "torch.tensor([1, 2], requires_grad=True)",
    "int_add_float_inplace": "a = torch.tensor([1, 2]); a.add_(1.5)",
    "int_div_inplace": "a = torch.tensor([1, 2]); a /= 2",
    "view_noncontiguous": "torch.randn(2, 3).t().view(6)",
    "numpy_requires_grad": "torch.randn(3, requires_grad=True).numpy()",
    "zeros_negative": "torch.zeros(2, -1)",
    "ones_negative": "torch.ones(-2, -3)",
    "full_negative": "torch.full((2, -1), 1.)",
    "empty_negative": "torch.empty(-1)",
    "new_zeros_negative": "torch.ones(1).new_zeros((2, -1))",
    "linear_negative": "nn.Linear(-1, 2)",
    "eye_negative": "torch.eye(-1)",
    "eye_negative_m": "torch.eye(2, -1)",
}


def _conv_dtype_cases() -> dict:
    out = {}
    for dt in ("long", "float64", "half", "bfloat16"):
        for nd in (1, 2, 3):
            for bias in ("torch.ones(4)", "None"):
                x = f"torch.ones((1, 3) + (5,) * {nd}, dtype=torch.{dt})"
                w, wt = f"torch.ones((4, 3) + (3,) * {nd})", f"torch.ones((3, 4) + (3,) * {nd})"
                key = f"{dt}_{nd}d_{bias != 'None'}"
                out[f"conv_{key}"] = f"F.conv{nd}d({x}, {w}, {bias})"
                out[f"conv_transpose_{key}"] = f"F.conv_transpose{nd}d({x}, {wt}, {bias})"
                out[f"convolution_{key}"] = (
                    f"torch.convolution({x}, {w}, {bias}, [1] * {nd}, [0] * {nd}, [1] * {nd}, "
                    f"False, [0] * {nd}, 1)"
                )
    return out


CONV_DTYPES = _conv_dtype_cases()

# ----- autograd ---------------------------------------------------------------------------

LEAF = "x = torch.randn(3, requires_grad=True); "
AUTOGRAD = {
    "backward_twice": LEAF + "y = (x * x).sum(); y.backward(); y.backward()",
    "backward_twice_exp": LEAF + "y = x.exp().sum(); y.backward(); y.backward()",
    "backward_non_scalar": LEAF + "(x * 2).backward()",
    "grad_non_scalar": LEAF + "torch.autograd.grad(x * 2, x)",
    "backward_gradient_shape": LEAF + "(x * 2).backward(torch.ones(4))",
    "backward_no_grad_fn": "torch.randn(3).sum().backward()",
    "grad_input_not_requiring": LEAF + "torch.autograd.grad((x * 2).sum(), torch.randn(3))",
    "grad_unused": LEAF + "z = torch.randn(3, requires_grad=True); "
    "torch.autograd.grad((x * 2).sum(), [x, z])",
    "inplace_leaf": LEAF + "x.add_(1)",
    "inplace_view_of_leaf": LEAF + "v = x[:2]; v.add_(1)",
    "inplace_split_output": LEAF + "a, b = (x * 1)[:2].split(1); a.mul_(2)",
    "inplace_chunk_output": LEAF + "a, b = (x * 1)[:2].chunk(2); b.mul_(2)",
    "inplace_split_sizes_output": LEAF + "a, b = (x * 1).split([1, 2]); b.mul_(2)",
    "inplace_unbind_output": "x = torch.randn(2, 3, requires_grad=True); a, b = x.unbind(); "
    "a.mul_(2)",
    "inplace_saved_exp": LEAF + "y = x.exp(); y.add_(1); y.sum().backward()",
    "inplace_saved_twice": LEAF + "a = x * 1; y = a * a; a.add_(1); a.add_(1); y.sum().backward()",
    "inplace_saved_setitem": LEAF + "a = x * 2; y = a * a; a[0] = 0; y.sum().backward()",
    "backward_in_no_grad": LEAF + "\nwith torch.no_grad():\n    (x * 2).sum().backward()",
    "backward_of_no_grad": LEAF + "\nwith torch.no_grad():\n    y = (x * 2).sum()\ny.backward()",
    "item_of_many": "torch.randn(3).item()",
    "bool_of_many": "bool(torch.randn(3))",
    "if_of_many": "if torch.randn(3) > 0:\n    pass",
    "len_0d": "len(torch.tensor(1.))",
    "iter_0d": "for v in torch.tensor(1.):\n    pass",
    "grad_shape": LEAF + "x.grad = torch.randn(4)",
    "requires_grad_non_leaf": LEAF + "y = x * 2; y.requires_grad = False",
}

# ----- modules, optimizers, data ----------------------------------------------------------

NET = (
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(3, 2)\n"
    "        self.bn = nn.BatchNorm1d(2)\n"
    "net = Net()\nsd = net.state_dict()\n"
)
MODULES = {
    "call_too_many": "nn.Linear(3, 2)(torch.randn(3), torch.randn(3))",
    "call_none": "nn.Linear(3, 2)()",
    "forward_missing": "class A(nn.Module):\n    pass\nA()(torch.randn(2))",
    "state_dict_missing": NET + "del sd['fc.weight']; net.load_state_dict(sd)",
    "state_dict_unexpected": NET + "sd['foo'] = torch.zeros(1); net.load_state_dict(sd)",
    "state_dict_shape": NET + "sd['fc.weight'] = torch.zeros(3, 3); net.load_state_dict(sd)",
    "state_dict_shape_not_strict": NET + "sd['fc.weight'] = torch.zeros(3, 3); "
    "net.load_state_dict(sd, strict=False)",
    "state_dict_all": NET + "sd['fc.weight'] = torch.zeros(3, 3); del sd['fc.bias']; "
    "sd['x.y'] = torch.ones(1); net.load_state_dict(sd)",
    "parameter_from_tensor": "m = nn.Linear(3, 2); m.weight = torch.randn(2, 3)",
    "buffer_dotted_name": "nn.Module().register_buffer('a.b', torch.ones(1))",
    "buffer_empty_name": "nn.Module().register_buffer('', torch.ones(1))",
    "buffer_existing": "nn.Linear(2, 2).register_buffer('weight', torch.ones(1))",
    "buffer_before_init": "class A(nn.Module):\n    def __init__(self):\n"
    "        self.register_buffer('a', torch.ones(1))\nA()",
    "parameter_not_parameter": "nn.Module().register_parameter('a', torch.ones(1))",
    "optimizer_empty": "torch.optim.SGD([], lr=0.1)",
    "optimizer_tensor": "torch.optim.SGD(torch.randn(3, requires_grad=True), lr=0.1)",
    "optimizer_negative_lr": "torch.optim.Adam(nn.Linear(2, 2).parameters(), lr=-1)",
    "optimizer_beta": "torch.optim.Adam(nn.Linear(2, 2).parameters(), betas=(1.5, 0.9))",
    "optimizer_unknown_kwarg": "torch.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1, foo=1)",
    "data_loader_batch_size_0": "torch.utils.data.DataLoader(list(range(10)), batch_size=0)",
    "data_loader_batch_size_neg": "torch.utils.data.DataLoader(list(range(10)), batch_size=-1)",
    "data_loader_unknown_kwarg": "torch.utils.data.DataLoader(list(range(10)), batchsize=2)",
    "linear_unknown_kwarg": "nn.Linear(3, 2, biass=False)",
}


def _run(code: str, lib) -> Exception:
    names = {"torch": lib, "nn": lib.nn, "F": lib.nn.functional}
    with pytest.raises(Exception) as info:  # noqa: B017 - the type is compared by the caller
        exec(code, names)
    return info.value


def _same_error(code: str) -> None:
    want, got = _run(code, torch), _run(code, cr)
    assert (type(got).__name__, str(got)) == (type(want).__name__, str(want))


ALL = {
    **{f"shape_{k}": v for k, v in SHAPES.items()},
    **{f"index_{k}": v for k, v in INDEX_OPS.items()},
    **{f"dtype_{k}": v for k, v in DTYPES.items()},
    **{f"conv_{k}": v for k, v in CONV_DTYPES.items()},
    **{f"autograd_{k}": v for k, v in AUTOGRAD.items()},
    **{f"module_{k}": v for k, v in MODULES.items()},
    **{
        f"setitem_{i}_{k}": f"{pre}; a[{key}] = {value}"
        for i, pre in SETITEM_INPUTS.items()
        for k, (key, value) in SETITEM.items()
    },
}


@pytest.mark.parametrize("name", list(ALL))
def test_same_error_as_torch(name):
    _same_error(ALL[name])


def test_one_element_under_a_bool_mask_is_a_fill_of_any_dtype():
    """x[mask] = a one-element tensor of another dtype fills (no dtype error), as in torch."""
    for lib in (torch, cr):
        a = lib.arange(6.0, dtype=lib.float64) - 2
        a[a > 0] = lib.tensor([7.0])
        assert a.tolist() == [-2.0, -1.0, 0.0, 7.0, 7.0, 7.0]
