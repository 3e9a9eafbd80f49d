"""Grad modes against PyTorch: ``no_grad``, ``enable_grad``, ``set_grad_enabled`` and
``inference_mode``, as context managers and decorators (on generator functions too),
nested, restored after an exception, and thread-local.
"""

from __future__ import annotations

import threading
import warnings

import pytest
import torch

import chainrule as cr
from chainrule import _modes
from oracle import (
    both,
)


def test_no_grad_and_enable_grad_nesting():
    def f(L):
        x = L.ones(2, requires_grad=True)
        r = []
        with L.no_grad():
            r.append(L.is_grad_enabled())
            r.append((x * 2).requires_grad)
            with L.enable_grad():
                r.append(L.is_grad_enabled())
                r.append((x * 2).requires_grad)
                with L.no_grad():
                    r.append((x * 2).requires_grad)
                r.append(L.is_grad_enabled())
            r.append(L.is_grad_enabled())
        r.append(L.is_grad_enabled())
        return r

    c, t = both(f)
    assert c == t == [False, False, True, True, False, True, False, True]


def test_no_grad_results_are_leaves():
    x = cr.ones(2, requires_grad=True)
    with cr.no_grad():
        y = x * 2
    assert (y.requires_grad, y.grad_fn, y.is_leaf) == (False, None, True)
    assert (x * 2).requires_grad


def test_grad_mode_decorators():
    def f(L):
        x = L.ones(2, requires_grad=True)

        @L.no_grad()
        def a():
            return (x * 2).requires_grad, L.is_grad_enabled()

        @L.no_grad
        def b():
            return (x * 2).requires_grad, L.is_grad_enabled()

        @L.enable_grad()
        def c():
            return (x * 2).requires_grad

        @L.enable_grad
        def d():
            return (x * 2).requires_grad

        @L.set_grad_enabled(False)
        def e():
            return L.is_grad_enabled()

        @L.inference_mode()
        def g():
            return L.is_grad_enabled(), (x * 2).requires_grad

        @L.inference_mode
        def h():
            return L.is_grad_enabled()

        with L.no_grad():
            cd = (c(), d())
        return a(), b(), cd, e(), g(), h(), L.is_grad_enabled(), a.__name__, b.__name__

    c, t = both(f)
    assert c == t
    assert c[-2:] == ("a", "b")


def test_grad_mode_decorators_on_generator_functions():
    def f(L):
        x = L.ones(2, requires_grad=True)

        @L.no_grad()
        def without():
            for _ in range(2):
                yield (x * 2).requires_grad, L.is_grad_enabled()

        @L.enable_grad()
        def with_grad():
            yield (x * 2).requires_grad

        outside = list(without())
        with L.no_grad():
            inside = list(with_grad())
        return outside, inside, L.is_grad_enabled()

    c, t = both(f)
    assert c == t == ([(False, False), (False, False)], [True], True)


def test_set_grad_enabled():
    def f(L):
        x = L.ones(2, requires_grad=True)
        r = []
        with L.set_grad_enabled(False):
            r.append((x * 2).requires_grad)
        r.append(L.is_grad_enabled())
        L.set_grad_enabled(False)
        r.append(L.is_grad_enabled())
        r.append((x * 2).requires_grad)
        L.set_grad_enabled(True)
        r.append(L.is_grad_enabled())
        with L.no_grad():
            with L.set_grad_enabled(True):
                r.append((x * 2).requires_grad)
            r.append(L.is_grad_enabled())
        r.append(L.is_grad_enabled())
        return r

    c, t = both(f)
    assert c == t


def test_inference_mode():
    def f(L):
        x = L.ones(2, requires_grad=True)
        r = []
        with L.inference_mode():
            r += [L.is_grad_enabled(), (x * 2).requires_grad, L.is_inference_mode_enabled()]
        r += [L.is_inference_mode_enabled(), L.is_grad_enabled()]
        with L.inference_mode(False):
            r += [L.is_grad_enabled(), (x * 2).requires_grad]
        return r

    c, t = both(f)
    assert c == t


