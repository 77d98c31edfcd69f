"""Passage features measured as no gain, off in every release; ``benchmarks/`` turns them on to measure them again.

They are not options of the public API (``PassageWeights``, ``ChainSettings``): the package never sets them, and
``benchmarks/retrieval_bench.py`` sets them for one run with :func:`measuring`. At 0 (always, outside a
benchmark) their queries are not run, so ``passages`` scores exactly as without them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["OFF", "Experiments", "current", "measuring"]


@dataclass(frozen=True)
class Experiments:
    """The weights of the features kept off."""

    entity: float = 0.0
    """Weight of the entity-mention feature: the summed weight of the question's entities a chunk mentions, capped
    (its chunks join the candidates; at 0 the query is not run). Measured no gain once the titled hop was in."""
    ppr: float = 0.0
    """Weight of the personalized PageRank feature (:mod:`.ppr`; at 0 the walk is not run). Measured no gain."""


OFF = Experiments()
_current: ContextVar[Experiments] = ContextVar("graphrag_agents_retrieval_experiments", default=OFF)


def current() -> Experiments:
    """The experiments ``passages`` runs with here: :data:`OFF` unless inside :func:`measuring`."""
    return _current.get()


@contextmanager
def measuring(experiments: Experiments) -> Iterator[Experiments]:
    """Run the ``passages`` calls inside the block (and the tasks they start) with ``experiments`` turned on."""
    token = _current.set(experiments)
    try:
        yield experiments
    finally:
        _current.reset(token)
