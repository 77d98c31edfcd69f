"""``passages(..., lifted_links=True)``: the graph's weights score only when a link lifts into the best a passage
the text ranks low (an option; by default any link switches to them, ``link_scores(..., top=None)``).

Seen on CLIMATE-FEVER (``benchmarks/claim_sets.py``), claim 46 ("Most likely the primary control knob [on climate
change] is the ocean waters ..."): bridge expansion through the entity "Atlantic Ocean" reached sentences of "New
York City" and "El Niño" that stay below the best. Any link switches to the linked weights (cosine 1.5 instead of
3), and the best cosine matches fell behind (nDCG@10 .289; .500 with the option). The candidates
below carry those titles; their features are set by hand, as :func:`passages.link_scores` reads only features.
"""

from __future__ import annotations

from graphrag_agents.retrieval.candidates import Candidate
from graphrag_agents.retrieval.passages import LINKED_WEIGHTS, WEIGHTS, link_scores


def _candidate(n: int, cosine: float, *, lexical: float = 0.0, hop: float = 0.0, bridge: float = 0.0,
               title: str = "Ocean heat content") -> Candidate:
    return Candidate(chunk_id=f"c{n}", document_id=f"d{n}", title=title, cosine=cosine,
                     lexical=lexical, hop=hop, bridge_via=[("atlantic ocean", bridge)] if bridge else [],
                     found_by=["bridge"] if bridge or hop else ["vector"])


def _pool(*extra: Candidate) -> dict[str, Candidate]:
    direct = [_candidate(i, 0.70 - 0.02 * i, lexical=0.5) for i in range(8)]
    return {c.chunk_id: c for c in [*direct, *extra]}


def test_no_link_no_graph_weights() -> None:
    assert not link_scores(_pool(), {}, LINKED_WEIGHTS, WEIGHTS, 5)
    assert not link_scores(_pool(), {}, LINKED_WEIGHTS, WEIGHTS, None)


def test_a_link_to_a_passage_the_text_ranks_high_anyway_brings_nothing() -> None:
    echoed = _candidate(9, 0.75, lexical=0.6, bridge=1.0, title="El Niño")  # the text's best already
    assert not link_scores(_pool(echoed), {}, LINKED_WEIGHTS, WEIGHTS, 5)
    assert link_scores(_pool(echoed), {}, LINKED_WEIGHTS, WEIGHTS, None)  # the default: any link


def test_a_link_that_stays_far_down_brings_nothing() -> None:
    weak = _candidate(9, 0.25, bridge=0.2, title="New York City")
    assert not link_scores(_pool(weak), {}, LINKED_WEIGHTS, WEIGHTS, 5)


def test_a_link_that_lifts_a_passage_the_text_ranks_low_into_the_best_scores() -> None:
    lifted = _candidate(9, 0.30, hop=1.0, bridge=2.0, title="Atlantic Ocean")
    assert link_scores(_pool(lifted), {}, LINKED_WEIGHTS, WEIGHTS, 5)
