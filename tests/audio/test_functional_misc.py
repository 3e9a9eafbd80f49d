"""chainrule.audio.functional's time-domain functions against the real torchaudio 2.11:
values in float64 and float32, gradients against real torch autograd, errors by type and
message; the random masks by their structure and statistics; rnnt_loss and forced_align
(compiled in torchaudio) against brute-force sums and maxima over all alignments."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import chainrule
import chainrule.audio.functional as CF

RNG = np.random.default_rng(1234)


def _np(t) -> np.ndarray:
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _close(actual, expected, tol: float) -> None:
    a, e = _np(actual), _np(expected)
    assert a.shape == e.shape
    assert a.dtype == e.dtype, (a.dtype, e.dtype)
    np.testing.assert_allclose(a, e, rtol=tol, atol=tol)


def check(ta_fn, cr_fn, arrays, tol=1e-10, grad=True, dtype=np.float64):
    """Same inputs to both, outputs compared; with ``grad``, gradients of a fixed random
    projection of the output w.r.t. every input compared too."""
    arrays = [a.astype(dtype) for a in arrays]
    t_in = [torch.tensor(a, requires_grad=grad) for a in arrays]
    c_in = [chainrule.tensor(a, requires_grad=grad) for a in arrays]
    t_out, c_out = ta_fn(*t_in), cr_fn(*c_in)
    _close(c_out, t_out, tol)
    if grad:
        weights = RNG.normal(size=tuple(t_out.shape)).astype(dtype)
        (t_out * torch.from_numpy(weights)).sum().backward()
        (c_out * chainrule.from_numpy(weights)).sum().backward()
        for t, c in zip(t_in, c_in):
            _close(c.grad, t.grad, tol)


def same_error(ta_call, cr_call) -> None:
    """Both raise the same exception type with the same message."""
    with pytest.raises(Exception) as expected:
        ta_call()
    with pytest.raises(type(expected.value)) as actual:
        cr_call()
    assert str(actual.value) == str(expected.value)


@pytest.fixture(scope="module")
def TF(ta):
    return ta.functional


# ------------------------------------------------------------------ mu-law


@pytest.mark.parametrize("channels", [256, 16])
def test_mu_law_round_trip_matches(TF, channels):
    x = RNG.uniform(-1, 1, (2, 300))
    for dtype in (np.float64, np.float32):
        t, c = torch.from_numpy(x.astype(dtype)), chainrule.from_numpy(x.astype(dtype))
        encoded = TF.mu_law_encoding(t, channels)
        mine = CF.mu_law_encoding(c, channels)
        assert mine.dtype == chainrule.int64
        np.testing.assert_array_equal(mine.numpy(), encoded.numpy())
        _close(
            CF.mu_law_decoding(chainrule.from_numpy(encoded.numpy()), channels),
            TF.mu_law_decoding(encoded, channels),
            1e-6,  # integer codes decode in float32
        )
    check(
        lambda v: TF.mu_law_decoding(v, channels),
        lambda v: CF.mu_law_decoding(v, channels),
        [RNG.uniform(0, channels - 1, (3, 20))],
    )


def test_mu_law_integer_input_warns_and_matches(TF):
    x = RNG.integers(-1, 2, (50,))
    with pytest.warns(UserWarning, match="The input Tensor must be of floating type."):
        mine = CF.mu_law_encoding(chainrule.from_numpy(x), 256)
    np.testing.assert_array_equal(
        mine.numpy(), TF.mu_law_encoding(torch.from_numpy(x), 256).numpy()
    )


# ------------------------------------------------------------------ masking


def _masked_region(out: np.ndarray, value: float) -> np.ndarray:
    return out == value


def test_mask_along_axis_is_one_shared_interval():
    spec = RNG.uniform(1, 2, (3, 2, 20, 30))
    widths = []
    for seed in range(60):
        chainrule.manual_seed(seed)
        out = CF.mask_along_axis(chainrule.from_numpy(spec), 10, 0.0, axis=3).numpy()
        masked = _masked_region(out, 0.0)
        columns = masked.all(axis=(0, 1, 2))
        assert (masked == columns).all()  # the same columns everywhere, whole columns
        idx = np.flatnonzero(columns)
        if len(idx):
            assert (np.diff(idx) == 1).all()
        widths.append(len(idx))
        np.testing.assert_array_equal(out[~masked], spec[~masked])
    assert max(widths) <= 9 and min(widths) >= 0
    assert 2.5 < np.mean(widths) < 6.5  # uniform on {0..9}: mean 4.5


def test_mask_along_axis_frequency_and_p():
    spec = RNG.uniform(1, 2, (20, 40))
    for seed in range(30):
        chainrule.manual_seed(seed)
        out = CF.mask_along_axis(chainrule.from_numpy(spec), 15, -5.0, axis=0, p=0.2).numpy()
        rows = (out == -5.0).all(axis=1)
        assert ((out == -5.0) == rows[:, None]).all()
        assert rows.sum() <= 3  # min(15, floor(0.2 * 20)) = 4, widths below it


def test_mask_along_axis_iid_masks_each_example():
    spec = RNG.uniform(1, 2, (8, 3, 16, 40))
    chainrule.manual_seed(0)
    out = CF.mask_along_axis_iid(chainrule.from_numpy(spec), 20, 0.0, axis=3).numpy()
    masked = out == 0.0
    starts = set()
    for b, ch in itertools.product(range(8), range(3)):
        columns = masked[b, ch].all(axis=0)
        assert (masked[b, ch] == columns[None]).all()
        idx = np.flatnonzero(columns)
        assert len(idx) <= 19
        if len(idx):
            assert (np.diff(idx) == 1).all()
            starts.add(int(idx[0]))
    assert len(starts) > 3  # different examples, different intervals
    np.testing.assert_array_equal(out[~masked], spec[~masked])


def test_mask_along_axis_iid_width_statistics():
    spec = np.ones((400, 1, 4, 50))
    chainrule.manual_seed(3)
    out = CF.mask_along_axis_iid(chainrule.from_numpy(spec), 10, 0.0, axis=2 + 1).numpy()
    widths = (out[:, 0, 0] == 0.0).sum(-1)
    assert widths.max() <= 9
    assert abs(widths.mean() - 4.5) < 0.5
    counts = np.bincount(widths, minlength=10)
    assert (counts > 15).all()  # every width 0..9 occurs (40 expected each)


def test_mask_along_axis_iid_tensor_value_gradient():
    spec = chainrule.tensor(RNG.uniform(1, 2, (4, 6, 10)), requires_grad=True)
    value = chainrule.tensor(-3.0, dtype=chainrule.float64, requires_grad=True)
    chainrule.manual_seed(1)
    out = CF.mask_along_axis_iid(spec, 8, value, axis=1)
    out.sum().backward()
    masked = out.detach().numpy() == -3.0
    assert value.grad.item() == masked.sum()
    np.testing.assert_array_equal(spec.grad.numpy(), (~masked).astype(float))


def test_masks_are_deterministic_under_seed():
    spec = chainrule.from_numpy(RNG.uniform(1, 2, (2, 10, 30)))
    runs = []
    for _ in range(2):
        chainrule.manual_seed(7)
        runs.append(CF.mask_along_axis_iid(spec, 12, 0.0, axis=2).numpy())
    np.testing.assert_array_equal(runs[0], runs[1])


def test_masks_noop_when_no_width_allowed(TF):
    spec = RNG.uniform(1, 2, (2, 10, 30))
    t, c = torch.from_numpy(spec), chainrule.from_numpy(spec)
    np.testing.assert_array_equal(
        CF.mask_along_axis(c, 10, 0.0, 2, p=0.01).numpy(),
        TF.mask_along_axis(t, 10, 0.0, 2, p=0.01).numpy(),
    )
    np.testing.assert_array_equal(CF.mask_along_axis_iid(c, 0, 0.0, 2).numpy(), spec)


def test_mask_errors_match(TF):
    t, c = torch.zeros(2, 3, 4), chainrule.zeros(2, 3, 4)
    same_error(lambda: TF.mask_along_axis(t, 2, 0.0, 0), lambda: CF.mask_along_axis(c, 2, 0.0, 0))
    same_error(
        lambda: TF.mask_along_axis(t, 2, 0.0, 2, p=1.5),
        lambda: CF.mask_along_axis(c, 2, 0.0, 2, p=1.5),
    )
    same_error(
        lambda: TF.mask_along_axis(t[0, 0], 2, 0.0, 0),
        lambda: CF.mask_along_axis(c[0, 0], 2, 0.0, 0),
    )
    same_error(
        lambda: TF.mask_along_axis_iid(t[0], 2, 0.0, 1),
        lambda: CF.mask_along_axis_iid(c[0], 2, 0.0, 1),
    )
    same_error(
        lambda: TF.mask_along_axis_iid(t, 2, 0.0, 0),
        lambda: CF.mask_along_axis_iid(c, 2, 0.0, 0),
    )


# ------------------------------------------------------------------ deltas, pitch, CMN


@pytest.mark.parametrize("win_length,mode", [(5, "replicate"), (7, "reflect"), (3, "constant")])
def test_compute_deltas_matches(TF, win_length, mode):
    spec = RNG.normal(size=(2, 3, 10, 12))
    check(
        lambda s: TF.compute_deltas(s, win_length, mode),
        lambda s: CF.compute_deltas(s, win_length, mode),
        [spec],
    )
    check(
        lambda s: TF.compute_deltas(s, win_length, mode),
        lambda s: CF.compute_deltas(s, win_length, mode),
        [spec],
        tol=1e-5,
        grad=False,
        dtype=np.float32,
    )


def test_compute_deltas_error_matches(TF):
    same_error(
        lambda: TF.compute_deltas(torch.zeros(2, 5), 2),
        lambda: CF.compute_deltas(chainrule.zeros(2, 5), 2),
    )


def test_detect_pitch_frequency_matches(TF):
    sr = 8000
    time = np.arange(4000) / sr
    wave = np.stack(
        [
            np.sin(2 * np.pi * 220 * time),
            np.sin(2 * np.pi * 440 * time) + 0.1 * RNG.normal(size=4000),
        ]
    )
    for dtype, kwargs in ((np.float64, {}), (np.float32, {"win_length": 5, "freq_low": 100})):
        t, c = torch.from_numpy(wave.astype(dtype)), chainrule.from_numpy(wave.astype(dtype))
        expected = TF.detect_pitch_frequency(t, sr, **kwargs)
        _close(CF.detect_pitch_frequency(c, sr, **kwargs), expected, 1e-6)
    assert abs(np.median(expected[0].numpy()) - 220) < 5


def directional_derivative_check(cr_fn, array, tol=1e-6, eps=1e-6):
    """``<grad f(x), v>`` equals the central difference ``(f(x + eps v) - f(x - eps v)) / 2eps``
    for a random direction ``v`` (where torchaudio's own backward cannot run here)."""
    direction = RNG.normal(size=array.shape)
    x = chainrule.tensor(array, requires_grad=True)
    weights = chainrule.from_numpy(RNG.normal(size=tuple(cr_fn(x).shape)))
    (cr_fn(x) * weights).sum().backward()
    analytic = float((x.grad.numpy() * direction).sum())

    def f(a):
        return float((cr_fn(chainrule.from_numpy(a)) * weights).sum())

    numeric = (f(array + eps * direction) - f(array - eps * direction)) / (2 * eps)
    assert abs(analytic - numeric) <= tol * max(1.0, abs(numeric))


@pytest.mark.parametrize(
    "args",
    [
        (20, 10, False, False),
        (20, 10, True, False),
        (20, 10, False, True),
        (7, 3, True, True),
        (600, 100, False, True),
        (10, 60, False, True),
    ],
)
def test_sliding_window_cmn_matches(TF, args):
    spec = RNG.normal(size=(2, 40, 4))
    norm_vars = args[3]
    # torchaudio's norm_vars path writes in place and cannot backpropagate.
    check(
        lambda s: TF.sliding_window_cmn(s, *args),
        lambda s: CF.sliding_window_cmn(s, *args),
        [spec],
        tol=1e-9,
        grad=not norm_vars,
    )
    if norm_vars:
        directional_derivative_check(lambda s: CF.sliding_window_cmn(s, *args), spec)


def test_sliding_window_cmn_2d_float32(TF):
    check(
        lambda s: TF.sliding_window_cmn(s, 10, 5, False, True),
        lambda s: CF.sliding_window_cmn(s, 10, 5, False, True),
        [RNG.normal(size=(30, 3))],
        tol=1e-5,
        grad=False,
        dtype=np.float32,
    )


def test_edit_distance_matches(TF):
    pairs = [
        ("kitten", "sitting"),
        ("", "abc"),
        ("abc", ""),
        (["the", "cat", "sat"], ["the", "cat", "sat", "down"]),
        ([1, 2, 3, 4], [4, 3, 2, 1]),
    ]
    for a, b in pairs:
        assert CF.edit_distance(a, b) == TF.edit_distance(a, b)
        assert isinstance(CF.edit_distance(a, b), int)


# ------------------------------------------------------------------ noise, convolution


@pytest.mark.parametrize("mode", ["full", "valid", "same"])
def test_convolve_and_fftconvolve_match(TF, mode):
    x, y = RNG.normal(size=(3, 2, 40)), RNG.normal(size=(1, 2, 7))
    for name in ("convolve", "fftconvolve"):
        ta_fn, cr_fn = getattr(TF, name), getattr(CF, name)
        check(
            lambda a, b, ta_fn=ta_fn: ta_fn(a, b, mode),
            lambda a, b, cr_fn=cr_fn: cr_fn(a, b, mode),
            [x, y],
        )
        check(
            lambda a, b, ta_fn=ta_fn: ta_fn(a, b, mode),
            lambda a, b, cr_fn=cr_fn: cr_fn(a, b, mode),
            [y, x],
        )
        check(
            lambda a, b, ta_fn=ta_fn: ta_fn(a, b, mode),
            lambda a, b, cr_fn=cr_fn: cr_fn(a, b, mode),
            [x, y],
            tol=1e-4,
            grad=False,
            dtype=np.float32,
        )


def test_convolve_errors_match(TF):
    a, b = np.zeros((2, 5)), np.zeros((3, 4))
    for name in ("convolve", "fftconvolve"):
        ta_fn, cr_fn = getattr(TF, name), getattr(CF, name)
        same_error(
            lambda ta_fn=ta_fn: ta_fn(torch.from_numpy(a), torch.from_numpy(b)),
            lambda cr_fn=cr_fn: cr_fn(chainrule.from_numpy(a), chainrule.from_numpy(b)),
        )
        same_error(
            lambda ta_fn=ta_fn: ta_fn(torch.from_numpy(a), torch.from_numpy(a[0])),
            lambda cr_fn=cr_fn: cr_fn(chainrule.from_numpy(a), chainrule.from_numpy(a[0])),
        )
        same_error(
            lambda ta_fn=ta_fn: ta_fn(torch.from_numpy(a), torch.from_numpy(a), "nope"),
            lambda cr_fn=cr_fn: cr_fn(chainrule.from_numpy(a), chainrule.from_numpy(a), "nope"),
        )


def test_add_noise_matches(TF):
    x, n = RNG.normal(size=(3, 2, 40)), RNG.normal(size=(3, 2, 40))
    snr = RNG.uniform(0, 20, (3, 2))
    lengths = np.array([[40, 30], [20, 10], [5, 40]])
    check(TF.add_noise, CF.add_noise, [x, n, snr])
    check(
        lambda a, b, s: TF.add_noise(a, b, s, torch.from_numpy(lengths)),
        lambda a, b, s: CF.add_noise(a, b, s, chainrule.from_numpy(lengths)),
        [x, n, snr],
    )
    check(TF.add_noise, CF.add_noise, [x, n, snr], tol=1e-5, grad=False, dtype=np.float32)


def test_add_noise_errors_match(TF):
    x, s = np.zeros((2, 10)), np.zeros((2,))
    same_error(
        lambda: TF.add_noise(torch.from_numpy(x), torch.from_numpy(x), torch.from_numpy(x)),
        lambda: CF.add_noise(*[chainrule.from_numpy(x)] * 3),
    )
    same_error(
        lambda: TF.add_noise(torch.from_numpy(x), torch.from_numpy(x[:, :5]), torch.from_numpy(s)),
        lambda: CF.add_noise(
            chainrule.from_numpy(x), chainrule.from_numpy(x[:, :5]), chainrule.from_numpy(s)
        ),
    )


def test_preemphasis_matches(TF):
    x = RNG.normal(size=(2, 3, 25))
    check(lambda v: TF.preemphasis(v, 0.9), lambda v: CF.preemphasis(v, 0.9), [x])
    check(TF.preemphasis, CF.preemphasis, [x], tol=1e-6, grad=False, dtype=np.float32)


def test_frechet_distance_matches(TF):
    a, b = RNG.normal(size=(4, 4)), RNG.normal(size=(4, 4))
    arrays = [RNG.normal(size=4), a @ a.T + np.eye(4), RNG.normal(size=4), b @ b.T + np.eye(4)]
    check(TF.frechet_distance, CF.frechet_distance, arrays, tol=1e-9, grad=False)
    t, c = torch.zeros(3), chainrule.zeros(3)
    same_error(
        lambda: TF.frechet_distance(t[None], t, t, t),
        lambda: CF.frechet_distance(c[None], c, c, c),
    )
    same_error(lambda: TF.frechet_distance(t, t, t, t), lambda: CF.frechet_distance(c, c, c, c))


def test_frechet_distance_gradient_of_means(TF):
    a = RNG.normal(size=(3, 3))
    sigma = a @ a.T + np.eye(3)
    check(
        lambda mx, my: TF.frechet_distance(mx, torch.from_numpy(sigma), my, torch.eye(3).double()),
        lambda mx, my: CF.frechet_distance(
            mx, chainrule.from_numpy(sigma), my, chainrule.eye(3, dtype=chainrule.float64)
        ),
        [RNG.normal(size=3), RNG.normal(size=3)],
        tol=1e-9,
    )


# ------------------------------------------------------------------ alignment


def test_merge_tokens_matches(TF, ta):
    tokens = np.array([0, 0, 3, 3, 0, 5, 5, 5, 3, 0, 0, 3])
    scores = RNG.uniform(size=12)
    expected = TF.merge_tokens(torch.from_numpy(tokens), torch.from_numpy(scores))
    mine = CF.merge_tokens(chainrule.from_numpy(tokens), chainrule.from_numpy(scores))
    assert [(s.token, s.start, s.end, len(s)) for s in mine] == [
        (s.token, s.start, s.end, len(s)) for s in expected
    ]
    np.testing.assert_allclose([s.score for s in mine], [s.score for s in expected], rtol=1e-12)
    assert [s.token for s in CF.merge_tokens(chainrule.from_numpy(tokens), scores, blank=3)] == [
        s.token for s in TF.merge_tokens(torch.from_numpy(tokens), torch.from_numpy(scores), 3)
    ]
    assert isinstance(mine[0], CF.TokenSpan)
    same_error(
        lambda: TF.merge_tokens(torch.zeros(2, 2), torch.zeros(2)),
        lambda: CF.merge_tokens(chainrule.zeros(2, 2), chainrule.zeros(2)),
    )


def _ctc_collapse(path, blank):
    out = []
    for i, tok in enumerate(path):
        if tok != blank and (i == 0 or tok != path[i - 1]):
            out.append(tok)
    return out


def _brute_force_alignment(emissions, tokens, blank):
    """The best path by enumerating every frame labelling that collapses to ``tokens``."""
    alphabet = sorted({blank, *tokens})
    best, best_path = -np.inf, None
    for path in itertools.product(alphabet, repeat=emissions.shape[0]):
        if _ctc_collapse(path, blank) == list(tokens):
            score = emissions[np.arange(len(path)), list(path)].sum()
            if score > best:
                best, best_path = score, path
    return np.array(best_path)


@pytest.mark.parametrize(
    "T,tokens,blank",
    [(6, [1, 2], 0), (7, [2, 2, 1], 0), (5, [1, 3, 2], 0), (7, [0, 2], 3), (4, [1, 1], 0)],
)
def test_forced_align_is_the_best_path(T, tokens, blank):
    emissions = np.log(RNG.dirichlet(np.ones(4), size=T))[None]
    for dtype, target_dtype in ((np.float64, np.int64), (np.float32, np.int32)):
        paths, scores = CF.forced_align(
            chainrule.from_numpy(emissions.astype(dtype)),
            chainrule.from_numpy(np.array([tokens], dtype=target_dtype)),
            blank=blank,
        )
        expected = _brute_force_alignment(emissions[0], tokens, blank)
        np.testing.assert_array_equal(paths.numpy()[0], expected)
        assert paths.dtype == getattr(chainrule, np.dtype(target_dtype).name)
        assert scores.dtype == getattr(chainrule, np.dtype(dtype).name)
        np.testing.assert_allclose(
            scores.numpy()[0], emissions[0, np.arange(T), expected].astype(dtype), rtol=1e-6
        )


def test_forced_align_checks():
    emissions = chainrule.from_numpy(np.log(np.full((1, 4, 3), 1 / 3)))
    mine = chainrule.tensor([[1, 2]])
    with pytest.raises(ValueError, match="targets Tensor shouldn't contain blank index"):
        CF.forced_align(emissions, chainrule.tensor([[0, 1]]))
    with pytest.raises(ValueError, match="targets values must be less than the CTC dimension"):
        CF.forced_align(emissions, mine + 5)
    for kwargs, message in [
        ({"log_probs": emissions[0]}, "log_probs must be 3-D"),
        ({"log_probs": chainrule.cat([emissions] * 2)}, "batch dimension for log_probs"),
        ({"input_lengths": chainrule.tensor([3])}, "input length mismatch"),
        ({"target_lengths": chainrule.tensor([1])}, "target length mismatch"),
        ({"targets": chainrule.tensor([[1, 1, 1]])}, "targets length is too long for CTC"),
        ({"log_probs": emissions.float(), "targets": mine.double()}, "int32 or int64"),
    ]:
        call = {"log_probs": emissions, "targets": mine, **kwargs}
        with pytest.raises(RuntimeError, match=message):
            CF.forced_align(**call)


def _brute_force_rnnt(logits, targets, logit_lengths, target_lengths, blank, fused):
    """``-log`` of the sum over every ordering of T blanks and U labels (last a blank)."""
    costs = []
    for b in range(logits.shape[0]):
        T, U = int(logit_lengths[b]), int(target_lengths[b])
        lp = logits[b].log_softmax(-1) if fused else logits[b]
        scores = []
        for label_slots in itertools.combinations(range(T - 1 + U), U):
            t = u = 0
            score = 0
            for k in range(T - 1 + U):
                if k in label_slots:
                    score = score + lp[t, u, targets[b, u]]
                    u += 1
                else:
                    score = score + lp[t, u, blank]
                    t += 1
            scores.append(score + lp[T - 1, U, blank])
        costs.append(-torch.logsumexp(torch.stack(scores), 0))
    return torch.stack(costs)


@pytest.fixture(scope="module")
def rnnt_case():
    B, T, U, D = 3, 4, 3, 5
    logits = RNG.normal(size=(B, T, U + 1, D)).astype(np.float32)
    targets = RNG.integers(1, D - 1, size=(B, U)).astype(np.int32)
    logit_lengths = np.array([4, 3, 4], np.int32)
    target_lengths = np.array([3, 2, 0], np.int32)
    return logits, targets, logit_lengths, target_lengths


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("blank", [0, -1])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_rnnt_loss_matches_brute_force(rnnt_case, fused, blank, reduction):
    logits, targets, logit_lengths, target_lengths = rnnt_case
    D = logits.shape[-1]
    targets = np.where(targets == blank % D, 2, targets).astype(np.int32)
    reference_logits = torch.tensor(logits.astype(np.float64), requires_grad=True)
    costs = _brute_force_rnnt(
        reference_logits, targets, logit_lengths, target_lengths, blank % D, fused
    )
    expected = {"none": costs, "mean": costs.mean(), "sum": costs.sum()}[reduction]
    weights = RNG.normal(size=tuple(expected.shape))
    (expected * torch.from_numpy(weights)).sum().backward()

    mine_logits = chainrule.tensor(logits, requires_grad=True)
    loss = CF.rnnt_loss(
        mine_logits,
        *map(chainrule.from_numpy, (targets, logit_lengths, target_lengths)),
        blank=blank,
        reduction=reduction,
        fused_log_softmax=fused,
    )
    assert loss.dtype == chainrule.float32
    np.testing.assert_allclose(loss.detach().numpy(), expected.detach().numpy(), rtol=1e-5)
    (loss * chainrule.from_numpy(weights.astype(np.float32))).sum().backward()
    np.testing.assert_allclose(mine_logits.grad.numpy(), reference_logits.grad.numpy(), atol=1e-6)


def test_rnnt_loss_clamps_gradients(rnnt_case):
    logits, targets, logit_lengths, target_lengths = rnnt_case
    full = chainrule.tensor(logits, requires_grad=True)
    clamped = chainrule.tensor(logits, requires_grad=True)
    args = [chainrule.from_numpy(a) for a in (targets, logit_lengths, target_lengths)]
    CF.rnnt_loss(full, *args, blank=0, reduction="sum").backward()
    CF.rnnt_loss(clamped, *args, blank=0, clamp=0.1, reduction="sum").backward()
    np.testing.assert_allclose(clamped.grad.numpy(), np.clip(full.grad.numpy(), -0.1, 0.1))
    assert np.abs(full.grad.numpy()).max() > 0.1


def test_rnnt_loss_checks(rnnt_case):
    logits, targets, logit_lengths, target_lengths = (chainrule.from_numpy(a) for a in rnnt_case)
    good = {
        "logits": logits,
        "targets": targets,
        "logit_lengths": logit_lengths,
        "target_lengths": target_lengths,
    }
    for change, message in [
        ({"logits": logits.double()}, "logits must be float32 or float16"),
        ({"targets": targets.long()}, "targets must be int32 type"),
        ({"logit_lengths": logit_lengths.long()}, "logit_lengths must be int32 type"),
        ({"logits": logits[0]}, "logits must be 4-D"),
        ({"targets": targets[:2]}, "batch dimension mismatch between logits and targets"),
        ({"logit_lengths": logit_lengths - 1}, "input length mismatch"),
        ({"target_lengths": target_lengths - 1}, "output length mismatch"),
        ({"blank": 7}, "blank must be within"),
    ]:
        with pytest.raises(RuntimeError, match=message):
            CF.rnnt_loss(**{**good, **change})
    with pytest.raises(ValueError, match="reduction should be one of"):
        CF.rnnt_loss(**good, reduction="avg")


# ------------------------------------------------------------------ uses the filtering helpers


def test_loudness_matches(TF):
    wave = RNG.normal(size=(2, 3, 8000)) * 0.1
    wave[1, :, :4000] *= 1e-5  # quiet blocks, gated out
    for dtype, tol in ((np.float64, 1e-8), (np.float32, 1e-4)):
        # torchaudio's lfilter cannot backpropagate without its compiled library.
        check(
            lambda w: TF.loudness(w, 8000),
            lambda w: CF.loudness(w, 8000),
            [wave],
            tol=tol,
            grad=False,
            dtype=dtype,
        )
    directional_derivative_check(lambda w: CF.loudness(w, 8000), wave, tol=1e-5)
    same_error(
        lambda: TF.loudness(torch.zeros(6, 8000), 8000),
        lambda: CF.loudness(chainrule.zeros(6, 8000), 8000),
    )


def test_deemphasis_matches(TF):
    x = RNG.normal(size=(2, 3, 25)) * 0.05
    for dtype, tol in ((np.float64, 1e-10), (np.float32, 1e-6)):
        check(
            lambda v: TF.deemphasis(v, 0.9),
            lambda v: CF.deemphasis(v, 0.9),
            [x],
            tol=tol,
            grad=False,
            dtype=dtype,
        )
    # y = M x with M[i, j] = 0.9^(i-j) (i >= j) while nothing clamps, so dL/dx = M^T w.
    weights = RNG.normal(size=x.shape)
    mine = chainrule.tensor(x, requires_grad=True)
    (CF.deemphasis(mine, 0.9) * chainrule.from_numpy(weights)).sum().backward()
    i, j = np.indices((25, 25))
    M = np.where(i >= j, 0.9 ** (i - j), 0.0)
    np.testing.assert_allclose(mine.grad.numpy(), weights @ M, rtol=1e-10, atol=1e-12)