def test_grad_mode_restored_after_exception():
    for L in (cr, torch):
        with pytest.raises(ValueError):
            with L.no_grad():
                raise ValueError
        assert L.is_grad_enabled()

        @L.no_grad()
        def boom():
            raise KeyError

        with pytest.raises(KeyError):
            boom()
        assert L.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = {}

    def worker():
        seen["enabled"] = cr.is_grad_enabled()
        seen["records"] = (cr.ones(2, requires_grad=True) * 2).requires_grad

    with cr.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not cr.is_grad_enabled()
    assert cr.is_grad_enabled()
    assert seen == {"enabled": True, "records": True}

    changed, check = threading.Event(), threading.Event()

    def disabler():
        cr.set_grad_enabled(False)
        seen["thread"] = cr.is_grad_enabled()
        changed.set()
        check.wait(10)

    t = threading.Thread(target=disabler)
    t.start()
    assert changed.wait(10)
    try:
        assert cr.is_grad_enabled()
        assert (cr.ones(2, requires_grad=True) * 2).requires_grad
    finally:
        check.set()
        t.join()
    assert seen["thread"] is False


# ----- the hot paths' flag (_modes.usual): False exactly while something is on ------------


def _flag_is_consistent() -> bool:
    return _modes.usual[0] is (not _modes._reasons and not _modes._off)


@pytest.mark.parametrize(
    "mode, reason",
    [
        (cr.no_grad, "grad"),
        (lambda: cr.set_grad_enabled(False), "grad"),
        (cr.inference_mode, "inference"),
        (cr.autograd.forward_ad.dual_level, "forward"),
        (cr.autograd.detect_anomaly, "anomaly"),
        (cr.explain.record, "anomaly"),
    ],
    ids=["no_grad", "set_grad_enabled", "inference_mode", "dual_level", "anomaly", "explain"],
)
def test_the_hot_paths_flag_is_off_while_a_mode_is_on(mode, reason):
    before = set(_modes._reasons), set(_modes._off)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (detect_anomaly warns that it slows things down)
        with mode():
            assert not _modes.usual[0]
            on = (
                threading.get_ident() in _modes._off
                if reason == "grad"
                else reason in _modes._reasons
            )
            assert on and _flag_is_consistent()
            x = cr.ones(3, requires_grad=True)
            # the hot entries still do what the mode says
            records = reason not in ("grad", "inference")
            for y in (x + x, x * 2, cr.relu(x), x.sum(), x[1:]):
                assert y.requires_grad is records
    assert (set(_modes._reasons), set(_modes._off)) == before and _flag_is_consistent()


def test_the_hot_paths_flag_follows_another_threads_grad_mode():
    changed, check = threading.Event(), threading.Event()

    def disabler():
        with cr.no_grad():
            changed.set()
            check.wait(10)

    t = threading.Thread(target=disabler)
    t.start()
    assert changed.wait(10)
    try:
        # the other thread's no_grad turns the flag off; this thread still records
        assert not _modes.usual[0] and _flag_is_consistent()
        assert (cr.ones(2, requires_grad=True) * 2).grad_fn.name() == "MulBackward0"
    finally:
        check.set()
        t.join()
    assert _flag_is_consistent() and t.ident not in _modes._off


def test_the_hot_paths_flag_stays_right_under_threads_switching_grad_mode():
    """Threads entering and leaving no_grad at once: each thread's ops always do what its own
    grad mode says, and the flag ends as the sets say."""
    errors = []
    start = threading.Barrier(4)

    def worker():
        start.wait(10)
        x = cr.ones(2, requires_grad=True)
        for _ in range(300):
            with cr.no_grad():
                if (x * 2).requires_grad or _modes.usual[0]:
                    errors.append("recorded under no_grad, or the flag on")
            if not (x * 2).requires_grad:
                errors.append("not recorded with grad mode on")

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert _flag_is_consistent() and not any(t.ident in _modes._off for t in threads)
