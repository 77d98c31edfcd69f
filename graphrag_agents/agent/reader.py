"""The evidence a drafting turn shows the model: reader-sized, passages first.

Small models answer better from a short context than from everything ``retrieve`` found: the best few passages,
then the best few facts, each with the number it was issued under (so citations still check against the
session), and no entity cards unless asked (an entity card holds a name, not a claim, and small models cite it
for claims it does not make). The defaults were measured (``benchmarks/reader_bench.py``, ``docs/agent.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..evidence.render import shorten
from ..tools.results import RetrieveResult

__all__ = ["ReaderView", "reader_evidence", "reader_titles"]


@dataclass(frozen=True)
class ReaderView:
    """How much evidence the drafting turn shows.

    Attributes:
        passages: the best passages shown (in retrieve's order, best first).
        facts: the best facts shown after them (relations whose fact matches the question).
        entities: entity cards shown last (0: none, the default).
        passage_chars: each passage shortened to this many characters.
        max_chars: the whole text's cap; items that do not fit are left out, the first item always shown.
    """

    passages: int = 4
    facts: int = 2
    entities: int = 0
    passage_chars: int = 900
    max_chars: int = 4000

    def __post_init__(self) -> None:
        if min(self.passages, self.facts, self.entities) < 0 or self.passage_chars < 50 or self.max_chars < 200:
            raise ValueError("ReaderView needs passages, facts, entities >= 0, passage_chars >= 50 and "
                             "max_chars >= 200")


def reader_evidence(result: RetrieveResult, view: ReaderView | None = None) -> tuple[str, list[int]]:
    """The numbered evidence text of ``result`` by ``view``, and the numbers it shows.

    Each item is one block, ``[n] (title) text`` for a passage and ``[n] fact`` for a fact, so a model (and
    :func:`~graphrag_agents.evaluation.answer.split_evidence`) sees where each item starts.
    """
    view = view or ReaderView()
    blocks: list[tuple[int, str]] = []
    for p in result.passages[:view.passages]:
        where = f"{p.file} › {p.heading}" if p.heading else p.file
        blocks.append((p.n, f"[{p.n}] ({where}) {shorten(' '.join(p.text.split()), view.passage_chars)}"))
    seen = {text for _, text in blocks}
    for f in result.facts[:view.facts]:
        line = f"[{f.n}] {shorten(' '.join(f.fact.split()), 300)}"
        if line not in seen:
            blocks.append((f.n, line))
    for e in result.entities[:view.entities]:
        desc = f": {shorten(e.description, 200)}" if e.description else ""
        blocks.append((e.n, f"[{e.n}] {e.name} ({e.label}){desc}"))
    shown: list[int] = []
    parts: list[str] = []
    used = 0
    for n, text in blocks:
        if parts and used + len(text) + 2 > view.max_chars:
            continue
        parts.append(text if parts or len(text) <= view.max_chars else shorten(text, view.max_chars))
        used += len(parts[-1]) + 2
        shown.append(n)
    return "\n\n".join(parts), shown


def reader_titles(result: RetrieveResult, shown: list[int]) -> list[tuple[int, str]]:
    """(number, document title) of the passages among ``shown``."""
    wanted = set(shown)
    return [(p.n, p.file) for p in result.passages if p.n in wanted]
