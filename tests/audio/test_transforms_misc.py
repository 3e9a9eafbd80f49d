"""chainrule.audio.transforms's time-domain modules against the real torchaudio 2.11:
outputs (float64 and float32) and gradients for the deterministic ones, structure and
statistics for the random masks, constructor errors by type and message."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule
import chainrule.audio.transforms as CT

RNG = np.random.default_rng(99)


def _close(actual, expected, tol: float) -> None:
    a, e = actual.detach().numpy(), expected.detach().numpy()
    assert a.shape == e.shape
    assert a.dtype == e.dtype, (a.dtype, e.dtype)
    np.testing.assert_allclose(a, e, rtol=tol, atol=tol)


def check(ta_module, cr_module, arrays, tol=1e-10, grad=True, dtype=np.float64):
    """The two modules on the same inputs: outputs, then gradients of a fixed random
    projection of the output w.r.t. every input."""
    arrays = [a.astype(dtype) for a in arrays]
    t_in = [torch.tensor(a, requires_grad=grad) for a in arrays]
    c_in = [chainrule.tensor(a, requires_grad=grad) for a in arrays]
    t_out, c_out = ta_module(*t_in), cr_module(*c_in)
    _close(c_out, t_out, tol)
    assert list(cr_module.state_dict()) == list(ta_module.state_dict())
    if grad:
        weights = RNG.normal(size=tuple(t_out.shape)).astype(dtype)
        (t_out * torch.from_numpy(weights)).sum().backward()
        (c_out * chainrule.from_numpy(weights)).sum().backward()
        for t, c in zip(t_in, c_in):
            _close(c.grad, t.grad, tol)


def same_error(ta_call, cr_call) -> None:
    with pytest.raises(Exception) as expected:
        ta_call()
    with pytest.raises(type(expected.value)) as actual:
        cr_call()
    assert str(actual.value) == str(expected.value)


@pytest.fixture(scope="module")
def TT(ta):
    return ta.transforms


def test_mu_law_modules_match(TT):
    x = RNG.uniform(-1, 1, (2, 200))
    for channels in (256, 64):
        encoded = TT.MuLawEncoding(channels)(torch.from_numpy(x))
        mine = CT.MuLawEncoding(channels)(chainrule.from_numpy(x))
        np.testing.assert_array_equal(mine.numpy(), encoded.numpy())
        check(
            TT.MuLawDecoding(channels),
            CT.MuLawDecoding(channels),
            [encoded.numpy().astype(np.float64)],
        )
    assert CT.MuLawEncoding().quantization_channels == TT.MuLawEncoding().quantization_channels


@pytest.mark.parametrize(
    "shape", ["linear", "exponential", "logarithmic", "quarter_sine", "half_sine"]
)
def test_fade_matches(TT, shape):
    x = RNG.normal(size=(2, 50))
    # The curves are float32 (torchaudio builds them in the default dtype); float32 exp, log10
    # and sin may round one ulp apart from PyTorch's, the linear ramp is bit-exact.
    tol = 1e-10 if shape == "linear" else 3e-7
    for fade_in, fade_out in ((10, 15), (0, 20), (7, 0), (50, 50)):
        check(TT.Fade(fade_in, fade_out, shape), CT.Fade(fade_in, fade_out, shape), [x], tol)
    check(
        TT.Fade(12, 9, shape),
        CT.Fade(12, 9, shape),
        [x],
        tol=1e-6,
        grad=False,
        dtype=np.float32,
    )


def test_fade_defaults_are_identity(TT):
    x = RNG.normal(size=(3, 20))
    check(TT.Fade(), CT.Fade(), [x])


@pytest.mark.parametrize(
    "gain,gain_type",
    [(0.5, "amplitude"), (3.0, "amplitude"), (-6.0, "db"), (0.0, "db"), (2.5, "power")],
)
def test_vol_matches(TT, gain, gain_type):
    x = RNG.uniform(-1, 1, (2, 40))
    check(TT.Vol(gain, gain_type), CT.Vol(gain, gain_type), [x])
    check(TT.Vol(gain, gain_type), CT.Vol(gain, gain_type), [x], 1e-6, False, np.float32)


def test_vol_rejects_negative_ratio(TT):
    same_error(lambda: TT.Vol(-1.0, "power"), lambda: CT.Vol(-1.0, "power"))
    same_error(lambda: TT.Vol(-1.0), lambda: CT.Vol(-1.0))


def test_compute_deltas_module_matches(TT):
    x = RNG.normal(size=(2, 6, 15))
    check(TT.ComputeDeltas(), CT.ComputeDeltas(), [x])
    check(TT.ComputeDeltas(9, "reflect"), CT.ComputeDeltas(9, "reflect"), [x])


def test_sliding_window_cmn_module_matches(TT):
    x = RNG.normal(size=(30, 5))
    check(TT.SlidingWindowCmn(8, 4), CT.SlidingWindowCmn(8, 4), [x], tol=1e-9)
    check(
        TT.SlidingWindowCmn(8, 4, True, True),
        CT.SlidingWindowCmn(8, 4, True, True),
        [x],
        tol=1e-9,
        grad=False,  # torchaudio's norm_vars path cannot backpropagate
    )


@pytest.mark.parametrize("mode", ["full", "valid", "same"])
def test_convolve_modules_match(TT, mode):
    x, y = RNG.normal(size=(2, 3, 30)), RNG.normal(size=(2, 1, 9))
    check(TT.Convolve(mode), CT.Convolve(mode), [x, y])
    check(TT.FFTConvolve(mode), CT.FFTConvolve(mode), [x, y])
    check(TT.FFTConvolve(mode), CT.FFTConvolve(mode), [x, y], 1e-4, False, np.float32)


def test_convolve_modules_reject_mode(TT):
    same_error(lambda: TT.Convolve("bad"), lambda: CT.Convolve("bad"))
    same_error(lambda: TT.FFTConvolve("bad"), lambda: CT.FFTConvolve("bad"))


def test_add_noise_module_matches(TT):
    x, n = RNG.normal(size=(2, 50)), RNG.normal(size=(2, 50))
    snr = np.array([10.0, 3.0])
    check(TT.AddNoise(), CT.AddNoise(), [x, n, snr])
    lengths = np.array([50, 20])
    t_out = TT.AddNoise()(*map(torch.from_numpy, (x, n, snr, lengths)))
    c_out = CT.AddNoise()(*map(chainrule.from_numpy, (x, n, snr, lengths)))
    _close(c_out, t_out, 1e-10)


def test_emphasis_modules_match(TT):
    x = RNG.normal(size=(2, 40)) * 0.05
    check(TT.Preemphasis(), CT.Preemphasis(), [x])
    check(TT.Preemphasis(0.5), CT.Preemphasis(0.5), [x], 1e-6, False, np.float32)
    # torchaudio's lfilter cannot backpropagate without its compiled library.
    check(TT.Deemphasis(), CT.Deemphasis(), [x], grad=False)
    check(TT.Deemphasis(0.8), CT.Deemphasis(0.8), [x], 1e-6, False, np.float32)


def test_loudness_module_matches(TT):
    x = RNG.normal(size=(2, 8000)) * 0.2
    check(TT.Loudness(8000), CT.Loudness(8000), [x], tol=1e-8, grad=False)


# ------------------------------------------------------------------ masking modules


def _intervals(masked: np.ndarray) -> list[np.ndarray]:
    """Per leading index, the masked positions along the last axis (whole columns only)."""
    flat = masked.reshape(-1, *masked.shape[-2:])
    out = []
    for m in flat:
        columns = m.all(axis=0)
        assert (m == columns[None]).all()
        idx = np.flatnonzero(columns)
        if len(idx):
            assert (np.diff(idx) == 1).all()
        out.append(idx)
    return out


@pytest.mark.parametrize("iid_masks", [False, True])
def test_time_masking_structure(iid_masks):
    spec = RNG.uniform(1, 2, (6, 2, 10, 40))
    chainrule.manual_seed(5)
    out = CT.TimeMasking(15, iid_masks=iid_masks)(chainrule.from_numpy(spec)).numpy()
    masked = out == 0.0
    spans = _intervals(masked)
    assert all(len(s) <= 14 for s in spans)
    distinct = {tuple(s) for s in spans}
    assert (len(distinct) > 1) == iid_masks
    np.testing.assert_array_equal(out[~masked], spec[~masked])


@pytest.mark.parametrize("iid_masks", [False, True])
def test_frequency_masking_structure(iid_masks):
    spec = RNG.uniform(1, 2, (8, 30, 12))
    chainrule.manual_seed(11)
    out = CT.FrequencyMasking(20, iid_masks=iid_masks)(chainrule.from_numpy(spec), -1.0).numpy()
    masked = out == -1.0
    spans = _intervals(np.swapaxes(masked, -1, -2))
    assert all(len(s) <= 19 for s in spans)
    assert (len({tuple(s) for s in spans}) > 1) == iid_masks


def test_time_masking_p_limits_width(TT):
    spec = RNG.uniform(1, 2, (50, 4, 20))
    widths = []
    for seed in range(5):
        chainrule.manual_seed(seed)
        out = CT.TimeMasking(100, iid_masks=True, p=0.25)(chainrule.from_numpy(spec)).numpy()
        widths += [len(s) for s in _intervals(out == 0.0)]
    assert max(widths) <= 4  # min(100, floor(0.25 * 20)) = 5, widths below it
    assert abs(np.mean(widths) - 2.0) < 0.4
    same_error(lambda: TT.TimeMasking(5, p=1.5), lambda: CT.TimeMasking(5, p=1.5))


def test_masking_module_tensor_value(TT):
    spec = RNG.uniform(1, 2, (3, 8, 20))
    value = chainrule.tensor(7.0, dtype=chainrule.float64)
    chainrule.manual_seed(0)
    out = CT.TimeMasking(10)(chainrule.from_numpy(spec), value).numpy()
    assert set(np.unique(out[out > 2])) <= {7.0}
    chainrule.manual_seed(0)
    again = CT.TimeMasking(10)(chainrule.from_numpy(spec), 7.0).numpy()
    np.testing.assert_array_equal(out, again)


@pytest.mark.parametrize("iid_masks,ndim", [(True, 4), (False, 4), (True, 2)])
def test_spec_augment_masks_with_mean(iid_masks, ndim):
    shape = (4, 2, 16, 30)[4 - ndim :]
    spec = RNG.uniform(1, 2, shape)
    mean = spec.mean()
    chainrule.manual_seed(2)
    module = CT.SpecAugment(2, 8, 2, 5, iid_masks=iid_masks)
    out = module(chainrule.from_numpy(spec)).numpy()
    masked = out == mean
    np.testing.assert_array_equal(out[~masked], spec[~masked])
    assert masked.any()
    flat = masked.reshape(-1, *shape[-2:])
    for m in flat:
        rows, cols = m.all(axis=1), m.all(axis=0)
        assert (m == (rows[:, None] | cols[None, :])).all()  # union of row and column bands
        assert rows.sum() <= 8 and cols.sum() <= 14
    if not iid_masks or ndim == 2:
        assert all((m == flat[0]).all() for m in flat)


def test_spec_augment_zero_masking_and_gradient():
    spec = chainrule.tensor(RNG.uniform(1, 2, (2, 3, 12, 25)), requires_grad=True)
    chainrule.manual_seed(4)
    out = CT.SpecAugment(1, 10, 1, 6, zero_masking=True)(spec)
    masked = out.detach().numpy() == 0.0
    assert masked.any()
    out.sum().backward()
    np.testing.assert_array_equal(spec.grad.numpy(), (~masked).astype(float))


def test_spec_augment_statistics():
    spec = np.ones((300, 1, 20, 40))
    chainrule.manual_seed(8)
    out = CT.SpecAugment(1, 10, 0, 5, zero_masking=True)(chainrule.from_numpy(spec)).numpy()
    widths = (out[:, 0, 0] == 0).sum(-1)
    assert widths.max() <= 9 and abs(widths.mean() - 4.5) < 0.6


def test_masking_attributes_match(TT):
    for ta_mod, cr_mod in [
        (TT.FrequencyMasking(7), CT.FrequencyMasking(7)),
        (TT.TimeMasking(9, True, 0.5), CT.TimeMasking(9, True, 0.5)),
    ]:
        for name in ("mask_param", "axis", "iid_masks", "p"):
            assert getattr(cr_mod, name) == getattr(ta_mod, name)
    ta_aug, cr_aug = TT.SpecAugment(2, 10, 3, 5), CT.SpecAugment(2, 10, 3, 5)
    for name in ta_aug.__constants__:
        assert getattr(cr_aug, name) == getattr(ta_aug, name)


# ------------------------------------------------------------------ RNN-T loss module


def test_rnnt_loss_module_on_documented_example(TT):
    """torchaudio's docstring example, against the brute-force sum over its 3 alignments."""
    logits = np.array(
        [
            [
                [[0.1, 0.6, 0.1, 0.1, 0.1], [0.1, 0.1, 0.6, 0.1, 0.1], [0.1, 0.1, 0.2, 0.8, 0.1]],
                [[0.1, 0.6, 0.1, 0.1, 0.1], [0.1, 0.1, 0.2, 0.1, 0.1], [0.7, 0.1, 0.2, 0.1, 0.1]],
            ]
        ],
        dtype=np.float32,
    )
    reference = torch.tensor(logits.astype(np.float64), requires_grad=True)
    lp = reference[0].log_softmax(-1)
    paths = [
        lp[0, 0, 1] + lp[0, 1, 2] + lp[0, 2, 0] + lp[1, 2, 0],  # y y blank blank
        lp[0, 0, 1] + lp[0, 1, 0] + lp[1, 1, 2] + lp[1, 2, 0],  # y blank y blank
        lp[0, 0, 0] + lp[1, 0, 1] + lp[1, 1, 2] + lp[1, 2, 0],  # blank y y blank
    ]
    expected = -torch.logsumexp(torch.stack(paths), 0)
    expected.backward()
    mine = chainrule.tensor(logits, requires_grad=True)
    module = CT.RNNTLoss(blank=0)
    loss = module(
        mine,
        chainrule.tensor([[1, 2]], dtype=chainrule.int32),
        chainrule.tensor([2], dtype=chainrule.int32),
        chainrule.tensor([2], dtype=chainrule.int32),
    )
    loss.backward()
    np.testing.assert_allclose(loss.item(), expected.item(), rtol=1e-6)
    np.testing.assert_allclose(mine.grad.numpy(), reference.grad.numpy(), atol=1e-6)
    ta_module = TT.RNNTLoss(blank=0)
    for name in ("blank", "clamp", "reduction", "fused_log_softmax"):
        assert getattr(module, name) == getattr(ta_module, name)


def test_spec_augment_mean_masking_gradient():
    """Masked entries hold the input's mean, so each input entry gets 1 where unmasked plus
    (number masked) / numel through the mean."""
    spec = chainrule.tensor(RNG.uniform(1, 2, (2, 3, 12, 25)), requires_grad=True)
    chainrule.manual_seed(6)
    out = CT.SpecAugment(2, 10, 1, 6)(spec)
    masked = out.detach().numpy() == spec.detach().numpy().mean()
    assert masked.any()
    out.sum().backward()
    expected = (~masked).astype(float) + masked.sum() / masked.size
    np.testing.assert_allclose(spec.grad.numpy(), expected, rtol=1e-12)
