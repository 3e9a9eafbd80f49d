"""Write src/chainrule/_data/sobol_directions.npz, the Joe & Kuo (2008) direction numbers
("new-joe-kuo-6.21201") that chainrule.quasirandom.SobolEngine reads.

The source is SciPy's copy of the same published table (scipy/stats/_sobol_direction_numbers.npz,
arrays ``poly`` and ``vinit``); SciPy is needed only to run this script, never by chainrule.
The packed form (see src/chainrule/_data/README.md):

- ``poly_steps``: the primitive polynomials, strictly increasing, stored as their differences
  (uint16; ``poly = cumsum(poly_steps)``).
- ``m{k}`` for k = 1..17: the initial direction number m_(k+1) of every dimension whose
  polynomial degree exceeds k. Each m is odd and below 2**(k+1), so only its k bits above the
  lowest (``m >> 1``) are kept, bit-packed little-endian (``np.packbits(..., bitorder="little")``).
  (m_1 is 1 for every dimension that has one and is not stored.)

Run: ``.venv/bin/python tools/sobol_table.py`` (then the tests in tests/test_quasirandom.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

OUT = (
    Path(__file__).resolve().parent.parent / "src" / "chainrule" / "_data" / "sobol_directions.npz"
)


def pack(poly: np.ndarray, vinit: np.ndarray) -> dict[str, np.ndarray]:
    """The arrays of the .npz from the table's polynomials and initial direction numbers."""
    degree = np.array([int(p).bit_length() - 1 for p in poly])
    steps = np.diff(poly, prepend=0)
    assert (steps > 0).all() and steps.max() < 1 << 16, "polynomials not strictly increasing"
    arrays = {"poly_steps": steps.astype(np.uint16)}
    assert (vinit[degree > 0, 0] == 1).all()
    for k in range(1, vinit.shape[1]):
        m = vinit[degree > k, k].astype(np.int64)
        assert ((m & 1) == 1).all() and (m < 1 << (k + 1)).all()
        bits = ((m[:, None] >> np.arange(1, k + 1)) & 1).astype(np.uint8)
        arrays[f"m{k}"] = np.packbits(bits.ravel(), bitorder="little")
    return arrays


def main() -> None:
    import scipy.stats

    source = Path(scipy.stats.__file__).parent / "_sobol_direction_numbers.npz"
    table = np.load(source)
    arrays = pack(table["poly"], table["vinit"])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes) from {source}", file=sys.stderr)


if __name__ == "__main__":
    main()
