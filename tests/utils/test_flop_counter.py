"""torch.utils.flop_counter: FlopCounterMode's counts by module and op, forward and backward,
against PyTorch's for the products, convolutions and attention it counts (matmul as PyTorch
decomposes it, Linear, convolutions, scaled_dot_product_attention, MultiheadAttention, a
CNN, a transformer encoder layer); the table it prints; the formula helpers;
register_flop_formula and custom_mapping; nesting with itself and with the profiler."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.utils.flop_counter

import chainrule as cr
import chainrule.utils.flop_counter

LIBS = (cr, torch)


def R(lib, *shape, grad=False):  # noqa: N802 - a tensor of the given shape
    return lib.randn(*shape, requires_grad=grad)


def counted(lib, fn, **kwargs):
    """The total and the counts ({module: {op as printed: flops}}) of ``fn(lib)``."""
    mode = lib.utils.flop_counter.FlopCounterMode(display=False, **kwargs)
    with mode:
        fn(lib)
    counts = mode.get_flop_counts()
    return mode.get_total_flops(), {
        m: {str(op): n for op, n in c.items()} for m, c in counts.items()
    }


def same_counts(fn, **kwargs):
    """The counts of ``fn`` in chainrule, which equal PyTorch's."""
    ours, theirs = (counted(lib, fn, **kwargs) for lib in LIBS)
    assert ours == theirs
    return ours


def backward(y):
    y.sum().backward()


# ----- matmul, as PyTorch decomposes it ---------------------------------------------------

MATMUL_SHAPES = [
    ((3, 4), (4, 5)),
    ((4,), (4,)),
    ((3, 4), (4,)),
    ((4,), (4, 5)),
    ((2, 3, 4), (4, 5)),
    ((2, 3, 4), (4,)),
    ((4,), (2, 4, 5)),
    ((3, 4), (2, 4, 5)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((2, 3, 4), (1, 4, 5)),
    ((1, 3, 4), (2, 4, 5)),
    ((1, 3, 4), (1, 4, 5)),
    ((2, 2, 3, 4), (1, 4, 5)),
]


@pytest.mark.parametrize("grads", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("sa, sb", MATMUL_SHAPES)
def test_matmul_counts_mm_bmm_as_torch_decomposes_it(sa, sb, grads):
    def fn(lib):
        y = lib.matmul(R(lib, *sa, grad=grads[0]), R(lib, *sb, grad=grads[1]))
        if y.requires_grad:
            backward(y)

    same_counts(fn)


def test_matmul_of_non_contiguous_batches_is_bmm():
    total, counts = same_counts(lambda lib: R(lib, 3, 2, 4).transpose(0, 1) @ R(lib, 4, 5))
    assert counts == {"Global": {"aten.bmm": 240}}
    same_counts(lambda lib: lib.matmul(R(lib, 2, 4, 3).transpose(1, 2), R(lib, 4, 5)))
    same_counts(lambda lib: lib.matmul(R(lib, 4), R(lib, 2, 5, 4).transpose(1, 2)))


def test_x_at_w_forward_and_backward():
    total, counts = same_counts(
        lambda lib: backward(R(lib, 3, 4, grad=True) @ R(lib, 4, 5, grad=True))
    )
    assert (total, counts) == (360, {"Global": {"aten.mm": 360}})


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: backward(lib.mm(R(lib, 3, 4, grad=True), R(lib, 4, 5, grad=True))),
        lambda lib: backward(
            lib.addmm(R(lib, 5, grad=True), R(lib, 3, 4, grad=True), R(lib, 4, 5))
        ),
        lambda lib: backward(
            lib.addmm(
                R(lib, 3, 5), R(lib, 3, 4, grad=True), R(lib, 4, 5, grad=True), beta=0.5, alpha=2
            )
        ),
        lambda lib: backward(lib.bmm(R(lib, 2, 3, 4, grad=True), R(lib, 2, 4, 5, grad=True))),
        lambda lib: backward(
            lib.baddbmm(R(lib, 2, 3, 5, grad=True), R(lib, 2, 3, 4), R(lib, 2, 4, 5, grad=True))
        ),
        lambda lib: lib.addmm(R(lib, 5), R(lib, 3, 4), R(lib, 4, 5)),
    ],
    ids=["mm", "addmm", "addmm_beta_alpha", "bmm", "baddbmm", "addmm_no_grad"],
)
def test_products(fn):
    same_counts(fn)


