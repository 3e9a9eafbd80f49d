"""The ``nn.Module`` API of every layer side by side with PyTorch's: a differential sweep.

Each layer is built with representative arguments (defaults and not: ``bias=False``,
``padding_mode``, ``groups``, ``affine``/``track_running_stats``, ``batch_first``,
``bidirectional``, ``proj_size``, ``reduction`` ...), and both libraries must print the same
``repr``, give the same ``state_dict`` (keys, order, shapes, dtypes, ``_metadata``), the same
``named_parameters``/``named_buffers``/``named_modules``, the same dtypes after ``double()``
and ``half()``, and the same ``load_state_dict`` verdicts and error messages. Then the
module API points that a sweep found different: ``nn.Buffer`` being a plain tensor, complex
``to``, loading a lazy module's own state, the global hook dicts, the deprecation warnings
of non-full backward hooks, and the names in constructor TypeErrors.
"""

from __future__ import annotations

import collections
import warnings
from typing import Any

import pytest
import torch

import chainrule as cr

SPECS = [
    "nn.AdaptiveAvgPool1d(3)",
    "nn.AdaptiveAvgPool2d((3, None))",
    "nn.AdaptiveAvgPool3d(2)",
    "nn.AdaptiveMaxPool1d(3, return_indices=True)",
    "nn.AdaptiveMaxPool2d((2, 3))",
    "nn.AdaptiveMaxPool3d(2)",
    "nn.AdaptiveLogSoftmaxWithLoss(16, 10, [4, 8])",
    "nn.AdaptiveLogSoftmaxWithLoss(16, 10, [4, 8], div_value=2.0, head_bias=True)",
    "nn.AlphaDropout()",
    "nn.AlphaDropout(0.2, inplace=True)",
    "nn.AvgPool1d(3)",
    "nn.AvgPool1d(3, 2, 1, ceil_mode=True, count_include_pad=False)",
    "nn.AvgPool2d(3)",
    "nn.AvgPool2d((3, 2), stride=(2, 1), padding=1, divisor_override=2)",
    "nn.AvgPool3d(2)",
    "nn.AvgPool3d(2, ceil_mode=True)",
    "nn.BCELoss()",
    "nn.BCELoss(reduction='sum')",
    "nn.BCELoss(weight=torch.ones(3))",
    "nn.BCEWithLogitsLoss()",
    "nn.BCEWithLogitsLoss(pos_weight=torch.ones(3))",
    "nn.BCEWithLogitsLoss(weight=torch.ones(3), reduction='none')",
    "nn.BatchNorm1d(4)",
    "nn.BatchNorm1d(4, affine=False)",
    "nn.BatchNorm1d(4, track_running_stats=False, momentum=None)",
    "nn.BatchNorm2d(4, eps=1e-3, momentum=0.2)",
    "nn.BatchNorm3d(4, affine=False, track_running_stats=False)",
    "nn.Bilinear(2, 3, 4)",
    "nn.Bilinear(2, 3, 4, bias=False)",
    "nn.CELU()",
    "nn.CELU(0.5, inplace=True)",
    "nn.CTCLoss()",
    "nn.CTCLoss(blank=1, reduction='sum', zero_infinity=True)",
    "nn.ChannelShuffle(2)",
    "nn.CircularPad1d(2)",
    "nn.CircularPad2d((1, 2, 3, 4))",
    "nn.CircularPad3d(1)",
    "nn.ConstantPad1d(2, 3.5)",
    "nn.ConstantPad2d((1, 2, 3, 4), 0.0)",
    "nn.ConstantPad3d(1, -1)",
    "nn.Conv1d(4, 6, 3)",
    "nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2, bias=False, padding_mode='reflect')",
    "nn.Conv1d(4, 6, 3, padding='same')",
    "nn.Conv2d(4, 6, 3)",
    "nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0), dilation=(2, 1), groups=2, bias=False, padding_mode='circular')",
    "nn.Conv2d(4, 6, 3, padding='valid', padding_mode='replicate')",
    "nn.Conv3d(2, 4, 3)",
    "nn.Conv3d(2, 4, 3, padding=1, padding_mode='zeros', bias=False)",
    "nn.ConvTranspose1d(4, 6, 3)",
    "nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, bias=False, dilation=2)",
    "nn.ConvTranspose2d(4, 6, 3)",
    "nn.ConvTranspose2d(4, 6, (3, 2), stride=2, output_padding=(1, 0))",
    "nn.ConvTranspose3d(2, 4, 3)",
    "nn.ConvTranspose3d(2, 4, 3, bias=False, padding=1)",
    "nn.CosineEmbeddingLoss()",
    "nn.CosineEmbeddingLoss(margin=0.5, reduction='sum')",
    "nn.CosineSimilarity()",
    "nn.CosineSimilarity(dim=0, eps=1e-6)",
    "nn.CrossEntropyLoss()",
    "nn.CrossEntropyLoss(weight=torch.ones(3), ignore_index=2, label_smoothing=0.1, reduction='sum')",
    "nn.Dropout()",
    "nn.Dropout(0.3, inplace=True)",
    "nn.Dropout1d(0.1)",
    "nn.Dropout2d()",
    "nn.Dropout3d(inplace=True)",
    "nn.ELU()",
    "nn.ELU(alpha=0.5, inplace=True)",
    "nn.Embedding(10, 3)",
    "nn.Embedding(10, 3, padding_idx=0, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, sparse=True)",
    "nn.Embedding(10, 3, padding_idx=-1)",
    "nn.EmbeddingBag(10, 3)",
    "nn.EmbeddingBag(10, 3, mode='sum', max_norm=2.0, padding_idx=1, include_last_offset=True)",
    "nn.EmbeddingBag(10, 3, mode='max', sparse=False, scale_grad_by_freq=True)",
    "nn.FeatureAlphaDropout()",
    "nn.FeatureAlphaDropout(0.1, True)",
    "nn.Flatten()",
    "nn.Flatten(0, 2)",
    "nn.Fold(output_size=(4, 5), kernel_size=2)",
    "nn.Fold((4, 5), (2, 2), dilation=2, padding=1, stride=1)",
    "nn.FractionalMaxPool2d(2, output_size=3)",
    "nn.FractionalMaxPool2d(2, output_ratio=0.5, return_indices=True)",
    "nn.FractionalMaxPool3d(2, output_size=(3, 3, 3))",
    "nn.GELU()",
    "nn.GELU(approximate='tanh')",
    "nn.GLU()",
    "nn.GLU(dim=1)",
    "nn.GRU(3, 4)",
    "nn.GRU(3, 4, num_layers=2, bias=False, batch_first=True, dropout=0.1, bidirectional=True)",
    "nn.GRUCell(3, 4)",
    "nn.GRUCell(3, 4, bias=False)",
    "nn.GaussianNLLLoss()",
    "nn.GaussianNLLLoss(full=True, eps=1e-3, reduction='sum')",
    "nn.GroupNorm(2, 4)",
    "nn.GroupNorm(2, 4, eps=1e-3, affine=False)",
    "nn.Hardshrink()",
    "nn.Hardshrink(0.3)",
    "nn.Hardsigmoid()",
    "nn.Hardsigmoid(inplace=True)",
    "nn.Hardswish()",
    "nn.Hardswish(True)",
    "nn.Hardtanh()",
    "nn.Hardtanh(-2.0, 2.0, inplace=True)",
    "nn.HingeEmbeddingLoss()",
    "nn.HingeEmbeddingLoss(margin=2.0, reduction='none')",
    "nn.HuberLoss()",
    "nn.HuberLoss(reduction='sum', delta=0.5)",
    "nn.Identity()",
    "nn.Identity(3, foo=4)",
    "nn.InstanceNorm1d(4)",
    "nn.InstanceNorm1d(4, affine=True, track_running_stats=True)",
    "nn.InstanceNorm2d(4, eps=1e-3, momentum=None, affine=True)",
    "nn.InstanceNorm3d(4, track_running_stats=True)",
    "nn.KLDivLoss()",
    "nn.KLDivLoss(reduction='batchmean', log_target=True)",
    "nn.L1Loss()",
    "nn.L1Loss(reduction='sum')",
    "nn.LPPool1d(2, 3)",
    "nn.LPPool1d(1.5, 3, stride=2, ceil_mode=True)",
    "nn.LPPool2d(2, (2, 3))",
    "nn.LPPool3d(2, 2)",
    "nn.LSTM(3, 4)",
    "nn.LSTM(3, 4, num_layers=2, bias=False, batch_first=True, dropout=0.1, bidirectional=True)",
    "nn.LSTM(3, 4, proj_size=2)",
    "nn.LSTM(3, 4, num_layers=2, proj_size=2, bidirectional=True)",
    "nn.LSTMCell(3, 4)",
    "nn.LSTMCell(3, 4, bias=False)",
    "nn.LayerNorm(4)",
    "nn.LayerNorm((3, 4), eps=1e-3, elementwise_affine=False)",
    "nn.LayerNorm([4], bias=False)",
    "nn.LeakyReLU()",
    "nn.LeakyReLU(0.2, inplace=True)",
    "nn.Linear(3, 4)",
    "nn.Linear(3, 4, bias=False)",
    "nn.Linear(0, 4)",
    "nn.LinearCrossEntropyLoss()",
    "nn.LocalResponseNorm(2)",
    "nn.LocalResponseNorm(3, alpha=1e-3, beta=0.5, k=2.0)",
    "nn.LogSigmoid()",
    "nn.LogSoftmax()",
    "nn.LogSoftmax(dim=1)",
    "nn.MSELoss()",
    "nn.MSELoss(reduction='none')",
    "nn.MarginRankingLoss()",
    "nn.MarginRankingLoss(margin=0.3)",
    "nn.MaxPool1d(3)",
    "nn.MaxPool1d(3, 2, 1, dilation=2, return_indices=True, ceil_mode=True)",
    "nn.MaxPool2d(2)",
    "nn.MaxPool2d((2, 3), stride=(1, 2), padding=(1, 0))",
    "nn.MaxPool3d(2)",
    "nn.MaxPool3d(3, 2, 1, dilation=1)",
    "nn.MaxUnpool1d(2)",
    "nn.MaxUnpool1d(3, stride=2, padding=1)",
    "nn.MaxUnpool2d(2)",
    "nn.MaxUnpool2d((2, 3), padding=(1, 0))",
    "nn.MaxUnpool3d(2)",
    "nn.Mish()",
    "nn.Mish(inplace=True)",
    "nn.Module()",
    "nn.MultiLabelMarginLoss()",
    "nn.MultiLabelMarginLoss(reduction='sum')",
    "nn.MultiLabelSoftMarginLoss()",
    "nn.MultiLabelSoftMarginLoss(weight=torch.ones(3))",
    "nn.MultiMarginLoss()",
    "nn.MultiMarginLoss(p=2, margin=0.5, weight=torch.ones(3), reduction='sum')",
    "nn.MultiheadAttention(8, 2)",
    "nn.MultiheadAttention(8, 2, dropout=0.1, bias=False, add_bias_kv=True, add_zero_attn=True)",
    "nn.MultiheadAttention(8, 2, kdim=4, vdim=6, batch_first=True)",
    "nn.NLLLoss()",
    "nn.NLLLoss(weight=torch.ones(3), ignore_index=1, reduction='sum')",
    "nn.NLLLoss2d()",
    "nn.PReLU()",
    "nn.PReLU(3, init=0.1)",
    "nn.PairwiseDistance()",
    "nn.PairwiseDistance(p=1.0, eps=1e-3, keepdim=True)",
    "nn.PixelShuffle(2)",
    "nn.PixelUnshuffle(3)",
    "nn.PoissonNLLLoss()",
    "nn.PoissonNLLLoss(log_input=False, full=True, eps=1e-3, reduction='sum')",
    "nn.RMSNorm(4)",
    "nn.RMSNorm([3, 4], eps=1e-3, elementwise_affine=False)",
    "nn.RNN(3, 4)",
    "nn.RNN(3, 4, num_layers=2, nonlinearity='relu', bias=False, batch_first=True, dropout=0.1, bidirectional=True)",
    "nn.RNNBase('LSTM', 3, 4)",
    "nn.RNNCell(3, 4)",
    "nn.RNNCell(3, 4, bias=False, nonlinearity='relu')",
    "nn.RReLU()",
    "nn.RReLU(0.1, 0.2, inplace=True)",
    "nn.ReLU()",
    "nn.ReLU(inplace=True)",
    "nn.ReLU6()",
    "nn.ReLU6(True)",
    "nn.ReflectionPad1d(2)",
    "nn.ReflectionPad2d((1, 2, 0, 1))",
    "nn.ReflectionPad3d(1)",
    "nn.ReplicationPad1d((1, 2))",
    "nn.ReplicationPad2d(1)",
    "nn.ReplicationPad3d((1, 1, 2, 2, 0, 0))",
    "nn.SELU()",
    "nn.SELU(inplace=True)",
    "nn.SiLU()",
    "nn.SiLU(inplace=True)",
    "nn.Sigmoid()",
    "nn.SmoothL1Loss()",
    "nn.SmoothL1Loss(beta=0.5, reduction='sum')",
    "nn.SoftMarginLoss()",
    "nn.Softmax()",
    "nn.Softmax(dim=-1)",
    "nn.Softmax2d()",
    "nn.Softmin(1)",
    "nn.Softplus()",
    "nn.Softplus(beta=2.0, threshold=10.0)",
    "nn.Softshrink()",
    "nn.Softshrink(0.2)",
    "nn.Softsign()",
    "nn.SyncBatchNorm(4)",
    "nn.SyncBatchNorm(4, affine=False, track_running_stats=False)",
    "nn.Tanh()",
    "nn.Tanhshrink()",
    "nn.Threshold(0.1, 20.0)",
    "nn.Threshold(0.1, 20, inplace=True)",
    "nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16)",
    "nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16, dropout=0.0, activation='gelu', batch_first=True, norm_first=True, bias=False)",
    "nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2)",
    "nn.TransformerDecoderLayer(8, 2, 16)",
    "nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, activation='gelu', layer_norm_eps=1e-3, batch_first=True, norm_first=True, bias=False)",
    "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 3)",
    "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2, norm=nn.LayerNorm(8), enable_nested_tensor=False)",
    "nn.TransformerEncoderLayer(8, 2, 16)",
    "nn.TransformerEncoderLayer(8, 2, 16, activation=torch.nn.functional.gelu)",
    "nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2, activation='gelu', norm_first=True, bias=False)",
    "nn.TripletMarginLoss()",
    "nn.TripletMarginLoss(margin=0.5, p=1.0, eps=1e-3, swap=True, reduction='sum')",
    "nn.TripletMarginWithDistanceLoss()",
    "nn.TripletMarginWithDistanceLoss(margin=0.5, swap=True)",
    "nn.Unflatten(1, (2, 3))",
    "nn.Unflatten('features', (('C', 2), ('H', 3)))",
    "nn.Unfold(2)",
    "nn.Unfold((2, 3), dilation=2, padding=1, stride=2)",
    "nn.Upsample(scale_factor=2)",
    "nn.Upsample(size=(4, 5), mode='bilinear', align_corners=True)",
    "nn.Upsample(scale_factor=2.5, mode='bicubic', recompute_scale_factor=True)",
    "nn.UpsamplingBilinear2d(scale_factor=2)",
    "nn.UpsamplingNearest2d(size=4)",
    "nn.ZeroPad1d(2)",
    "nn.ZeroPad2d((1, 2, 3, 4))",
    "nn.ZeroPad3d(1)",
    "nn.Sequential()",
    "nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))",
    "nn.Sequential(collections.OrderedDict([('fc', nn.Linear(2, 3)), ('act', nn.Tanh())]))",
    "nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.ReLU(), nn.Linear(2, 3))",
    "nn.Sequential(*[nn.Sequential(nn.Linear(2, 2), nn.ReLU()) for _ in range(3)])",
    "nn.ModuleList()",
    "nn.ModuleList([nn.Linear(2, 2) for _ in range(4)])",
    "nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 3), nn.Linear(2, 3), nn.ReLU()])",
    "nn.ModuleDict({'a': nn.Linear(2, 3), 'b': nn.ReLU()})",
    "nn.ModuleDict()",
    "nn.ParameterList([nn.Parameter(torch.zeros(2, 3)), nn.Parameter(torch.zeros(3, dtype=torch.float64), requires_grad=False)])",
    "nn.ParameterList([nn.Parameter(torch.zeros(2)), torch.zeros(3), 5])",
    "nn.ParameterList()",
    "nn.ParameterDict({'a': nn.Parameter(torch.zeros(2)), 'b': nn.Parameter(torch.zeros(3, 4, dtype=torch.float64))})",
    "nn.ParameterDict({'x': torch.zeros(2), 'y': 'str', 'z': nn.Parameter(torch.zeros(1), requires_grad=False)})",
    "nn.ParameterDict()",
    "nn.Container(a=nn.Linear(2, 2))",
]


