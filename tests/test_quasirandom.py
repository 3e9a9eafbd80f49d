"""``torch.quasirandom.SobolEngine`` against PyTorch's: the direction numbers of all 21201
dimensions, the points (bit for bit, float32 and float64, plain and scrambled with a seed)
through draw / draw_base2 / fast_forward / reset / ``out=``, the attributes, repr and errors;
scrambling from the global generator (chainrule's own stream) by the properties that define
it; and ``torch.quasirandom`` under ``chainrule run``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule import quasirandom
from oracle import assert_same_error


def _bits(t) -> tuple[str, tuple[int, ...], bytes]:
    """A tensor's dtype, shape and exact bytes (chainrule's or torch's)."""
    dtype = str(t.dtype)
    if dtype == "torch.bfloat16":  # (NumPy has no bfloat16: its float32 values, exact)
        t = t.float()
    a = t.numpy() if isinstance(t, torch.Tensor) else np.asarray(t._data)
    return dtype, a.shape, np.ascontiguousarray(a).tobytes()


def _run(lib, dimension: int, scramble: bool, seed: int | None) -> list:
    """One program on ``lib``: everything it observes, in order."""
    engine = lib.quasirandom.SobolEngine(dimension, scramble=scramble, seed=seed)
    f64 = lib.float64
    seen = [repr(engine), engine.num_generated, _bits(engine.shift), _bits(engine.quasi)]
    seen.append(_bits(engine.draw()))  # the first point alone
    seen.append(_bits(engine.draw(5, dtype=f64)))
    seen.append(_bits(engine.draw(0)))
    engine.fast_forward(7)
    seen.append(_bits(engine.draw(33)))
    seen += [engine.num_generated, _bits(engine.quasi)]
    engine.reset()
    seen.append(_bits(engine.draw(17, dtype=f64)))  # first point in float32, then widened
    engine.reset().fast_forward(3)
    seen.append(_bits(engine.draw(300)))
    engine.reset()
    seen.append(_bits(engine.draw_base2(3)))
    seen.append(_bits(engine.draw_base2(3, dtype=f64)))
    out = lib.empty(2, 2, dtype=f64)
    result = engine.draw(4, out=out)
    seen += [result is out, _bits(out), engine.num_generated]
    engine.reset().fast_forward(1)
    seen.append(_bits(engine.draw(2)))
    engine.reset().fast_forward(0)
    seen.append(_bits(engine.draw(3)))
    return seen


CASES = [
    (1, False, None),
    (2, False, None),
    (10, False, None),
    (1, True, 0),
    (3, True, -5),
    (7, True, 123),
    (40, True, 2**40 + 3),
    (300, True, 9),
]


@pytest.mark.parametrize("dimension, scramble, seed", CASES)
def test_points_match_torch(dimension, scramble, seed):
    assert _run(cr, dimension, scramble, seed) == _run(torch, dimension, scramble, seed)


def test_direction_numbers_of_every_dimension():
    ours = cr.quasirandom.SobolEngine(21201)
    theirs = torch.quasirandom.SobolEngine(21201)
    np.testing.assert_array_equal(ours.sobolstate._data, theirs.sobolstate.numpy())
    assert str(ours.sobolstate.dtype) == "torch.int64"
    assert _bits(ours.draw(9)) == _bits(theirs.draw(9))


def test_scrambled_in_the_most_dimensions():
    ours = cr.quasirandom.SobolEngine(21201, scramble=True, seed=31)
    theirs = torch.quasirandom.SobolEngine(21201, scramble=True, seed=31)
    np.testing.assert_array_equal(ours.sobolstate._data, theirs.sobolstate.numpy())
    np.testing.assert_array_equal(ours.shift._data, theirs.shift.numpy())
    assert _bits(ours.draw(4)) == _bits(theirs.draw(4))


def _first_points(lib) -> list:
    """The first point is computed at construction, in the default dtype of that moment."""
    seen = []
    for default in (lib.float64, lib.float16, lib.bfloat16, lib.float32):
        previous = lib.get_default_dtype()
        lib.set_default_dtype(default)
        try:
            engine = lib.quasirandom.SobolEngine(4, scramble=True, seed=11)
        finally:
            lib.set_default_dtype(previous)
        seen += [_bits(engine._first_point), _bits(engine.draw(3, dtype=lib.float64))]
    return seen


def test_first_point_takes_the_default_dtype_at_construction():
    assert _first_points(cr) == _first_points(torch)


def test_attributes_and_repr():
    for lib in (cr, torch):
        S = lib.quasirandom.SobolEngine
        assert (S.MAXBIT, S.MAXDIM) == (30, 21201)
        e = S(5, scramble=True, seed=3)
        assert (e.dimension, e.scramble, e.seed, e.num_generated) == (5, True, 3, 0)
        assert repr(e) == "SobolEngine(dimension=5, scramble=True, seed=3)"
        assert repr(S(5, seed=3)) == "SobolEngine(dimension=5, seed=3)"
        assert repr(S(2)) == "SobolEngine(dimension=2)"
        assert [str(t.dtype) for t in (e.sobolstate, e.shift, e.quasi)] == ["torch.int64"] * 3
        assert e.draw(2) is not None and e.num_generated == 2
        assert e.fast_forward(-3) is e and e.num_generated == -1  # (PyTorch does no check)
    e = cr.quasirandom.SobolEngine(3)
    assert e.draw() is e._first_point  # (.to(dtype) of the same dtype: PyTorch's alias)
    assert cr.quasirandom is quasirandom