# ----- Linear and models ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, x_grad, bias",
    [
        ((5, 8), False, True),
        ((5, 8), True, True),
        ((2, 5, 8), True, True),
        ((2, 3, 5, 8), False, True),
        ((8,), True, True),
        ((5, 8), True, False),
        ((2, 5, 8), True, False),
    ],
)
def test_linear_counts_addmm_forward_mm_backward(shape, x_grad, bias):
    def fn(lib):
        layer = lib.nn.Linear(8, 16, bias=bias)
        backward(layer(R(lib, *shape, grad=x_grad)))

    total, counts = same_counts(fn)
    assert set(counts) == {"Global", "Linear"}


def test_linear_input_not_requiring_grad_counts_only_the_weight_gradient():
    total, counts = same_counts(lambda lib: backward(lib.nn.Linear(8, 16)(R(lib, 5, 8))))
    assert counts["Linear"] == {"aten.addmm": 1280, "aten.mm": 1280}


def test_functional_linear_and_no_grad():
    same_counts(
        lambda lib: backward(
            lib.nn.functional.linear(R(lib, 5, 8, grad=True), R(lib, 16, 8, grad=True))
        )
    )

    def fn(lib):
        with lib.no_grad():
            lib.nn.Linear(8, 16)(R(lib, 5, 8))

    same_counts(fn)


class MLP:
    """The same model in either library."""

    def __new__(cls, lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.layer1 = lib.nn.Linear(8, 16)
                self.act = lib.nn.ReLU()
                self.layer2 = lib.nn.Linear(16, 4)

            def forward(self, x):
                return self.layer2(self.act(self.layer1(x)))

        return Net()


def test_mlp_forward_and_backward_by_module():
    total, counts = same_counts(lambda lib: backward(MLP(lib)(R(lib, 5, 8))))
    assert total == 4480
    assert counts["Net.layer1"] == {"aten.addmm": 1280, "aten.mm": 1280}
    assert counts["Net.layer2"] == {"aten.addmm": 640, "aten.mm": 1280}


def test_autograd_grad_of_one_parameter():
    def fn(lib):
        layer = lib.nn.Linear(8, 16)
        lib.autograd.grad(layer(R(lib, 5, 8)).sum(), layer.weight)

    same_counts(fn)


def test_counts_keyed_by_packets_that_print_as_torchs():
    for lib in LIBS:
        with lib.utils.flop_counter.FlopCounterMode(display=False) as mode:
            lib.mm(R(lib, 3, 4), R(lib, 4, 5))
        (op,) = mode.get_flop_counts()["Global"]
        assert (str(op), repr(op)) == ("aten.mm", "<OpOverloadPacket(op='aten.mm')>")
        assert mode.get_flop_counts()["Global"][lib.utils.flop_counter.aten.mm] == 120
        assert "aten.mm" not in mode.get_flop_counts()["Global"]


# ----- convolutions -----------------------------------------------------------------------------

CONVS = [
    ("Conv1d", (2, 3, 10), {}),
    ("Conv2d", (2, 3, 8, 8), {}),
    ("Conv3d", (2, 3, 5, 5, 5), {}),
    ("Conv2d", (2, 3, 8, 8), {"stride": 2, "padding": 1, "groups": 3, "bias": False}),
    ("Conv1d", (2, 3, 10), {"stride": 2, "padding": 1, "groups": 3, "bias": False}),
    ("ConvTranspose1d", (2, 3, 10), {"stride": 2}),
    ("ConvTranspose2d", (2, 3, 8, 8), {"stride": 2}),
    ("ConvTranspose3d", (2, 3, 5, 5, 5), {"stride": 2}),
]


@pytest.mark.parametrize(
    "x_grad, w_grad", [(False, True), (True, True), (True, False), (False, False)]
)
@pytest.mark.parametrize("name, shape, kwargs", CONVS)
def test_convolution_and_convolution_backward(name, shape, kwargs, x_grad, w_grad):
    def fn(lib):
        conv = getattr(lib.nn, name)(3, 6, 3, **kwargs)
        conv.weight.requires_grad_(w_grad)
        y = conv(R(lib, *shape, grad=x_grad))
        if y.requires_grad:
            backward(y)

    same_counts(fn)


def test_functional_conv2d():
    same_counts(
        lambda lib: backward(
            lib.nn.functional.conv2d(
                R(lib, 2, 3, 8, 8, grad=True), R(lib, 6, 3, 3, 3, grad=True), padding=1
            )
        )
    )


class CNN:
    def __new__(cls, lib):
        nn = lib.nn
        return nn.Sequential(
            nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 8, 3), nn.ReLU(),
            nn.Flatten(), nn.Linear(8, 10),
        )  # fmt: skip