def summary(x: Any) -> Any:
    """What a user sees of a value: tensors as (class, shape, dtype, requires_grad),
    errors as (type, message), modules by class name; ``chainrule`` read as ``torch``."""
    if isinstance(x, (torch.Tensor, cr.Tensor)):
        return ("T", type(x).__name__, tuple(x.shape), str(x.dtype), bool(x.requires_grad))
    if isinstance(x, BaseException):
        return ("E", type(x).__name__, str(x).replace("chainrule", "torch"))
    if isinstance(x, (torch.nn.Module, cr.nn.Module)):
        return ("M", type(x).__name__)
    if isinstance(x, (list, tuple)):
        return [summary(v) for v in x]
    if isinstance(x, dict):
        return [(k, summary(v)) for k, v in x.items()]
    if isinstance(x, (torch.dtype, cr.dtype)):
        return str(x)
    return repr(x).replace("chainrule", "torch")


def outcome(fn, lib) -> tuple:
    """``fn(lib)``'s summary (its error's, if it raises) and the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn(lib)
        except Exception as e:  # noqa: BLE001 - the error is part of what is compared
            out = e
    said = [(w.category.__name__, str(w.message).replace("chainrule", "torch")) for w in caught]
    return summary(out), said


def same(fn) -> None:
    assert outcome(fn, cr) == outcome(fn, torch)


def build(lib, spec: str):
    lib.manual_seed(0)
    return eval(spec, {"nn": lib.nn, "torch": lib, "collections": collections})


def _layer_api(lib, spec: str) -> list:
    """Everything a script sees of a freshly built layer, short of running it."""
    m = build(lib, spec)
    out: list = [repr(m), m.extra_repr()]
    sd = m.state_dict()
    out += [sd, dict(sd._metadata), list(m.named_parameters()), list(m.named_buffers())]
    out.append([(n, type(c).__name__) for n, c in m.named_modules(prefix="p")])
    out.append([n for n, _ in m.named_parameters(prefix="q", remove_duplicate=False)])
    out.append(list(m.parameters(recurse=False)))
    out.append(repr(m.load_state_dict(sd)))
    out.append(list(m.double().state_dict(keep_vars=True).items()))
    out.append(list(m.half().state_dict(keep_vars=True).items()))
    out.append([x.training for x in m.eval().modules()])
    return out


def _load_errors(lib, spec: str) -> list:
    """strict=False verdict, then the strict error, for a missing, an unexpected and a
    wrongly sized key."""
    m = build(lib, spec)
    sd = m.state_dict()
    if not sd:
        return [repr(m.load_state_dict({"x.y": lib.zeros(1)}, strict=False))]
    first, *_, last = [*sd, *sd][: max(2, len(sd))]
    sd.pop(first)
    sd["bogus.key"] = lib.zeros(1)
    if isinstance(sd.get(last), (torch.Tensor, cr.Tensor)) and sd[last].dim() > 0:
        sd[last] = lib.zeros(7, 1)
    out: list = []
    for strict in (False, True):
        try:
            out.append(repr(m.load_state_dict(sd, strict=strict)))
        except RuntimeError as e:
            out.append(e)
    return out


@pytest.mark.parametrize("spec", SPECS)
def test_layer_api_same_as_torch(spec):
    same(lambda lib: _layer_api(lib, spec))


@pytest.mark.parametrize("spec", SPECS[::3])
def test_load_state_dict_errors_same_as_torch(spec):
    same(lambda lib: _load_errors(lib, spec))


LAZY = [
    "nn.LazyLinear(4)",
    "nn.LazyConv2d(4, 3, bias=False)",
    "nn.LazyBatchNorm1d()",
    "nn.LazyInstanceNorm2d(affine=True)",
]


@pytest.mark.parametrize("spec", LAZY)
def test_lazy_layer_loads_its_own_state(spec):
    def fn(lib):
        m = build(lib, spec)
        sd = m.state_dict()
        return [repr(m), list(sd), repr(m.load_state_dict(sd)), type(m).__name__]

    same(fn)


# ----- the points the sweep found --------------------------------------------------------


def _buffer(lib):
    m = lib.nn.Module()
    m.a = lib.nn.Buffer(lib.ones(2), persistent=False)
    m.register_buffer("b", lib.nn.Buffer(lib.ones(1)))
    b = lib.nn.Buffer(lib.ones(2))
    return [
        type(m.a).__name__,
        type(m.b).__name__,
        list(m.state_dict()),
        isinstance(b, lib.nn.Buffer),
        isinstance(b * 1, lib.nn.Buffer),
        isinstance(lib.ones(1), lib.nn.Buffer),
        isinstance(lib.nn.Parameter(lib.ones(1)), lib.nn.Buffer),
        b.persistent,
    ]


def _to_complex(lib):
    m = lib.nn.BatchNorm1d(2).to(lib.complex64)
    return list(m.state_dict().items())


def _to_int(lib):
    return lib.nn.Linear(2, 2).to(lib.int32)


def _global_hook_dicts(lib):
    mm = lib.nn.modules.module
    log: list = []
    mm._global_forward_hooks[987654] = lambda mod, args, out: log.append(type(mod).__name__)
    try:
        lib.nn.Sequential(lib.nn.ReLU())(lib.ones(1))
    finally:
        del mm._global_forward_hooks[987654]
    return log


def _non_full_backward_hooks(lib):
    nn = lib.nn
    log: list = []

    class Two(nn.Module):
        def forward(self, a):
            return a * 2, a + 1

    class Dict(nn.Module):
        def forward(self, a):
            return {"x": a * 2}

    class Arg(nn.Module):
        def forward(self, a, k):
            return a * k

    x = lib.ones(2, requires_grad=True) * 1
    calls = [
        (nn.ReLU(), lambda m: m(x)),  # one node fed by x's: no warning
        (nn.Linear(2, 2), lambda m: m(lib.ones(1, 2, requires_grad=True))),
        (Two(), lambda m: m(x)),
        (Dict(), lambda m: m(x)),
        (Arg(), lambda m: m(x, 3)),
        (nn.Sigmoid(), lambda m: m(lib.ones(2))),  # no graph: no hook, no warning
    ]
    for m, call in calls:
        m.register_backward_hook(lambda mod, gi, go: log.append(type(mod).__name__))
        call(m)
    return log


def _complete_names(lib):
    public = {n for n in dir(lib.nn.Linear(1, 1)) if not n.startswith("_")}
    return sorted(public & {"T_destination", "ipu", "mtia", "xpu"}), lib.nn.ReLU().xpu()


CONSTRUCTOR_ERRORS = [
    "nn.ReflectionPad2d()",
    "nn.ConstantPad1d(2)",
    "nn.CircularPad3d(1, 2)",
    "nn.ReLU(bogus=1)",
    "nn.ELU(1, 2, 3)",
    "nn.Softshrink(0.5, 1)",
    "nn.Softmax(0, 1)",
    "nn.Conv2d(1)",
    "nn.ConvTranspose1d(1, 2)",
    "nn.AvgPool2d()",
    "nn.MaxUnpool3d()",
    "nn.BatchNorm2d()",
    "nn.FractionalMaxPool2d()",
    "nn.ZeroPad2d()",
]

SCENARIOS = {
    "buffer_is_a_plain_tensor": _buffer,
    "to_complex_warns_and_casts": _to_complex,
    "to_integer_dtype": _to_int,
    "global_forward_hooks_dict": _global_hook_dicts,
    "non_full_backward_hook_warnings": _non_full_backward_hooks,
    "module_method_names": _complete_names,
    **{
        f"constructor_error_{spec}": (lambda lib, spec=spec: build(lib, spec))
        for spec in CONSTRUCTOR_ERRORS
    },
}


@pytest.mark.parametrize("fn", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_module_api_same_as_torch(fn):
    same(fn)


def _init_owner(cls: type) -> str:
    """The class whose __init__ a layer runs (by the MRO, not the function's __qualname__:
    torch._dynamo, once used in the process, wraps torch.nn.Module.__init__ in a function
    of another name)."""
    return next(k.__name__ for k in cls.__mro__ if "__init__" in k.__dict__)


def test_init_named_after_each_layer():
    """Every layer's __init__ is named as PyTorch's (the name its TypeErrors show)."""
    names = sorted(set(torch.nn.modules.__all__) & set(cr.nn.modules.__all__))
    differ = [
        n
        for n in names
        if "Lazy" not in n and _init_owner(getattr(torch.nn, n)) != _init_owner(getattr(cr.nn, n))
    ]
    assert differ == []
    for n in names:  # (a layer's own __init__, or chainrule's copy for it, named after it)
        owner = _init_owner(getattr(cr.nn, n))
        assert getattr(cr.nn, n).__init__.__qualname__.startswith(f"{owner}.")
