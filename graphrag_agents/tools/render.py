"""Compact text for models: sections sharing one character budget, ``…(N more omitted)``, tidy numbers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Section", "fmt_number", "render_sections", "shorten"]

_OMITTED = "…({n} more omitted)"


def fmt_number(value: float | int) -> str:
    """Whole-number floats print as integers (``40``, not ``40.0``); others with up to 3 decimals."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if value == int(value):
        return str(int(value))
    return f"{value:.3f}".rstrip("0").rstrip(".")


def shorten(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters on a word boundary, with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 0)]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut + "…"


@dataclass
class Section:
    """A titled list of rendered lines; ``weight`` is its share of the budget (passages get 2)."""

    title: str
    lines: Sequence[str]
    weight: int = 1
    first: float = 0.0
    """Share of the budget this section is served before the others share the rest (0 = none). A section read
    first (passages) keeps what it needs up to that share instead of being cut to its weight."""


_MIN_LINE = 40
"""Characters a section needs for one shortened line; a section whose share is smaller is left out."""


def _fit(section: Section, budget: int) -> tuple[list[str], int]:
    """The lines that fit in ``budget`` characters (header included), and the characters used."""
    used = len(section.title) + 2
    kept: list[str] = []
    for i, line in enumerate(section.lines):
        remaining = len(section.lines) - i - 1
        reserve = len(_OMITTED.format(n=remaining)) + 1 if remaining else 0
        if used + len(line) + 1 + reserve > budget and kept:
            break
        if used + len(line) + 1 > budget and not kept:
            line = shorten(line, max(budget - used - len(_OMITTED) - 12, 20))
        kept.append(line)
        used += len(line) + 1
    return kept, used


def _settle(live: Sequence[Section], needs: Sequence[int], pending: list[int], budget: int,
            shares: dict[int, int]) -> None:
    """Split ``budget`` over ``pending`` by weight; sections needing less than their share (``needs``: the
    characters each takes whole) hand the rest on."""
    pending = list(pending)
    while pending:
        weight = sum(live[i].weight for i in pending)
        unit = budget / weight if weight else 0
        settled = [i for i in pending if needs[i] <= unit * live[i].weight]
        if not settled:
            for i in pending:
                shares[i] = int(unit * live[i].weight)
            return
        for i in settled:
            shares[i] = needs[i]
            budget -= shares[i]
            pending.remove(i)


def render_sections(header: str, sections: Sequence[Section], max_chars: int, footer: str = "") -> str:
    """Render sections under one ``max_chars`` budget shared by weight; unused share goes to the others.

    A section with ``first`` set is served before the others: it keeps what it needs up to that share of the
    budget, the others share the rest, and what they leave goes back to it.
    """
    live = [s for s in sections if s.lines]
    budget = max(max_chars - len(header) - len(footer) - 2, 0)
    shares: dict[int, int] = {}
    needs = [_fit(section, 10**9)[1] for section in live]  # what each section takes whole
    first = [i for i, s in enumerate(live) if s.first > 0]
    held = {i: min(needs[i], int(budget * live[i].first)) for i in first}
    _settle(live, needs, [i for i in range(len(live)) if i not in held], budget - sum(held.values()), shares)
    left = budget - sum(shares.values()) - sum(held.values())
    for i in first:
        extra = min(max(needs[i] - held[i], 0), left)
        shares[i] = held[i] + extra
        left -= extra
    parts = [header] if header else []
    for i, section in enumerate(live):
        if i and shares[i] < len(section.title) + 2 + _MIN_LINE:
            continue  # no room left for even one shortened line: leave the section out, not a stub of it
        kept, _ = _fit(section, shares[i])
        omitted = len(section.lines) - len(kept)
        block = [f"{section.title}:", *kept]
        if omitted:
            block.append(_OMITTED.format(n=omitted))
        parts.append("\n".join(block))
    if footer:
        parts.append(footer)
    text = "\n\n".join(parts)
    return text if len(text) <= max_chars else text[: max(max_chars - 1, 0)] + "…"
