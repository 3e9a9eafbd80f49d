"""The order in which a C++ ``std::unordered_map`` (GCC's libstdc++, as PyTorch's Linux wheels
use) lists its keys, so that dicts PyTorch builds from such maps (``torch.monitor``'s event
data and ``Stat.get()``) come out in PyTorch's order.

The map hashes each key to a bucket (``hash % buckets``); a key whose bucket is empty goes to
the front of the map's one linked list, a key whose bucket holds keys already goes just
before them. PyTorch's maps reserve room for all their keys first, so the number of buckets
is fixed by the number of keys. (Facts checked against PyTorch 2.13's builds: the tests of
tests/test_monitor.py compare the orders.)
"""

from __future__ import annotations

from collections.abc import Sequence

_M64 = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995  # the multiplier of libstdc++'s 64-bit string hash
_SEED = 0xC70F6907  # std::hash<std::string>'s seed
# the bucket counts reserve(n) picks: below 14 keys from a small table, then the smallest
# size of libstdc++'s list of primes that holds n keys (every prime below 100, then these)
_SMALL = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)
_SIZES = [p for p in range(14, 100) if all(p % d for d in range(2, 10))]
_SIZES += [103, 109, 113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257]
_SIZES += [277, 293, 313, 337, 359, 383, 409, 439, 467, 503, 541, 577, 619, 661, 709, 761]
_SIZES += [823, 887, 953, 1031, 1109]


def _mix(v: int) -> int:
    return v ^ (v >> 47)


def string_hash(key: str) -> int:
    """``std::hash<std::string>`` of the key's UTF-8 bytes (libstdc++, 64-bit)."""
    data = key.encode("utf-8", "surrogatepass")
    n = len(data)
    h = (_SEED ^ (n * _MUL)) & _M64
    whole = n & ~7
    for i in range(0, whole, 8):
        word = (_mix((int.from_bytes(data[i : i + 8], "little") * _MUL) & _M64) * _MUL) & _M64
        h = ((h ^ word) * _MUL) & _M64
    if n & 7:
        h = ((h ^ int.from_bytes(data[whole:], "little")) * _MUL) & _M64
    return _mix((_mix(h) * _MUL) & _M64)


def bucket_count(n: int) -> int | None:
    """The buckets of a map that reserved room for ``n`` keys (None: beyond the sizes here)."""
    if n < len(_SMALL):
        return _SMALL[max(n, 1)]
    return next((p for p in _SIZES if p >= n), None)


def order(keys: Sequence, hashes: Sequence[int], reserved: int | None = None) -> list:
    """``keys`` (distinct, inserted in this order, with these hashes) in the order the map
    lists them; ``reserved`` is the room reserved (default: the number of keys). Beyond the
    sizes known here, the keys keep their order."""
    buckets = bucket_count(len(keys) if reserved is None else reserved)
    if buckets is None:
        return list(keys)
    listed: list = []
    bucket_of: dict = {}
    before: dict[int, object] = {}  # bucket -> the key before its first key (None: the front)
    sentinel = object()
    for key, h in zip(keys, hashes):
        b = h % buckets
        bucket_of[key] = b
        if b in before:
            at = before[b]
            listed.insert(0 if at is sentinel else listed.index(at) + 1, key)
        else:
            listed.insert(0, key)
            if len(listed) > 1:
                before[bucket_of[listed[1]]] = key
            before[b] = sentinel
    return listed


def string_keys(keys: Sequence[str]) -> list[str]:
    """The order of an unordered_map<std::string, ...> that reserved room for its keys."""
    return order(keys, [string_hash(k) for k in keys])
