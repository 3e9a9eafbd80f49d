"""``torch.torch_version``: ``TorchVersion``, the string type of ``torch.__version__``.

A ``TorchVersion`` is a ``str`` that compares as a version, not as text, with strings,
tuples and other versions: ``TorchVersion("2.13.0") >= "2.8"`` is True (as text it would
be False) and ``>= (2, 8)`` too. Programs written for PyTorch branch on
``torch.__version__`` this way, so chainrule's ``__version__`` is one: the PyTorch release
whose API chainrule follows, with chainrule's own version as the local part
(``2.13.0+chainrule.0.1.0``).

Where chainrule differs from PyTorch: PyTorch compares through the ``packaging`` package;
chainrule (NumPy its only dependency) parses PEP 440's common forms itself: the release
numbers, a pre-release (``a``, ``b``, ``rc``), ``.post``, ``.dev`` and the local part
(after ``+``, which sorts a version after its public release: ``2.13.0+cpu > 2.13.0``).
A string that is not a version compares as text, as in PyTorch.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["InvalidVersion", "TorchVersion"]

_VERSION = re.compile(
    r"^\s*v?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre>a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?P<pre_n>\d*))?"
    r"(?:[-_.]?(?:post|rev|r)[-_.]?(?P<post>\d*))?"
    r"(?:[-_.]?dev[-_.]?(?P<dev>\d*))?"
    r"(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$",
    re.IGNORECASE,
)
_PRE_RANK = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
_INF = float("inf")


class InvalidVersion(ValueError):
    """A string that is not a version."""


def _key(text: str) -> tuple:
    """A sort key for a PEP 440 version: release (trailing zeros dropped), then
    dev < pre-release < final < post."""
    match = _VERSION.match(text)
    if match is None:
        raise InvalidVersion(f"Invalid version: '{text}'")
    release = [int(part) for part in match["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    dev = int(match["dev"] or 0) if match["dev"] is not None else _INF
    if match["pre"] is not None:
        pre: tuple = (_PRE_RANK[match["pre"].lower()], int(match["pre_n"] or 0))
    elif match["dev"] is not None and match["post"] is None:
        pre = (-1, 0)  # 1.0.dev1 sorts before 1.0a1
    else:
        pre = (_INF, 0)
    post = int(match["post"] or 0) if match["post"] is not None else -1
    local: tuple = ()
    if match["local"] is not None:  # after the public version; numbers above words
        parts = re.split(r"[-_.]", match["local"].lower())
        local = (1, *((1, int(p), "") if p.isdigit() else (0, 0, p) for p in parts))
    return (tuple(release), pre, post, dev, local)


def _other_key(other: Any) -> tuple:
    if isinstance(other, Iterable) and not isinstance(other, str):
        other = ".".join(str(part) for part in other)
    if not isinstance(other, str):
        raise TypeError(
            f"'<' not supported between instances of 'TorchVersion' and '{type(other).__name__}'"
        )
    return _key(other)


class TorchVersion(str):
    """A version string that compares as a version (with str, tuple or TorchVersion)."""

    def _compare(self, other: Any, op: Callable[[Any, Any], bool]) -> bool:
        try:
            return op(_key(self), _other_key(other))
        except InvalidVersion:  # not a version: compared as text
            return op(str(self), other)

    def __lt__(self, other: Any) -> bool:
        return self._compare(other, operator.lt)

    def __le__(self, other: Any) -> bool:
        return self._compare(other, operator.le)

    def __gt__(self, other: Any) -> bool:
        return self._compare(other, operator.gt)

    def __ge__(self, other: Any) -> bool:
        return self._compare(other, operator.ge)

    def __eq__(self, other: object) -> bool:
        try:
            return self._compare(other, operator.eq)
        except TypeError:
            return False

    # ``!=`` compares as text, as PyTorch's does ("1.0" != "1.0.0" although they are equal)
    __ne__ = str.__ne__

    __hash__ = str.__hash__
