"""Whole models (``torch.save(model)``) moved both ways with the real PyTorch: a model
chainrule saves loads in PyTorch with ``weights_only=False`` as PyTorch's own layers (its
classes and functions are written under PyTorch's names), and one PyTorch saves loads in
chainrule as chainrule's layers; the repr, the state_dict and the forward pass agree."""

from __future__ import annotations

import io
import pickletools
import zipfile

import numpy as np
import pytest
import torch

import chainrule as cr

# (the layer, built from ``L.nn``; the shape of a float64 input, or None for no forward)
LAYERS = [
    ("Linear(4, 3)", (2, 4)),
    ("Bilinear(4, 4, 3)", None),
    ("Conv1d(2, 3, 3)", (2, 2, 8)),
    ("Conv2d(2, 3, 3, padding=1, padding_mode='reflect')", (2, 2, 6, 6)),
    ("ConvTranspose2d(2, 3, 3, stride=2)", (1, 2, 4, 4)),
    ("BatchNorm2d(3)", (2, 3, 4, 4)),
    ("LayerNorm(4)", (2, 4)),
    ("GroupNorm(2, 4)", (2, 4, 3)),
    ("RMSNorm(4)", (2, 4)),
    ("Embedding(10, 4, padding_idx=0)", "tokens"),
    ("PReLU(4)", (2, 4)),
    ("GELU(approximate='tanh')", (2, 4)),
    ("Softmax(dim=1)", (2, 4)),
    ("MaxPool2d(2)", (1, 2, 4, 4)),
    ("AdaptiveAvgPool2d((2, 2))", (1, 2, 5, 5)),
    ("Upsample(scale_factor=2, mode='bilinear')", (1, 2, 3, 3)),
    ("Flatten()", (2, 3, 2)),
    ("Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Dropout(0.1), nn.Linear(3, 2))", (2, 4)),
    ("ModuleDict({'a': nn.Linear(4, 3), 'b': nn.ModuleList([nn.Tanh()])})", None),
    ("ParameterList([nn.Parameter(torch.ones(2))])", None),
    ("RNN(4, 5, batch_first=True)", (2, 3, 4)),
    ("LSTM(4, 5, num_layers=2, bidirectional=True)", (3, 2, 4)),
    ("LSTM(4, 6, proj_size=3)", (3, 2, 4)),
    ("GRU(4, 5)", (3, 2, 4)),
    ("LSTMCell(4, 5)", (2, 4)),
    ("MultiheadAttention(4, 2)", None),
    ("TransformerEncoderLayer(8, 2, 16, dropout=0.0)", (3, 2, 8)),
    ("TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation='gelu')", (3, 2, 8)),
    ("TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True)", None),
    (
        "TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2, "
        "enable_nested_tensor=False)",
        (3, 2, 8),
    ),
    ("CrossEntropyLoss(label_smoothing=0.1)", None),
]
IDS = [expr.partition("(")[0] + str(i) for i, (expr, _) in enumerate(LAYERS)]


def build(L, expr: str):
    """``L.nn.<expr>`` in float64, with the same seed for the parameters it draws."""
    L.manual_seed(0)
    return eval("nn." + expr, {"nn": L.nn, "torch": L}).double()


def saved(L, obj) -> io.BytesIO:
    buffer = io.BytesIO()
    L.save(obj, buffer)
    buffer.seek(0)
    return buffer


def globals_of(buffer: io.BytesIO) -> list[str]:
    """The module and name of each global the file's pickle names."""
    with zipfile.ZipFile(buffer) as archive:
        pkl = next(n for n in archive.namelist() if n.endswith("data.pkl"))
        ops = pickletools.genops(archive.read(pkl))
        found = [arg for op, arg, _ in ops if op.name == "GLOBAL"]
    buffer.seek(0)
    return found


def inputs(shape, L):
    if shape == "tokens":
        return L.tensor([[1, 2], [3, 0]])
    rng = np.random.default_rng(len(shape))
    return L.from_numpy(rng.standard_normal(shape))