def test_small_cnn_with_cross_entropy():
    def fn(lib):
        logits = CNN(lib)(R(lib, 3, 1, 8, 8))
        lib.nn.functional.cross_entropy(logits, lib.tensor([1, 2, 3])).backward()

    total, counts = same_counts(fn)
    assert set(counts) == {"Global", "Sequential", "Sequential.0", "Sequential.3", "Sequential.6"}


# ----- attention --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shapes, kwargs",
    [
        (((2, 4, 5, 8), (2, 4, 6, 8), (2, 4, 6, 7)), {}),  # (head sizes differ: the math)
        (((2, 4, 5, 8), (2, 4, 5, 8), (2, 4, 5, 8)), {"is_causal": True}),  # (the fused kernel)
        (((4, 5, 8), (4, 6, 8), (4, 6, 8)), {}),
        (((2, 4, 5, 8), (2, 4, 6, 8), (2, 4, 6, 8)), {"dropout_p": 0.5}),
        (((2, 4, 5, 8), (2, 4, 6, 8), (2, 4, 6, 8)), {"mask": (5, 6)}),
    ],
)
@pytest.mark.parametrize("grads", [(True, True, True), (True, False, False), (False, False, False)])
def test_scaled_dot_product_attention(shapes, kwargs, grads):
    def fn(lib):
        q, k, v = (R(lib, *s, grad=g) for s, g in zip(shapes, grads))
        options = dict(kwargs)
        if "mask" in options:
            options["attn_mask"] = R(lib, *options.pop("mask"))
        y = lib.nn.functional.scaled_dot_product_attention(q, k, v, **options)
        if y.requires_grad:
            backward(y)

    same_counts(fn)


@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention(need_weights):
    def fn(lib):
        mha = lib.nn.MultiheadAttention(16, 4)
        x = R(lib, 5, 2, 16)
        backward(mha(x, x, x, need_weights=need_weights)[0])

    total, counts = same_counts(fn)
    assert set(counts) == {"Global", "MultiheadAttention"}


def test_transformer_encoder_layer_backward_attributed_as_torch():
    """PyTorch's module tracking in backward (which keeps an identity dropout's name from
    there on) attributes the same flops to the same modules."""

    def fn(lib):
        layer = lib.nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0)
        x = R(lib, 5, 2, 16)
        backward(layer(x))
        lib.mm(R(lib, 3, 4), R(lib, 4, 5))  # after the backward: Global's alone
        backward(layer(x))

    total, counts = same_counts(fn)
    assert counts["TransformerEncoderLayer.linear1"] == {"aten.addmm": 20480, "aten.mm": 40960}


def test_transformer_encoder_layer_eval_no_grad():
    def fn(lib):
        layer = lib.nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0).eval()
        with lib.no_grad():
            layer(R(lib, 5, 2, 16))

    same_counts(fn)


