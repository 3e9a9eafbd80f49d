"""chainrule.audio's PSD / RTF / MVDR functions and modules against the real torchaudio."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule
import chainrule.audio.functional as CF
import chainrule.audio.transforms as CT

RNG = np.random.default_rng(11)
BATCH, CHANNEL, FREQ, TIME = 2, 4, 5, 30


def complex_array(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


SPEC = complex_array(BATCH, CHANNEL, FREQ, TIME)
MASK = RNG.uniform(size=(BATCH, FREQ, TIME))
MASK_N = RNG.uniform(size=(BATCH, FREQ, TIME))


def psd_matrices(rank: int) -> np.ndarray:
    """Hermitian positive (semi-)definite ``(BATCH, FREQ, CHANNEL, CHANNEL)`` matrices."""
    z = complex_array(BATCH, FREQ, CHANNEL, rank)
    return z @ np.conj(np.swapaxes(z, -1, -2))


PSD_S = psd_matrices(2)
PSD_N = psd_matrices(6)
RTF = complex_array(BATCH, FREQ, CHANNEL)
REF = np.eye(CHANNEL)[1] * 0.7 + np.eye(CHANNEL)[3] * 0.3


def both(array, dtype=None, grad=False):
    array = np.asarray(array, dtype=dtype) if dtype is not None else np.asarray(array)
    return torch.tensor(array, requires_grad=grad), chainrule.tensor(array, requires_grad=grad)


def close(c_out, t_out, rtol=1e-10, atol=1e-10):
    assert tuple(c_out.shape) == tuple(t_out.shape)
    expected = t_out.detach().resolve_conj().numpy()
    np.testing.assert_allclose(c_out.detach().numpy(), expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("mask", [None, "plain", "unnormalized"])
def test_psd(ta, mask):
    st, sc = both(SPEC)
    kwargs = {}
    if mask is not None:
        mt, mc = both(MASK)
        kwargs = {"normalize": mask == "plain"}
        close(CF.psd(sc, mc, **kwargs), ta.functional.psd(st, mt, **kwargs))
    else:
        close(CF.psd(sc), ta.functional.psd(st))


def test_psd_bad_mask(ta):
    with pytest.raises(ValueError, match="The dimensions of mask except the channel dimension"):
        CF.psd(chainrule.tensor(SPEC), chainrule.tensor(MASK[..., :-1]))


@pytest.mark.parametrize("reference", ["int", "vector"])
@pytest.mark.parametrize("loading", [True, False])
def test_mvdr_weights_souden(ta, reference, loading):
    (pst, psc), (pnt, pnc) = both(PSD_S), both(PSD_N)
    ref_t, ref_c = (2, 2) if reference == "int" else both(REF)
    close(
        CF.mvdr_weights_souden(psc, pnc, ref_c, diagonal_loading=loading),
        ta.functional.mvdr_weights_souden(pst, pnt, ref_t, diagonal_loading=loading),
    )


@pytest.mark.parametrize("reference", [None, "int", "vector"])
def test_mvdr_weights_rtf(ta, reference):
    (rt, rc), (pnt, pnc) = both(RTF), both(PSD_N)
    ref_t, ref_c = (
        (None, None) if reference is None else (1, 1) if reference == "int" else both(REF)
    )
    close(CF.mvdr_weights_rtf(rc, pnc, ref_c), ta.functional.mvdr_weights_rtf(rt, pnt, ref_t))


def test_rtf_evd(ta):
    pst, psc = both(PSD_S)
    expected = ta.functional.rtf_evd(pst).numpy()
    got = CF.rtf_evd(psc).numpy()
    # Eigenvectors are defined up to a unit phase: compare after aligning it.
    phase = np.sum(np.conj(got) * expected, axis=-1, keepdims=True)
    phase = phase / np.abs(phase)
    np.testing.assert_allclose(got * phase, expected, atol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(got, axis=-1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("n_iter", [1, 2, 3, 5])
@pytest.mark.parametrize("reference", ["int", "vector"])
def test_rtf_power(ta, n_iter, reference):
    (pst, psc), (pnt, pnc) = both(PSD_S), both(PSD_N)
    ref_t, ref_c = (0, 0) if reference == "int" else both(REF)
    close(
        CF.rtf_power(psc, pnc, ref_c, n_iter=n_iter),
        ta.functional.rtf_power(pst, pnt, ref_t, n_iter=n_iter),
        rtol=1e-9,
    )


def test_apply_beamforming_and_gradient(ta):
    (wt, wc), (st, sc) = both(RTF, grad=True), both(SPEC, grad=True)
    yt, yc = ta.functional.apply_beamforming(wt, st), CF.apply_beamforming(wc, sc)
    close(yc, yt)
    yt.abs().sum().backward()
    yc.abs().sum().backward()
    close(wc.grad, wt.grad, rtol=1e-9)
    close(sc.grad, st.grad, rtol=1e-9)


def test_souden_gradient(ta):
    (pst, psc), (pnt, pnc) = both(PSD_S, grad=True), both(PSD_N, grad=True)
    ta.functional.mvdr_weights_souden(pst, pnt, 0).abs().pow(2).sum().backward()
    CF.mvdr_weights_souden(psc, pnc, 0).abs().pow(2).sum().backward()
    close(psc.grad, pst.grad, rtol=1e-8, atol=1e-10)
    close(pnc.grad, pnt.grad, rtol=1e-8, atol=1e-10)


def test_errors():
    psd_c = chainrule.tensor(PSD_S)
    real = chainrule.tensor(PSD_S.real)
    with pytest.raises(TypeError, match="must be ``torch.cfloat`` or ``torch.cdouble``"):
        CF.mvdr_weights_souden(real, real, 0)
    with pytest.raises(ValueError, match="should be the same"):
        CF.mvdr_weights_souden(psd_c, psd_c[..., :3, :3], 0)
    with pytest.raises(ValueError, match="The number of iteration must be greater than 0."):
        CF.rtf_power(psd_c, psd_c, 0, n_iter=0)
    with pytest.raises(TypeError, match='Expected "int" or "Tensor" for reference_channel'):
        CF.mvdr_weights_souden(psd_c, psd_c, 0.5)
    with pytest.raises(ValueError, match="The dimensions except the last two dimensions"):
        CF.apply_beamforming(chainrule.tensor(RTF[0]), chainrule.tensor(SPEC))


@pytest.mark.parametrize("multi_mask", [False, True])
def test_psd_module(ta, multi_mask):
    mask = RNG.uniform(size=(BATCH, CHANNEL, FREQ, TIME)) if multi_mask else MASK
    (st, sc), (mt, mc) = both(SPEC), both(mask)
    close(CT.PSD(multi_mask)(sc, mc), ta.transforms.PSD(multi_mask)(st, mt))


@pytest.mark.parametrize("solution", ["ref_channel", "stv_evd", "stv_power"])
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_mvdr_module(ta, solution, dtype):
    (st, sc), (mt, mc), (nt, nc) = both(SPEC, dtype), both(MASK), both(MASK_N)
    expected = ta.transforms.MVDR(ref_channel=1, solution=solution)(st, mt, nt)
    got = CT.MVDR(ref_channel=1, solution=solution)(sc, mc, nc)
    assert got.dtype == (chainrule.complex128 if dtype == np.complex128 else chainrule.complex64)
    if solution == "stv_evd":  # the eigenvector's phase cancels in w^H X up to conj(d_ref)
        np.testing.assert_allclose(np.abs(got.numpy()), np.abs(expected.numpy()), rtol=1e-5)
    else:
        close(got, expected, rtol=1e-5 if dtype == np.complex64 else 1e-9, atol=1e-5)


def test_mvdr_online_and_default_noise_mask(ta):
    module_t = ta.transforms.MVDR(ref_channel=0, multi_mask=True, online=True)
    module_c = CT.MVDR(ref_channel=0, multi_mask=True, online=True)
    for _ in range(3):
        spec, mask = complex_array(CHANNEL, FREQ, TIME), RNG.uniform(size=(CHANNEL, FREQ, TIME))
        (st, sc), (mt, mc) = both(spec), both(mask)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = module_t(st, mt)
        with pytest.warns(UserWarning, match="mask_n"):
            got = module_c(sc, mc)
        close(got, expected, rtol=1e-9)
    close(module_c.psd_s, module_t.psd_s, rtol=1e-10)
    close(module_c.mask_sum_n, module_t.mask_sum_n, rtol=1e-12)
    with pytest.raises(ValueError, match="`solution` must be one of"):
        CT.MVDR(solution="foo")


def test_souden_and_rtf_modules(ta):
    (st, sc), (pst, psc), (pnt, pnc), (rt, rc) = both(SPEC), both(PSD_S), both(PSD_N), both(RTF)
    close(CT.SoudenMVDR()(sc, psc, pnc, 1), ta.transforms.SoudenMVDR()(st, pst, pnt, 1))
    close(CT.RTFMVDR()(sc, rc, pnc, 2), ta.transforms.RTFMVDR()(st, rt, pnt, 2))


def test_module_signatures_as_torchaudio(ta):
    import inspect

    for name in ("PSD", "MVDR", "RTFMVDR", "SoudenMVDR"):
        for method in ("__init__", "forward"):
            got = inspect.signature(getattr(getattr(CT, name), method)).parameters
            want = inspect.signature(getattr(getattr(ta.transforms, name), method)).parameters
            assert [(p.name, p.default) for p in got.values()] == [
                (p.name, p.default) for p in want.values()
            ], (name, method)
    assert CT.MVDR().state_dict().keys() == ta.transforms.MVDR().state_dict().keys()