def first(out):
    return out[0] if isinstance(out, tuple) else out


def library_of(model):
    return torch if isinstance(model, torch.nn.Module) else cr


def check_same(theirs, ours, shape) -> None:
    """The loaded model against the one saved: repr, state_dict, forward in eval mode."""
    assert repr(theirs) == repr(ours)
    theirs_state, ours_state = theirs.state_dict(), ours.state_dict()
    assert list(theirs_state) == list(ours_state)
    for key, value in ours_state.items():
        np.testing.assert_array_equal(theirs_state[key].numpy(), value.numpy(), err_msg=key)
    if shape is not None:
        theirs.eval(), ours.eval()
        a, b = (first(m(inputs(shape, library_of(m)))) for m in (theirs, ours))
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-13)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
@pytest.mark.parametrize(("expr", "shape"), LAYERS, ids=IDS)
def test_a_whole_model_chainrule_saves_loads_in_pytorch(expr, shape):
    ours = build(cr, expr)
    buffer = saved(cr, ours)
    assert not [g for g in globals_of(buffer) if g.startswith("chainrule")]
    theirs = torch.load(buffer, weights_only=False)
    assert type(theirs) is type(build(torch, expr))
    check_same(theirs, ours, shape)
    back = cr.load(saved(cr, ours), weights_only=False)  # and in chainrule again
    assert type(back) is type(ours)
    check_same(back, ours, shape)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
@pytest.mark.parametrize(("expr", "shape"), LAYERS, ids=IDS)
def test_a_whole_model_pytorch_saves_loads_in_chainrule(expr, shape):
    theirs = build(torch, expr)
    ours = cr.load(saved(torch, theirs), weights_only=False)
    assert type(ours) is type(build(cr, expr))
    check_same(ours, theirs, shape)


def test_the_activation_a_layer_keeps_is_written_as_pytorch_names_it():
    layer = cr.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    names = globals_of(saved(cr, layer))
    assert "torch.nn.functional relu" in names
    assert "torch.nn.modules.activation MultiheadAttention" in names
    assert "torch.nn.modules.transformer TransformerEncoderLayer" in names


def test_a_saved_rnn_keeps_pytorch_list_of_weights_and_reads_back_its_own():
    lstm = cr.nn.LSTM(2, 3)
    theirs = torch.load(saved(cr, lstm), weights_only=False)
    assert [tuple(w.shape) for w in theirs._flat_weights] == [(12, 2), (12, 3), (12,), (12,)]
    back = cr.load(saved(cr, lstm), weights_only=False)
    assert "_flat_weights" not in vars(back)
    back.weight_hh_l0 = cr.nn.Parameter(cr.zeros(12, 3))  # (read from the parameters)
    assert back._flat_weights[1] is back.weight_hh_l0


def test_only_public_functional_functions_are_admitted():
    import pickle

    def crafted(module: str, name: str) -> io.BytesIO:
        """A file whose pickle calls ``module.name('x')``."""
        with zipfile.ZipFile(buffer := io.BytesIO(), "w") as archive:
            archive.writestr(
                "archive/data.pkl",
                pickle.GLOBAL + f"{module}\n{name}\n".encode() + b"X\x01\x00\x00\x00x\x85R.",
            )
            archive.writestr("archive/version", "3\n")
        buffer.seek(0)
        return buffer

    for module, name in [
        ("torch.nn.functional", "__getattr__"),
        ("torch.nn.functional", "_canonical_mask"),
        ("torch", "save"),
        ("torch.hub", "load"),
    ]:
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
            cr.load(crafted(module, name), weights_only=False)


def test_safe_globals_name_chainrule_classes_as_files_do():
    for L in (cr, torch):
        buffer = saved(L, L.nn.Linear(2, 2))
        with pytest.raises(Exception, match="Weights only load failed"):
            cr.load(buffer)
        buffer.seek(0)
        with cr.serialization.safe_globals([cr.nn.Linear, set]):
            loaded = cr.load(buffer)
        assert type(loaded) is cr.nn.Linear