# ----- the table --------------------------------------------------------------------------------

# printed by PyTorch 2.13 (with the tabulate package it needs for its table)
MLP_TABLE = """\
Module          FLOP    % Total
------------  ------  ---------
Net             4480    100.00%
- aten.addmm    1920     42.86%
- aten.mm       2560     57.14%
Net.layer1      2560     57.14%
- aten.addmm    1280     28.57%
- aten.mm       1280     28.57%
Net.layer2      1920     42.86%
- aten.addmm     640     14.29%
- aten.mm       1280     28.57%"""

MLP_GLOBAL_TABLE = """\
Module          FLOP    % Total
------------  ------  ---------
Global          4600    100.00%
- aten.addmm    1920     41.74%
- aten.mm       2680     58.26%
Net             4480     97.39%
- aten.addmm    1920     41.74%
- aten.mm       2560     55.65%"""

BIG_TABLE = """\
Module         FLOP    % Total
---------  --------  ---------
Global     120.000M    100.00%
- aten.mm  120.000M    100.00%"""

EMPTY_TABLE = """\
Module      FLOP    % Total
--------  ------  ---------
Global         0         0%"""


def test_table_printed_on_exit(capsys):
    model = MLP(cr)
    with cr.utils.flop_counter.FlopCounterMode() as mode:
        backward(model(R(cr, 5, 8)))
    assert capsys.readouterr().out == MLP_TABLE + "\n"
    assert mode.get_table() == MLP_TABLE
    assert mode.get_table(1) == MLP_TABLE.split("\nNet.layer1")[0]


def test_table_global_row_and_depths():
    model = MLP(cr)
    with cr.utils.flop_counter.FlopCounterMode(display=False) as mode:
        backward(model(R(cr, 5, 8)))
        cr.mm(R(cr, 3, 4), R(cr, 4, 5))
    assert mode.get_table(1) == MLP_GLOBAL_TABLE
    assert mode.get_table(0) == MLP_GLOBAL_TABLE.split("\nNet ")[0]


def test_table_suffix_and_empty(capsys):
    with cr.utils.flop_counter.FlopCounterMode(depth=1):
        cr.mm(R(cr, 300, 400), R(cr, 400, 500))
    with cr.utils.flop_counter.FlopCounterMode() as mode:
        cr.tensor([1.0]) + 1
    assert capsys.readouterr().out == BIG_TABLE + "\n" + EMPTY_TABLE + "\n"
    assert (mode.get_total_flops(), mode.get_flop_counts()) == (0, {"Global": {}})


# ----- the mode's behaviour ----------------------------------------------------------------------


def test_reentering_resets_counts_and_ops_outside_are_not_counted():
    for lib in LIBS:
        mode = lib.utils.flop_counter.FlopCounterMode(display=False)
        with mode:
            lib.mm(R(lib, 3, 4), R(lib, 4, 5))
        lib.mm(R(lib, 3, 4), R(lib, 4, 5))
        with mode:
            lib.mm(R(lib, 3, 4), R(lib, 4, 5))
        assert mode.get_total_flops() == 120


def test_mods_argument_warns():
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.utils.flop_counter.FlopCounterMode(mods=lib.nn.Linear(2, 2))
        assert [str(w.message) for w in caught] == [
            "mods argument is not needed anymore, you can stop passing it"
        ]


def test_nested_modes_both_count():
    def totals(lib):
        layer = lib.nn.Linear(8, 16)
        with lib.utils.flop_counter.FlopCounterMode(display=False) as outer:
            with lib.utils.flop_counter.FlopCounterMode(display=False) as inner:
                backward(layer(R(lib, 5, 8)))
            lib.mm(R(lib, 5, 8), R(lib, 8, 5))
        return outer.get_total_flops(), inner.get_total_flops()

    assert totals(cr) == totals(torch) == (2960, 2560)


