"""Figures: the numbers a sentence writes with digits, and whether the cited evidence holds them (private).

A figure matches a whole number of the evidence with trailing zeros, leading zeros and thousands separators
ignored (``2.80`` = ``2.8``, ``1,000`` = ``1000``, ``007`` = ``7``). A number written in groups joined by dashes
or slashes (an identifier such as ``001845801 - 0004``) is also found when the evidence writes the same digits
grouped another way (``0018458010004``), so a reformatted identifier is not split into figures said to be missing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

__all__ = ["FIGURE_RE", "digit_runs", "extract_figures", "missing_figures", "normalize_figure"]

FIGURE_RE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?")
"""One figure: ``1,250``, ``2.80``, ``1999``."""
# Digit groups joined by dashes or slashes, not part of a decimal or a thousands-separated number.
_RUN = re.compile(r"(?<![\d.,])\d+(?:[ \t]{0,3}[-‐‑–—/][ \t]{0,3}\d+)*(?!\d|[.,]\d)")
_NON_DIGIT = re.compile(r"\D")
# A run's digits identify it only when there are enough of them not to match by accident ("20-01" is not 2001).
_MIN_RUN_DIGITS = 6


def normalize_figure(raw: str) -> str:
    """``2.80`` -> ``2.8``, ``1,000`` -> ``1000``, ``007`` -> ``7``, any script's digits -> ASCII."""
    text = raw.replace(",", "")
    if not text.isascii():
        text = "".join(ch if ch == "." else str(unicodedata.decimal(ch, 0)) for ch in text)
    whole, _, frac = text.partition(".")
    whole = whole.lstrip("0") or "0"
    frac = frac.rstrip("0")
    return f"{whole}.{frac}" if frac else whole


def extract_figures(text: str) -> list[str]:
    """The numbers written with digits in ``text`` (NFKC-normalised), normalised, in order, without repeats."""
    return list(dict.fromkeys(normalize_figure(m.group()) for m in FIGURE_RE.finditer(text)))


def _run_key(run: str) -> str:
    digits = _NON_DIGIT.sub("", run)
    if not digits.isascii():
        digits = "".join(str(unicodedata.decimal(ch, 0)) for ch in digits)
    return digits


def digit_runs(text: str) -> frozenset[str]:
    """The digits of every long enough run of digit groups in ``text`` (``001845801 - 0004`` -> ``0018458010004``)."""
    keys = (_run_key(m.group()) for m in _RUN.finditer(text))
    return frozenset(key for key in keys if len(key) >= _MIN_RUN_DIGITS)


def missing_figures(text: str, figures: Iterable[frozenset[str]], runs: Iterable[frozenset[str]]) -> list[str]:
    """The figures of ``text`` that no evidence holds, as a number or as the digits of a run it belongs to.

    Args:
        text: The claim, NFKC-normalised.
        figures: Each cited item's figures (:func:`extract_figures`).
        runs: Each cited item's :func:`digit_runs`.
    """
    held = frozenset().union(*figures)
    held_runs = frozenset().union(*runs)
    found_in_runs: set[str] = set()
    for m in _RUN.finditer(text):
        key = _run_key(m.group())
        if len(key) >= _MIN_RUN_DIGITS and key in held_runs:
            found_in_runs.update(extract_figures(m.group()))
    return [f for f in extract_figures(text) if f not in held and f not in found_in_runs]
