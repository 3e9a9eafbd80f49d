"""``chainrule.futures`` against ``torch.futures``: completing a Future once, its callbacks
and ``then`` chains (order, results, errors), waiting on one completed by another thread,
``collect_all`` and ``wait_all``."""

from __future__ import annotations

import threading
import time
import warnings

import pytest
import torch

import chainrule as cr
import chainrule.futures  # noqa: F401 - (torch imports torch.futures with torch)

LIBS = {"chainrule": cr, "torch": torch}


def _outcome(fn, lib):
    try:
        return "ok", fn(lib)
    except BaseException as e:  # noqa: BLE001 - the error is the outcome compared
        return type(e).__name__, str(e).split("\n")[0]


def same(fn, expect: str = "ok"):
    """``fn(lib)`` on chainrule and on torch: equal results, or errors of the same type and
    first line of message; ``expect`` is "ok" or the error's type name."""
    ours, theirs = (_outcome(fn, lib) for lib in LIBS.values())
    assert ours == theirs
    assert ours[0] == expect, ours
    return ours[1]


def test_future_is_jit_future():
    assert cr.futures.Future is cr.jit.Future
    assert torch.futures.Future is torch.jit.Future
    assert cr.futures.Future[int] is not None  # a generic class, as PyTorch's


def test_torch_future_is_the_class_of_futures():
    """``torch.Future`` (captum checks ``isinstance(out, torch.Future)``) holds every future:
    made directly, by ``then`` and by ``collect_all``."""

    def fn(lib):
        fut = lib.futures.Future()
        fut.set_result(2)
        made = (fut, fut.then(lambda f: f.value() + 1), lib.futures.collect_all([fut]))
        return [isinstance(f, lib.Future) for f in made], isinstance(lib.ones(1), lib.Future)

    assert fn(cr) == fn(torch) == ([True, True, True], False)
    assert issubclass(cr.jit.Future, cr.Future)


def test_complete_once():
    def fn(lib):
        fut = lib.futures.Future()
        before = fut.done()
        fut.set_result([1, 2])
        return before, fut.done(), fut.value(), fut.wait()

    assert same(fn) == (False, True, [1, 2], [1, 2])
    for second in ("set_result", "set_exception"):

        def twice(lib, second=second):
            fut = lib.futures.Future()
            fut.set_result(1)
            getattr(fut, second)(ValueError("x"))

        same(twice, "RuntimeError")


def test_exception():
    def fn(lib, read):
        fut = lib.futures.Future()
        fut.set_exception(ValueError("bad"))
        assert fut.done()
        getattr(fut, read)()

    same(lambda lib: fn(lib, "wait"), "ValueError")
    same(lambda lib: fn(lib, "value"), "ValueError")
    same(lambda lib: lib.futures.Future().set_exception(5), "AssertionError")
    same(lambda lib: lib.futures.Future().set_exception(ValueError), "AssertionError")


def test_callbacks_run_in_order_with_then_chains():
    def fn(lib):
        order = []
        fut = lib.futures.Future()
        fut.add_done_callback(lambda f: order.append(("first", f.value())))
        chained = fut.then(lambda f: order.append("then") or f.value() * 2)
        fut.add_done_callback(lambda f: order.append("last"))
        pending = chained.done()
        fut.set_result(5)
        late = fut.then(lambda f: f.value() + 1)  # runs at once: fut is complete
        fut.add_done_callback(lambda f: order.append("late"))
        return order, pending, chained.done(), chained.wait(), late.done(), late.wait()

    assert same(fn) == ([("first", 5), "then", "last", "late"], False, True, 10, True, 6)


def test_then_callback_error_completes_the_chained_future():
    def raising(lib):
        fut = lib.futures.Future()
        fut.set_result(1)
        return fut.then(lambda f: 1 / 0).wait()

    message = same(raising, "RuntimeError")
    assert message == (
        "Got the following error when running the callback: ZeroDivisionError: division by zero"
    )

    def from_parent(lib, handle):
        fut = lib.futures.Future()
        chained = fut.then(lambda f: "handled" if handle else f.value())
        fut.set_exception(KeyError("k"))
        return chained.wait()

    same(lambda lib: from_parent(lib, False), "RuntimeError")
    assert same(lambda lib: from_parent(lib, True)) == "handled"