def test_inside_a_profile_both_record():
    layer = cr.nn.Linear(8, 16)
    with cr.profiler.profile() as prof:
        with cr.utils.flop_counter.FlopCounterMode(display=False) as mode:
            backward(layer(R(cr, 5, 8)))
    assert mode.get_total_flops() == 2560
    assert "aten::addmm" in {e.name for e in prof.events()}


def test_a_profile_inside_pauses_counting_until_it_stops():
    """The profiler gives the op hook back when it stops: the mode counts again (the mm
    run inside the profile is not counted, the one after it is)."""
    with cr.utils.flop_counter.FlopCounterMode(display=False) as mode:
        with cr.profiler.profile():
            cr.mm(R(cr, 5, 8), R(cr, 8, 5))
        cr.mm(R(cr, 5, 8), R(cr, 8, 4))
    assert mode.get_total_flops() == 2 * 5 * 8 * 4


# ----- formulas and helpers -----------------------------------------------------------------------

HELPER_CALLS = [
    ("mm_flop", ([3, 4], [4, 5]), {}),
    ("addmm_flop", ([5], [3, 4], [4, 5]), {}),
    ("bmm_flop", ([2, 3, 4], [2, 4, 5]), {}),
    ("baddbmm_flop", ([2, 3, 5], [2, 3, 4], [2, 4, 5]), {}),
    ("conv_flop_count", ([2, 3, 8, 8], [6, 3, 3, 3], [2, 6, 6, 6]), {}),
    ("conv_flop_count", ([2, 3, 8, 8], [3, 6, 3, 3], [2, 6, 10, 10]), {"transposed": True}),
    ("sdpa_flop_count", ([2, 4, 5, 8], [2, 4, 6, 8], [2, 4, 6, 7]), {}),
    ("sdpa_flop", ([2, 4, 5, 8], [2, 4, 6, 8], [2, 4, 6, 7]), {}),
    ("sdpa_backward_flop_count", ([2, 4, 5, 7], [2, 4, 5, 8], [2, 4, 6, 8], [2, 4, 6, 7]), {}),
    ("sdpa_backward_flop", ([2, 4, 5, 7], [2, 4, 5, 8], [2, 4, 6, 8], [2, 4, 6, 7]), {}),
    ("mm_flop", ([3, 4], [5, 6]), {}),
    ("bmm_flop", ([2, 3, 4], [3, 4, 5]), {}),
    ("bmm_flop", ([2, 3, 4], [2, 5, 5]), {}),
    ("sdpa_flop_count", ([2, 4, 5, 8], [2, 4, 6, 9], [2, 4, 6, 7]), {}),
    ("sdpa_backward_flop_count", ([2, 4, 5, 7], [2, 4, 5, 8], [2, 4, 6, 8], [2, 4, 6, 9]), {}),
    ("get_suffix_str", (9999,), {}),
    ("convert_num_with_suffix", (5, "X"), {}),
]


