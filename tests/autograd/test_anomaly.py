"""Anomaly detection: nan gradients name their node and the line that created it."""

from __future__ import annotations

import warnings

import pytest
import torch

import chainrule as cr


def _sqrt_at_zero(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt()  # the line the error must point at
    return (y * 0).sum()


def test_nan_gradient_names_node_like_torch():
    messages = []
    for lib in (cr, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                z = _sqrt_at_zero(lib)
                with pytest.raises(RuntimeError) as info:
                    z.backward()
        messages.append(str(info.value).splitlines()[0])
    assert (
        messages[0]
        == messages[1]
        == ("Function 'SqrtBackward0' returned nan values in its 0th output.")
    )


def test_error_shows_the_users_line():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with cr.autograd.detect_anomaly():
            z = _sqrt_at_zero(cr)
            with pytest.raises(RuntimeError) as info:
                z.backward()
    assert "y = x.sqrt()  # the line the error must point at" in str(info.value)
    assert "test_anomaly.py" in str(info.value)


def test_without_anomaly_mode_nan_passes_silently_as_in_torch():
    grads = []
    for lib in (cr, torch):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        (x.sqrt() * 0).sum().backward()
        grads.append(x.grad.tolist())
    assert str(grads[0]) == str(grads[1])  # [nan, 0.0] in both


def test_set_detect_anomaly_restores():
    with cr.autograd.set_detect_anomaly(True):
        assert cr.autograd.is_anomaly_enabled()
    assert not cr.autograd.is_anomaly_enabled()


def test_check_nan_false_does_not_raise():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with cr.autograd.detect_anomaly(check_nan=False):
            z = _sqrt_at_zero(cr)
            z.backward()