ERRORS = [
    lambda lib: lib.quasirandom.SobolEngine(0),
    lambda lib: lib.quasirandom.SobolEngine(21202),
    lambda lib: lib.quasirandom.SobolEngine(2.5),
    lambda lib: lib.quasirandom.SobolEngine(True),
    lambda lib: lib.quasirandom.SobolEngine("3"),
    lambda lib: lib.quasirandom.SobolEngine(3, scramble=True, seed=1.5),
    lambda lib: lib.quasirandom.SobolEngine(3, scramble=True, seed="a"),
    lambda lib: lib.quasirandom.SobolEngine(3, scramble=True, seed=True),
    lambda lib: lib.quasirandom.SobolEngine(3, scramble=True, seed=2**64),
    lambda lib: lib.quasirandom.SobolEngine(3).draw(0),
    lambda lib: lib.quasirandom.SobolEngine(3).draw(-1),
    lambda lib: lib.quasirandom.SobolEngine(3).draw(2.0),
    lambda lib: lib.quasirandom.SobolEngine(3).draw(2, dtype=lib.float16),
    lambda lib: lib.quasirandom.SobolEngine(3).draw(2, dtype=lib.int64),
    lambda lib: lib.quasirandom.SobolEngine(3).draw(2, dtype=lib.bfloat16),
    lambda lib: lib.quasirandom.SobolEngine(3).fast_forward(2.0),
    lambda lib: lib.quasirandom.SobolEngine(3).draw_base2(-1),
    lambda lib: lib.quasirandom.SobolEngine(3).fast_forward(4).draw_base2(1),
    lambda lib: lib.quasirandom.SobolEngine(3).fast_forward(16).draw_base2(0),
]


@pytest.mark.parametrize("fn", ERRORS, ids=range(len(ERRORS)))
def test_errors_match_torch(fn):
    assert_same_error(fn)


def test_draw_base2_sequences():
    for lib in (cr, torch):
        e = lib.quasirandom.SobolEngine(3)
        assert e.draw_base2(0).shape == (1, 3)
        assert e.draw_base2(0).shape == (1, 3)
        assert e.draw_base2(1).shape == (2, 3)
        assert e.draw_base2(2).shape == (4, 3)
        assert e.num_generated == 8
    e = cr.quasirandom.SobolEngine(3, scramble=True, seed=4)
    assert e.draw(1, dtype=cr.float16).dtype == cr.float16  # (the first point: no kernel)


def _is_net(points: np.ndarray, m: int) -> bool:
    """Every coordinate of the 2**m points puts exactly one point in each of the 2**m
    equal intervals of [0, 1): the balance of a (0, m, 1)-net in each dimension."""
    cells = np.floor(points * 2**m).astype(np.int64)
    return all(sorted(cells[:, j]) == list(range(2**m)) for j in range(points.shape[1]))


def test_global_generator_scrambling():
    """seed=None draws the scrambling bits from the global generator: chainrule's stream,
    so the points differ from PyTorch's, but they are reproducible with manual_seed, differ
    between seeds, stay in [0, 1) and keep the Sobol' nets' balance."""
    cr.manual_seed(5)
    a = cr.quasirandom.SobolEngine(6, scramble=True).draw_base2(7, dtype=cr.float64)
    cr.manual_seed(5)
    b = cr.quasirandom.SobolEngine(6, scramble=True).draw_base2(7, dtype=cr.float64)
    cr.manual_seed(6)
    c = cr.quasirandom.SobolEngine(6, scramble=True).draw_base2(7, dtype=cr.float64)
    assert _bits(a) == _bits(b) and _bits(a) != _bits(c)
    for points in (a._data, c._data):
        assert points.min() >= 0 and points.max() < 1
        assert _is_net(points, 7)
        assert len({tuple(p) for p in points}) == 128
    # the same properties hold for PyTorch's, and for a seeded engine (which equals torch's)
    torch.manual_seed(5)
    assert _is_net(
        torch.quasirandom.SobolEngine(6, scramble=True).draw_base2(7).double().numpy(), 7
    )


def test_table_is_package_data():
    from pathlib import Path

    data = Path(quasirandom.__file__).parent / "_data"
    assert (data / "sobol_directions.npz").is_file()
    assert "Joe" in (data / "README.md").read_text()


def test_under_chainrule_run(tmp_path):
    script = tmp_path / "sobol.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            import torch
            from torch.quasirandom import SobolEngine

            assert torch.quasirandom.SobolEngine is SobolEngine
            assert "chainrule" in torch.__version__
            e = SobolEngine(4, scramble=True, seed=2)
            torch.save({"p": e.draw(16, dtype=torch.float64)}, sys.argv[1])
            """
        )
    )
    out = tmp_path / "points.pt"
    env = dict(os.environ, OMP_NUM_THREADS="1")
    run = [sys.executable, "-m", "chainrule", "run", str(script), str(out)]
    proc = subprocess.run(run, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    points = torch.load(out)["p"]
    expected = torch.quasirandom.SobolEngine(4, scramble=True, seed=2).draw(16, dtype=torch.float64)
    assert torch.equal(points, expected)