def _outcome(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # (the type and message compared)
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("name, args, kwargs", HELPER_CALLS)
def test_formula_helpers(name, args, kwargs):
    ours, theirs = (
        _outcome(getattr(lib.utils.flop_counter, name), *args, **kwargs) for lib in LIBS
    )
    assert ours == theirs


def test_formulas_take_tensors_and_out_val():
    for lib in LIBS:
        fc = lib.utils.flop_counter
        a, b = lib.zeros(3, 4), lib.zeros(4, 5)
        assert fc.mm_flop(a, b, out_val=lib.zeros(3, 5)) == 120
        grads = (lib.zeros(2, 3, 8, 8), lib.zeros(6, 1, 3, 3), None)
        args = ([2, 6, 4, 4], [2, 3, 8, 8], [6, 1, 3, 3], None, [2, 2], [1, 1], [1, 1])
        flops = [
            fc.conv_backward_flop(*args, t, [0, 0], 3, mask, out_val=grads)
            for t in (False, True)
            for mask in ([True, False, False], [False, True, False], [True, True, True])
        ]
        assert flops == [3456, 10368, 13824, 13824, 41472, 55296]  # (PyTorch's)


def test_suffixes_and_percentages():
    numbers = [0, 1, 999, 9999, 10000, 999999, 1234567, 12345678, 10**9, 10**12, 10**15, 10**19]
    for lib in LIBS:
        fc = lib.utils.flop_counter
        got = [
            (fc.get_suffix_str(n), fc.convert_num_with_suffix(n, fc.get_suffix_str(n)))
            for n in numbers
        ]
        percents = [
            fc.convert_to_percent_str(a, b) for a, b in [(1, 3), (0, 0), (5, 0), (0, 5), (3, 2)]
        ]
        assert got[-4:] == [
            ("M", "1000.000M"),
            ("B", "1000.000B"),
            ("T", "1000.000T"),
            ("T", "10000000.000T"),
        ]
        assert percents == ["33.33%", "0%", "0%", "0.00%", "150.00%"]
        assert got[:5] == [
            ("", "0.000"),
            ("", "1.000"),
            ("", "999.000"),
            ("", "9999.000"),
            ("K", "10.000K"),
        ]


def test_get_shape_and_normalize_tuple():
    for lib in LIBS:
        fc = lib.utils.flop_counter
        assert tuple(fc.get_shape(lib.zeros(2, 3))) == (2, 3)
        assert (fc.get_shape(3), fc.get_shape(None)) == (3, None)
        assert (fc.normalize_tuple(3), fc.normalize_tuple((3,)), fc.normalize_tuple([3])) == (
            (3,),
            (3,),
            ([3],),
        )


# ----- registering formulas ---------------------------------------------------------------------


def test_register_flop_formula_counts_a_new_op():
    def registered(lib):
        fc = lib.utils.flop_counter
        packet = fc.aten.mv
        fc.register_flop_formula(packet)(lambda a, v, out_shape=None, **kw: 2 * a[0] * a[1])
        try:
            return counted(lib, lambda lib: lib.matmul(R(lib, 3, 4), R(lib, 4)))
        finally:
            del fc.flop_registry[packet]

    assert registered(cr) == registered(torch) == (24, {"Global": {"aten.mv": 24}})


def test_register_flop_formula_errors():
    def errors(lib):
        fc = lib.utils.flop_counter
        return [
            _outcome(fc.register_flop_formula(fc.aten.mm), lambda *a, **k: 0),
            _outcome(fc.register_flop_formula("aten.foo"), lambda *a, **k: 0),
        ]

    ours, theirs = errors(cr), errors(torch)
    assert ours[0] == theirs[0] == ("RuntimeError", "duplicate registrations for aten.mm")
    assert ours[1] == theirs[1]


def test_custom_mapping_gets_shapes():
    def custom(lib):
        seen = []

        def formula(a, b, out_shape=None, **kwargs):
            seen.append((tuple(a), tuple(b), tuple(out_shape)))
            return 5

        mapping = {lib.utils.flop_counter.aten.mm: formula}
        result = counted(
            lib, lambda lib: lib.mm(R(lib, 3, 4), R(lib, 4, 5)), custom_mapping=mapping
        )
        return result, seen

    assert (
        custom(cr) == custom(torch) == ((5, {"Global": {"aten.mm": 5}}), [((3, 4), (4, 5), (3, 5))])
    )


def test_custom_function_backward_ops_are_counted():
    def fn(lib):
        class Product(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return a @ b

            @staticmethod
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                return g @ b.t(), a.t() @ g

        backward(Product.apply(R(lib, 3, 4, grad=True), R(lib, 4, 5, grad=True)))

    assert same_counts(fn) == (360, {"Global": {"aten.mm": 360}})


def test_exit_restores_the_ops_usual_path():
    from chainrule import _modes
    from chainrule.autograd import recording

    with cr.utils.flop_counter.FlopCounterMode(display=False) as mode:
        assert (recording.PROFILER[0], "flop_counter" in _modes._reasons) == (mode, True)
    assert (recording.PROFILER[0], "flop_counter" in _modes._reasons) == (None, False)