def test_done_callback_error_is_reported_not_raised(capfd):
    def fn(lib):
        fut = lib.futures.Future()
        fut.add_done_callback(lambda f: 1 / 0)
        fut.set_result(1)
        fut.add_done_callback(lambda f: 1 / 0)
        reports = capfd.readouterr().err
        line = "Got the following error when running the callback: ZeroDivisionError"
        return fut.done(), fut.wait(), reports.count(line)

    assert same(fn) == (True, 1, 2)


def test_wait_blocks_until_another_thread_completes():
    def fn(lib):
        fut = lib.futures.Future()
        seen = []
        fut.add_done_callback(lambda f: seen.append(threading.current_thread().name))

        def complete():
            time.sleep(0.05)
            fut.set_result("late")

        thread = threading.Thread(target=complete, name="setter")
        thread.start()
        value = fut.wait()
        thread.join()
        return value, seen

    assert same(fn) == ("late", ["setter"])

    def failing(lib):
        fut = lib.futures.Future()
        threading.Timer(0.05, lambda: fut.set_exception(KeyError("later"))).start()
        fut.wait()

    same(failing, "KeyError")


def test_collect_all():
    def fn(lib):
        a, b = lib.futures.Future(), lib.futures.Future()
        both = lib.futures.collect_all([a, b])
        states = [both.done()]
        b.set_result(2)
        states.append(both.done())
        a.set_result(1)
        states.append(both.done())
        return (
            states,
            [f.value() for f in both.wait()],
            [f.value() for f in both.value()],
        )

    assert same(fn) == ([False, False, True], [1, 2], [1, 2])
    assert same(lambda lib: lib.futures.collect_all([]).wait()) == []
    same(lambda lib: lib.futures.collect_all([1]), "TypeError")
    same(lambda lib: lib.futures.collect_all(None), "TypeError")
    same(lambda lib: lib.futures.collect_all([None]), "RuntimeError")


def test_collect_all_holds_the_first_exception_in_list_order():
    def fn(lib):
        a, b, c = (lib.futures.Future() for _ in range(3))
        every = lib.futures.collect_all([a, b, c])
        c.set_exception(ValueError("c"))
        a.set_result(1)
        b.set_exception(ValueError("b"))
        every.wait()

    assert same(fn, "ValueError") == "b"


def test_wait_all():
    def fn(lib):
        a, b = lib.futures.Future(), lib.futures.Future()
        threading.Timer(0.02, lambda: b.set_result([2])).start()
        a.set_result(1)
        return lib.futures.wait_all([a, b])

    assert same(fn) == [1, [2]]
    assert same(lambda lib: lib.futures.wait_all([])) == []

    def failing(lib):
        a, b = lib.futures.Future(), lib.futures.Future()
        b.set_exception(ValueError("b"))
        a.set_exception(ValueError("a"))
        lib.futures.wait_all([a, b])

    assert same(failing, "ValueError") == "a"
    same(lambda lib: lib.futures.wait_all([1]), "TypeError")
    same(lambda lib: lib.futures.wait_all([None]), "RuntimeError")


def test_forked_futures_collect():
    def fn(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            forked = [lib.jit.fork(lambda k: k * k, k) for k in range(3)]
        return [f.done() for f in forked], lib.futures.wait_all(forked)

    assert same(fn) == ([True, True, True], [0, 1, 4])


@pytest.mark.parametrize(
    "devices, outcome",
    [([], "ok"), (None, "ok"), (["cpu:0"], "ok"), (["cpu"], "ValueError"), ([0], "RuntimeError")],
)
def test_devices(devices, outcome):
    same(lambda lib: lib.futures.Future(devices=devices).done(), outcome)
