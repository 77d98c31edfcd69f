"""Compact text for models: sections sharing one character budget, ``…(N more omitted)``, tidy numbers.

How the budget is shared (:func:`render_sections`): a section with a ``floor`` is first given that share of the
budget (enough for at least one line), so it stays visible however much the others hold; a section read
``first`` (passages) is then served up to its share; the rest is split by ``weight``, a section needing less
than its share handing the remainder on, and what is left at the end goes back to the ``first`` section. A
section cut short ends with ``…(N more omitted)`` and, when it says how, what to call to read the rest; a
section with no room for even one line is named in one closing line instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Section", "fmt_number", "left_out_note", "render_sections", "shorten"]

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
    floor: float = 0.0
    """Share of the budget kept for this section before any other is served (0 = none), and never less than one
    shortened line: the caller sets it on sections holding something the reader has not seen elsewhere."""
    noun: tuple[str, str] = ("", "")
    """What one line is and what several are ("fact", "facts"), for the left-out note; empty: no note."""
    paths: tuple[str, ...] = ()
    """The ``retrieve`` paths that return this section's items whole, named in its notes (empty: no hint)."""

    def omitted(self, n: int) -> str:
        """The closing line of this section cut ``n`` lines short."""
        return _OMITTED.format(n=n) + (f": {_how(self.paths)}" if self.paths else "")

    def counted(self, n: int) -> str:
        """``n`` lines as the reader counts them ("3 facts")."""
        return f"{n} {self.noun[0] if n == 1 else self.noun[1]}"


_MIN_LINE = 40
"""Characters a section needs for one shortened line; a section whose share is smaller is left out."""


def _fit(section: Section, budget: int) -> tuple[list[str], int]:
    """The lines that fit in ``budget`` characters (title, closing note and the blank line before the section
    included), and the characters used."""
    used = len(section.title) + 3
    whole = used + sum(len(line) + 1 for line in section.lines)
    if whole <= budget:
        return list(section.lines), whole
    kept: list[str] = []
    for i, line in enumerate(section.lines):
        remaining = len(section.lines) - i - 1
        reserve = len(section.omitted(remaining)) + 1 if remaining else 0
        if used + len(line) + 1 + reserve > budget and kept:
            break
        if used + len(line) + 1 + reserve > budget and not kept:
            line = shorten(line, max(budget - used - reserve - 1, 20))
        kept.append(line)
        used += len(line) + 1
    if len(kept) < len(section.lines):
        used += len(section.omitted(len(section.lines) - len(kept))) + 1
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


def _smallest(section: Section) -> int:
    """Characters of the section's header, one shortened line and its closing note."""
    rest = len(section.lines) - 1
    return len(section.title) + 3 + _MIN_LINE + (len(section.omitted(rest)) + 1 if rest else 0)


def _floors(live: Sequence[Section], needs: Sequence[int], budget: int) -> dict[int, int]:
    """What each section with a floor is kept first: its floor share, at least one line, at most its need.

    Floors take at most 60% of the budget together; past that the last ones are dropped (a tiny budget).
    """
    floors: dict[int, int] = {}
    for i, section in enumerate(live):
        if section.floor <= 0:
            continue
        size = min(needs[i], max(int(budget * section.floor), _smallest(section)))
        if sum(floors.values()) + size > 0.6 * budget:
            break
        floors[i] = size
    return floors


def left_out_note(sections: Sequence[Section]) -> str:
    """One line naming sections left out whole: ``3 entity cards and 5 facts left out; retrieve with ...``."""
    named = [s for s in sections if s.noun[0]]
    if not named:
        return ""
    counts = [s.counted(len(s.lines)) for s in named]
    listed = counts[0] if len(counts) == 1 else ", ".join(counts[:-1]) + " and " + counts[-1]
    return f"…({listed} left out; {_how([p for s in named for p in s.paths])})"


def _how(paths: Sequence[str]) -> str:
    if not paths:
        return "retrieve with a larger max_chars"
    named = ", ".join(f'"{p}"' for p in dict.fromkeys(paths))
    return f"retrieve with paths=[{named}] or a larger max_chars"


def _shares(live: Sequence[Section], needs: Sequence[int], budget: int) -> dict[int, int]:
    """Characters each live section may use: floors first, then the ``first`` section, then by weight."""
    shares: dict[int, int] = {}
    floors = _floors(live, needs, budget)
    budget_left = budget - sum(floors.values())
    first = [i for i, s in enumerate(live) if s.first > 0]
    held = {i: min(needs[i] - floors.get(i, 0), int(budget * live[i].first), budget_left) for i in first}
    rest = [i for i in range(len(live)) if i not in held]
    _settle(live, [needs[i] - floors.get(i, 0) for i in range(len(live))], rest, budget_left - sum(held.values()),
            shares)
    left = budget_left - sum(shares.values()) - sum(held.values())
    for i in first:
        extra = min(max(needs[i] - floors.get(i, 0) - held[i], 0), left)
        shares[i] = held[i] + extra
        left -= extra
    for i, size in floors.items():
        shares[i] = shares.get(i, 0) + size
    return shares


def _left_out(live: Sequence[Section], shares: dict[int, int], needs: Sequence[int], i: int) -> bool:
    """Whether section ``i`` has no room for even one shortened line and its closing note (the first section is
    always shown)."""
    return i > 0 and shares[i] < min(needs[i], _smallest(live[i]))


def _dropped(live: Sequence[Section], shares: dict[int, int], needs: Sequence[int]) -> list[Section]:
    return [s for i, s in enumerate(live) if _left_out(live, shares, needs, i)]


def render_sections(header: str, sections: Sequence[Section], max_chars: int, footer: str = "") -> str:
    """Render sections under one ``max_chars`` budget (shared as the module docstring says).

    A section with no room for one shortened line is left out (not a stub of it); when its ``noun`` is set, one
    closing line names what was left out and how to read it.
    """
    live = [s for s in sections if s.lines]
    budget = max(max_chars - len(header) - (len(footer) + 2 if footer else 0), 0)
    needs = [_fit(section, 10**9)[1] for section in live]  # what each section takes whole
    shares = _shares(live, needs, budget)
    note = left_out_note(_dropped(live, shares, needs))
    if note:  # make room for the note, then share again
        shares = _shares(live, needs, max(budget - len(note) - 2, 0))
        note = left_out_note(_dropped(live, shares, needs))
    fitted = {i: _fit(section, shares[i]) for i, section in enumerate(live) if not _left_out(live, shares, needs, i)}
    first = next((i for i, s in enumerate(live) if s.first > 0 and i in fitted), None)
    if first is not None:  # what the others' whole lines leave of their shares goes to the first section
        spare = sum(shares[i] - used for i, (_, used) in fitted.items() if i != first)
        if spare > 0:
            fitted[first] = _fit(live[first], shares[first] + spare)
    parts = [header] if header else []
    for i, section in enumerate(live):
        if i not in fitted:
            continue
        kept, _ = fitted[i]
        omitted = len(section.lines) - len(kept)
        block = [f"{section.title}:", *kept]
        if omitted:
            block.append(section.omitted(omitted))
        parts.append("\n".join(block))
    if note:
        parts.append(note)
    if footer:
        parts.append(footer)
    text = "\n\n".join(parts)
    return text if len(text) <= max_chars else text[: max(max_chars - 1, 0)] + "…"
