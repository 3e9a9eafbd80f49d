"""*CMU Pronouncing Dictionary* 0.7b: ``WORD  PH1 PH2 ...`` lines (Latin-1), alternatives
as ``WORD(1)``; punctuation entries such as ``!EXCLAMATION-POINT`` either dropped or kept
as their symbol; ``cmudict-0.7b.symbols`` lists the phonemes."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from chainrule.hub import download_url_to_file
from chainrule.utils.data import Dataset

__all__ = ["CMUDict"]

_CHECKSUMS = {
    "http://svn.code.sf.net/p/cmusphinx/code/trunk/cmudict/cmudict-0.7b": (
        "209a8b4cd265013e96f4658632a9878103b0c5abf62b50d4ef3ae1be226b29e4"
    ),
    "http://svn.code.sf.net/p/cmusphinx/code/trunk/cmudict/cmudict-0.7b.symbols": (
        "408ccaae803641c6d7b626b6299949320c2dbca96b2220fd3fb17887b023b027"
    ),
}
_PUNCTUATIONS = {
    "!EXCLAMATION-POINT",
    '"CLOSE-QUOTE',
    '"DOUBLE-QUOTE',
    '"END-OF-QUOTE',
    '"END-QUOTE',
    '"IN-QUOTES',
    '"QUOTE',
    '"UNQUOTE',
    "#HASH-MARK",
    "#POUND-SIGN",
    "#SHARP-SIGN",
    "%PERCENT",
    "&AMPERSAND",
    "'END-INNER-QUOTE",
    "'END-QUOTE",
    "'INNER-QUOTE",
    "'QUOTE",
    "'SINGLE-QUOTE",
    "(BEGIN-PARENS",
    "(IN-PARENTHESES",
    "(LEFT-PAREN",
    "(OPEN-PARENTHESES",
    "(PAREN",
    "(PARENS",
    "(PARENTHESES",
    ")CLOSE-PAREN",
    ")CLOSE-PARENTHESES",
    ")END-PAREN",
    ")END-PARENS",
    ")END-PARENTHESES",
    ")END-THE-PAREN",
    ")PAREN",
    ")PARENS",
    ")RIGHT-PAREN",
    ")UN-PARENTHESES",
    "+PLUS",
    ",COMMA",
    "--DASH",
    "-DASH",
    "-HYPHEN",
    "...ELLIPSIS",
    ".DECIMAL",
    ".DOT",
    ".FULL-STOP",
    ".PERIOD",
    ".POINT",
    "/SLASH",
    ":COLON",
    ";SEMI-COLON",
    ";SEMI-COLON(1)",
    "?QUESTION-MARK",
    "{BRACE",
    "{LEFT-BRACE",
    "{OPEN-BRACE",
    "}CLOSE-BRACE",
    "}RIGHT-BRACE",
}
_ALTERNATIVE = re.compile(r"\([0-9]+\)")


def _punctuation_symbol(word: str) -> str:
    """``...ELLIPSIS`` -> ``...``, ``--DASH`` -> ``--``, otherwise the first character."""
    for prefix in ("...", "--"):
        if word.startswith(prefix):
            return prefix
    return word[0]


def _parse_dictionary(
    lines: Iterable[str], exclude_punctuations: bool
) -> list[tuple[str, list[str]]]:
    """``(word, phonemes)`` per entry, ``;;;`` comments skipped, ``(n)`` suffixes removed."""
    entries = []
    for line in lines:
        if not line or line.startswith(";;;"):
            continue
        word, phones = line.strip().split("  ")
        if word in _PUNCTUATIONS:
            if exclude_punctuations:
                continue
            word = _punctuation_symbol(word)
        entries.append((_ALTERNATIVE.sub("", word), phones.split(" ")))
    return entries


class CMUDict(Dataset):
    """*CMUDict*: items ``(word, phonemes)``; :attr:`symbols` lists the phoneme set."""

    def __init__(
        self,
        root: str | Path,
        exclude_punctuations: bool = True,
        *,
        download: bool = False,
        url: str = "http://svn.code.sf.net/p/cmusphinx/code/trunk/cmudict/cmudict-0.7b",
        url_symbols: str = "http://svn.code.sf.net/p/cmusphinx/code/trunk/cmudict/cmudict-0.7b.symbols",
    ) -> None:
        self.exclude_punctuations = exclude_punctuations
        self._root_path = Path(root)
        if not os.path.isdir(self._root_path):
            raise RuntimeError(f"The root directory does not exist; {root}")
        dict_file = self._root_path / os.path.basename(url)
        symbol_file = self._root_path / os.path.basename(url_symbols)
        for what, target, source in (
            ("dictionary", dict_file, url),
            ("symbol", symbol_file, url_symbols),
        ):
            if os.path.exists(target):
                continue
            if not download:
                raise RuntimeError(
                    f"The {what} file is not found in the following location. "
                    f"Set `download=True` to download it. {target}"
                )
            download_url_to_file(source, str(target), _CHECKSUMS.get(source, None))
        with open(symbol_file) as f:
            self._symbols = [line.strip() for line in f.readlines()]
        with open(dict_file, encoding="latin-1") as f:
            self._dictionary = _parse_dictionary(f.readlines(), exclude_punctuations)

    def __getitem__(self, n: int) -> tuple[str, list[str]]:
        """``(word, phonemes)``."""
        return self._dictionary[n]

    def __len__(self) -> int:
        return len(self._dictionary)

    @property
    def symbols(self) -> list[str]:
        """The phoneme symbols (``"AA"``, ``"AA0"``, ...), a copy."""
        return self._symbols.copy()
