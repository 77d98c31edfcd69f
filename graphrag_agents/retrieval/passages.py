"""The ``passages`` path: candidate chunks from several signals, fused into one score, and the dense baseline.

Candidates (:mod:`.candidates`, :mod:`.bridge`): the chunks nearest the question's embedding, the best
keyword (BM25-style) matches, (vector feedback, :mod:`.feedback`) the chunks nearest to the question's vector
moved toward the best of those, (bridge expansion) chunks sharing a rare entity with the two best vector or
keyword matches, (the titled second hop) the documents titled by an entity the three best matches
mention or by a name their text writes (:mod:`.written_names`), and (:mod:`.chain`) further titled hops from
the chains' ends, while a round adds coverage of the question. Every candidate query returns the chunk's text,
heading and path with it, so the passages returned need no further read. Each candidate is scored on
features that all lie in [0, 1]:

============  ======  ==============================================================================
feature       weight  value
============  ======  ==============================================================================
cosine        3.0     cosine similarity of the chunk's stored embedding (title + text) to the question
                      (linked: 1.5)
lexical       1.0     BM25 of the chunk's section with its heading trail, / the best's (:mod:`.corpus_stats`)
                      (linked: 0.5, the share of the question's idf mass the chunk holds, BM25 length factor)
title         1.0     1 when the question names the chunk's document title, written as a name ("Rush (band)"),
                      or names its page by its file, written as code (`npm ci`: ``commands/npm-ci.md``), for
                      the page's best candidate (:mod:`.page_names`)
bridge        0.8     bridge weight (x2 through an entity its document's title names), capped at 2, / 2
hop           1.5     weight of the best seed (1, 1/2, 1/3) naming an entity that titles the chunk's document,
                      divided by the documents that seed led to (first hop: :func:`.bridge.shared_hops`)
chain         1.0     coverage of the question by the best chain the chunk lies on (:mod:`.chain`)
feedback      0.5     cosine to the question's vector moved toward its best direct match (:mod:`.feedback`)
                      (linked: 1.0)
============  ======  ==============================================================================

and ``score`` = weighted sum / sum of weights, in [0, 1]. The final order (:mod:`.novelty`) takes the best by score
first and then, among the 40 best, each next passage by its score plus what it adds to the question's coverage
(``ChainSettings.novelty``). The weights were picked by two-fold cross-validation over the HotpotQA and 2Wiki
samples together (each fold: the even- or odd-numbered questions of both sets), keeping what both folds chose;
results in ``benchmarks/results/retrieval-weights-history.md``. Cosine and lexical were picked again once chain
coverage and novelty scored the question's words too, with 100 MuSiQue training questions as a third set (1.0 / 1.0
-> 1.5 / 0.5: no fold of the three lost, and the held-out MuSiQue dev questions gained .041 recall@5). Weighted
score fusion beat reciprocal-rank fusion, a cosine-only rerank, per-question rescaled cosines and personalized
PageRank over the entity-passage graph there (the entity-mention feature and the walk are kept off, for
``benchmarks/`` only: :mod:`._experiments`). Those are :data:`LINKED_WEIGHTS`, which score whenever the first hop
reaches a candidate through a graph link. When it reaches none (a manual's sections, which no entity links),
:data:`WEIGHTS` score instead: the keyword feature is BM25 over the candidate's whole section
(:mod:`.term_frequency` reads it) with the graph's statistics (:mod:`.corpus_stats`), weight 1.0, cosine 3.0, and
feedback 0.5. Measured on npm's docs (``techdocs_a``), Sphinx's manual, HotpotQA, 2Wiki, the MuSiQue samples and
two sets of claims (``docs/retrieval-passages.md``)."""

from __future__ import annotations

import heapq
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ..store.graph import GraphStore
from ..text.statements import reads_as_statement
from . import _experiments
from ._cypher import QueryVector, VectorParam, vector_param
from ._tasks import all_or_none
from .bridge import first_hop_candidates
from .candidates import (
    WITH_TITLE,
    Candidate,
    TermWeights,
    entity_candidates,
    index_breadth,
    keyword_search,
    loose_key,
    title_key,
    vector_and_cosines,
    vector_candidates,
)
from .chain import CHAINS, TEXT_POOL, ChainSettings, extend_chains, idf_of, read_words
from .corpus_stats import CorpusStats, corpus_bm25, sections_and_stats
from .distinct import pick
from .feedback import FEATURE_POOL, SHIFT, Feedback, feedback_and_cosines, feedback_cosines
from .fulltext import label_size
from .hits import PassageHit, PassageSource
from .names import Anchor, name_keys
from .novelty import WINDOW, by_new_coverage
from .page_names import code_words, names_page, page_name
from .ppr import ppr_feature
from .term_frequency import Section, section_bm25, section_texts
from .written_names import written_names

__all__ = ["LINKED_WEIGHTS", "POOL_WEIGHTS", "SEEDS", "WEIGHTS", "ChainSettings", "PassageWeights", "dense_passages",
           "fetch_passages", "few_entities", "keywords_first", "passages"]


@dataclass(frozen=True)
class PassageWeights:
    """Weights of the passage features (see the module docstring)."""

    cosine: float = 1.5
    lexical: float = 1.0
    """The keyword feature's weight (see ``section_keywords``)."""
    title: float = 1.0
    bridge: float = 0.8
    hop: float = 1.5
    feedback: float = 0.5
    """Cosine to the question's vector moved toward its best direct match (:mod:`.feedback`; at 0 its two
    queries are not run)."""
    feedback_shift: float = SHIFT
    """How far the vector moves: the share of the best match's vector added to the question's (not a weight)."""
    section_keywords: bool = True
    """The keyword feature is BM25 over each candidate's section (:mod:`.term_frequency`); False: the share of the
    question's idf the keyword search found in the chunk, only for the chunks it returned."""
    statistics: str = "graph"
    """Where the section feature's BM25 statistics come from: ``"graph"``, the document frequencies and mean
    section length of every section, written at ingest (:mod:`.corpus_stats`; a graph without them scores as
    ``"pool"``); ``"pool"``, the candidates' own (:mod:`.term_frequency`)."""

    @property
    def total(self) -> float:
        """Sum of the weights: the score of a chunk perfect on every feature."""
        return self.cosine + self.lexical + self.title + self.bridge + self.hop + self.feedback


WEIGHTS = PassageWeights(cosine=3.0)
"""The weights when no graph link reaches a candidate (the text decides): the section keyword feature with the
graph's statistics, cosine 3.0 (picked on npm's docs, ``techdocs_a``: ``docs/retrieval.md``)."""
POOL_WEIGHTS = PassageWeights(statistics="pool")
"""The text weights of the release before the graph's keyword statistics: the candidates' own statistics, cosine
1.5 (``weights=POOL_WEIGHTS``)."""
LINKED_WEIGHTS = PassageWeights(lexical=0.5, feedback=1.0, section_keywords=False)
"""The weights when the graph carries signal: the first hop reached a candidate through a graph link (a titled hop
or bridge expansion). The keyword feature is the chunk's share of the question's idf, as the weights were picked
on the multi-hop samples, where the section feature lost recall@5
(``benchmarks/results/2026-12-06-section-keywords.md``)."""
SEEDS = 2
"""Bridge expansion starts from this many best chunks, weighted 1, 1/2, ..."""
PER_DOCUMENT = 1
"""Chunks of one section (a document's chunks under one heading) that take a place among the ``top_k`` before a
further one must add coverage of the question (0: score order alone); see :mod:`.distinct`."""
SECTION_POOL = 30
"""The candidates, best first by the other features, whose sections the keyword feature reads (the rest are scored
on their own text): a section read for each of 60-100 candidates cost more than the order gained below these."""
HOP_SEEDS = 3
"""The titled second hop starts from this many best chunks, weighted 1, 1/2, 1/3."""
BRIDGE_CAP = 2.0
_TITLE_BRIDGE = 2.0


def _pool(top_k: int) -> int:
    return max(30, 3 * top_k)


def _merge(groups: Sequence[Sequence[Candidate]]) -> dict[str, Candidate]:
    merged: dict[str, Candidate] = {}
    for group in groups:
        for cand in group:
            have = merged.get(cand.chunk_id)
            if have is None:
                merged[cand.chunk_id] = cand
                continue
            have.lexical = max(have.lexical, cand.lexical)
            have.entity = max(have.entity, cand.entity)
            have.hop = max(have.hop, cand.hop)
            have.bridge_via = have.bridge_via or cand.bridge_via
            have.parent = have.parent or cand.parent
            have.seed_cosine = have.seed_cosine if have.seed_cosine is not None else cand.seed_cosine
            have.section_size = have.section_size if have.section_size is not None else cand.section_size
            have.found_by += [s for s in cand.found_by if s not in have.found_by]
            if cand.loaded and not have.loaded:
                have.text, have.heading, have.path, have.loaded = cand.text, cand.heading, cand.path, True
    return merged


def named_titles(candidates: Iterable[Candidate], keys: frozenset[str], shared: bool = True) -> dict[str, float]:
    """The title feature per title the question names (``keys``, written as a name): 1 over the number of the
    candidates' documents that title names (``shared`` False: 1).

    Why: a question naming "Global warming" names one document of a corpus of articles, but none in particular of a
    corpus that keeps an article's paragraphs or sentences as documents of their own under its title (CLIMATE-FEVER:
    230 sentences titled "Global warming"; MuSiQue: up to 14 paragraphs of one article). At 1 each, every one of
    them passed the best cosine matches; a name that titles many documents points at each less surely, as a titled
    hop's weight is shared among the documents it leads to (:func:`.bridge.shared_hops`).
    """
    if not keys:
        return {}
    documents: dict[str, set[str]] = {}
    for cand in candidates:
        key = loose_key(title_key(cand.title)) if cand.title else ""
        if key in keys:
            documents.setdefault(key, set()).add(cand.document_id)
    return {key: 1.0 / len(docs) if shared else 1.0 for key, docs in documents.items()}


def _titled(cand: Candidate, names: Mapping[str, float]) -> float:
    """The title feature: the question names the candidate's document title, written as a name (``named_titles``)."""
    return names.get(loose_key(title_key(cand.title)), 0.0) if cand.title and names else 0.0


def _relevance(cand: Candidate, names: Mapping[str, float], w: PassageWeights) -> float:
    return w.cosine * max(0.0, cand.cosine) + w.lexical * cand.lexical + w.title * _titled(cand, names)


def _linked_score(cand: Candidate, names: Mapping[str, float], w: PassageWeights) -> float:
    """The candidate's own features with its graph links' (bridge, titled hop), before chains and feedback."""
    return _relevance(cand, names, w) + w.bridge * _bridge(cand) + w.hop * cand.hop


def _reached_by_link(cand: Candidate) -> bool:
    return cand.hop > 0 or bool(cand.bridge_via)


def _bridge(cand: Candidate) -> float:
    own = title_key(cand.title) if cand.title else ""
    total = sum(weight * (_TITLE_BRIDGE if name == own else 1.0) for name, weight in cand.bridge_via)
    return min(BRIDGE_CAP, total) / BRIDGE_CAP


async def passages(store: GraphStore, question: str, vector: QueryVector, top_k: int, *,
                   anchors: Awaitable[Sequence[Anchor]] | None = None,
                   document_ids: Sequence[str] | None = None, weights: PassageWeights = WEIGHTS,
                   chains: ChainSettings = CHAINS, per_document: int = PER_DOCUMENT,
                   text_names: bool = True,
                   linked_weights: PassageWeights | None = LINKED_WEIGHTS,
                   keywords: Awaitable[tuple[list[Candidate], TermWeights]] | None = None,
                   lifted_links: bool = False, shared_titles: bool = True) -> list[PassageHit]:
    """The ``top_k`` best chunks for the question, scored as the module docstring describes, best first.

    ``anchors`` are the entities found in the question, awaited while the vector and keyword searches run;
    named ones (``Anchor.named``) are not followed by bridge expansion. Rounds of queries: vector + keyword
    search, then bridge expansion and the titled hop (seeded by the best direct matches, with the direct
    matches' words read alongside, and the vector feedback search from the best of them), then up to
    ``chains.rounds`` titled hops from the chains' ends (:mod:`.chain`; fewer when a round adds no coverage),
    with the best candidates' cosines to the moved vector read alongside, then the texts of the ``top_k`` best.
    ``weights=replace(WEIGHTS, feedback=0)`` and ``chains=ChainSettings(rounds=0, weight=0, novelty=0)`` score
    as the release before chains did. ``text_names``: the titled hops also look up the names the seeds' text
    writes (:mod:`.written_names`), not only their entities'.

    Which weights score: ``linked_weights`` when the first hop reached some candidate through a graph link (a
    titled hop or bridge expansion: the graph carries signal, as on multi-hop encyclopedic text), else
    ``weights`` (the text decides: a manual's sections, where no entity links them). The direct matches are ranked
    for the first hop with ``linked_weights``. ``linked_weights=None``: ``weights`` always.
    ``lifted_links=True``: the graph's weights score only when a link lifts into the ``top_k`` best a candidate
    the text's own features rank below them (:func:`link_scores`); not the default, as it reads keyword statistics
    for more questions of an entity-rich graph (HotpotQA: retrieve p50 1.08x) for a gain within .006 nDCG@10. A
    statement (:mod:`graphrag_agents.text.statements`) is ordered by score, without the new-coverage order, unless
    ``chains.statements``. ``shared_titles``: a title the question names that titles several of the candidates'
    documents gives each of them its share of the title feature (:func:`named_titles`); False: 1 each, as before.

    ``keywords``: the keyword search already asked for (:func:`keywords_first`, before the question's vector was
    known); its candidates' cosines are then read with the vector search, in the same query.
    """
    pool = _pool(top_k)
    measured = _experiments.current()  # off outside benchmarks/
    if not chains.statements and reads_as_statement(question):  # a claim: each passage is evidence on its own
        chains = replace(chains, novelty=0.0)
    vector = vector_param(vector)
    keys = frozenset(loose_key(k) for k, info in name_keys(question).items() if info.cased)
    chained = chains.rounds > 0 or chains.weight > 0
    (by_vector, by_keyword, weighted), found_anchors = await all_or_none(
        _direct(store, question, vector, pool, document_ids, keywords), _listed(anchors))
    word_idf = idf_of(weighted)
    idf = word_idf if chained else {}  # the chain score weighs the question's words as the search did
    direct = _merge([by_vector, by_keyword])
    # Seeds come from the direct signals only, so bridge expansion runs alongside the entity search
    first = linked_weights or weights  # until the first hop shows no graph link
    names = named_titles(direct.values(), keys, shared_titles)
    ranked = sorted(direct.values(), key=lambda c: -_relevance(c, names, first))
    seeds = [(c.chunk_id, 1.0 / (i + 1)) for i, c in enumerate(ranked[:max(SEEDS, HOP_SEEDS)])]
    words: dict[str, frozenset[str]] = {}  # the direct matches' words are read alongside the first hop
    hop = _FirstHop(store, vector, pool, top_k, document_ids, text_names, (first, weights), measured.entity,
                    question if weights.statistics == "graph" else None)
    # the text weights read sections: on a graph of few entities (a manual), read them beside the first hop
    early = weights.section_keywords and weights.lexical > 0 and bool(word_idf) and await few_entities(store)
    merged, feedback = await hop.run(direct, ranked, seeds, found_anchors, words, idf if chained else None, early)
    names = named_titles(merged.values(), keys, shared_titles)
    linked = link_scores(merged, names, first, weights, top_k if lifted_links else None)
    fusion = _Fusion(names, first if linked else weights, chains, merged,  # no graph link: the text decides
                     entity=measured.entity, words=code_words(question))
    coverage, beside, stats = await _rounds(store, fusion, feedback, word_idf, idf, vector, seeds, pool,
                                            document_ids, words, text_names, chained,
                                            None if hop.stats_read else hop.question)
    if beside is not None:  # the chunks a chain round added are read alone: their neighbours were not asked for
        fusion.rescore_keywords(beside, word_idf, stats or hop.stats)
    score = fusion.scores(coverage, feedback)
    if measured.ppr > 0:  # benchmarks/ only (ppr.py)
        walk = await ppr_feature(store, merged, found_anchors)
        score = {cid: (value * fusion.total + measured.ppr * walk.get(cid, 0.0)) / (fusion.total + measured.ppr)
                 for cid, value in score.items()}
    order = sorted(merged, key=lambda cid: (-score[cid], cid))
    if chains.novelty > 0 and idf:
        await read_words(store, order[:WINDOW], merged, words, idf.keys())  # as a rule read already
        order = by_new_coverage(order, score, words, idf, chains.novelty)
    best, copies = pick(order, merged, top_k, words, idf, per_document)
    texts = await fetch_passages(store, [cid for cid in best if not merged[cid].loaded])
    return _hits(best, copies, merged, score, texts)


def link_scores(merged: Mapping[str, Candidate], names: Mapping[str, float], linked: PassageWeights,
                text: PassageWeights, top: int | None) -> bool:
    """Whether the first hop's graph links bring the question a passage its text did not: a candidate reached
    through a titled hop or bridge expansion is among the ``top`` best by the ``linked`` weights and not among the
    ``top`` best by its own text (``text``'s cosine, keyword and title features). ``top`` None: any candidate
    reached through a link, the switch before.

    Why: on claims, a link from a best match often leads only to passages the text ranks high anyway, or to
    passages that stay far down (CLIMATE-FEVER's claim on "the ocean waters" reached "New York City" through the
    entity "Atlantic Ocean"); the linked weights then halve the cosine's weight for nothing. The reading is an
    option (``passages(..., lifted_links=True)``), measured in ``docs/retrieval-passages.md``, "When the graph
    scores".
    """
    reached = any(_reached_by_link(c) for c in merged.values())
    if not reached or top is None:
        return reached
    by_link = heapq.nlargest(top, merged.values(), key=lambda c: _linked_score(c, names, linked))
    by_text = {c.chunk_id for c in heapq.nlargest(top, merged.values(), key=lambda c: _relevance(c, names, text))}
    return any(_reached_by_link(c) and c.chunk_id not in by_text for c in by_link)


async def few_entities(store: GraphStore) -> bool:
    """Whether the graph holds fewer entities than chunks (label sizes remembered: as a rule no query).

    Where the sections are read: a first hop that reaches no candidate through a graph link scores the keyword
    feature over the best candidates' sections. On a manual the extractor finds few names (npm's docs: 66 entities
    for 1,520 chunks), so its questions rarely reach a link (4 of 50) and the direct matches' sections are read
    beside the first hop, saving the round after it; on encyclopedic text (HotpotQA: 10,847 entities for 2,337
    chunks, 196 of 200 questions linked) that read would be wasted, so the sections are read after the first hop,
    only when no link was reached. Either way the same sections are scored: this decides when, not what."""
    return await label_size(store, "__Entity__") < await label_size(store, "Chunk")


def keywords_first(store: GraphStore, question: str, top_k: int,
                   document_ids: Sequence[str] | None = None) -> Awaitable[tuple[list[Candidate], TermWeights]]:
    """The keyword search :func:`passages` runs for ``top_k``, without the question's vector, so it can run while
    the question is being embedded; pass it to :func:`passages` as ``keywords``."""
    return keyword_search(store, question, None, _pool(top_k), document_ids)


async def _direct(store: GraphStore, question: str, vector: VectorParam, pool: int, document_ids: Sequence[str] | None,
                  keywords: Awaitable[tuple[list[Candidate], TermWeights]] | None,
                  ) -> tuple[list[Candidate], list[Candidate], TermWeights]:
    """The vector and the keyword search's candidates, and the question's term weights: both searches at once,
    or, when the keyword search was asked for already, the vector search with its candidates' cosines."""
    if keywords is None:
        by_vector, (by_keyword, weighted) = await all_or_none(
            vector_candidates(store, vector, pool, document_ids),
            keyword_search(store, question, vector, pool, document_ids))
        return by_vector, by_keyword, weighted
    by_keyword, weighted = await keywords
    by_vector, cosines = await vector_and_cosines(store, vector, pool, document_ids,
                                                  [c.chunk_id for c in by_keyword])
    for cand in by_keyword:
        cand.cosine = cosines.get(cand.chunk_id, 0.0)
    return by_vector, by_keyword, weighted


@dataclass
class _FirstHop:
    """The queries after the direct matches, run together: entity mentions, bridge expansion, the titled hop, the
    direct matches' words, and the vector feedback search with every direct match's cosine to its seed."""

    store: GraphStore
    vector: VectorParam
    pool: int
    top_k: int
    document_ids: Sequence[str] | None
    text_names: bool
    weights: tuple[PassageWeights, PassageWeights]
    """The linked and the text weights: a query runs when either set weighs its feature."""
    entity: float = 0.0
    """The entity-mention feature's weight (:mod:`._experiments`; at 0 its query is not run)."""
    question: str | None = None
    """The question, when the keyword feature reads the graph's statistics (read with the sections)."""
    stats: CorpusStats | None = None
    """The graph's keyword statistics, when this round read them."""
    stats_read: bool = False

    async def run(self, direct: dict[str, Candidate], ranked: Sequence[Candidate], seeds: Sequence[tuple[str, float]],
                  anchors: Sequence[Anchor], words: dict[str, frozenset[str]],
                  idf: Mapping[str, float] | None,
                  sections: bool = False) -> tuple[dict[str, Candidate], Feedback | None]:
        """Every candidate so far (the direct ones merged with the hop's), and the feedback (None when off).

        ``sections``: the direct matches' sections are read too (:func:`~.term_frequency.section_texts`, which
        remembers them), those whose query did not say they are alone: the keyword feature reads the sections of the
        best candidates once this round is done, most of them direct matches, so as a rule it needs no round of its
        own (when a graph link scores instead, the read was not needed)."""
        store, vector, pool, docs = self.store, self.vector, self.pool, self.document_ids
        named = {a.entity_id for a in anchors if a.named}
        # the feedback's seed: every candidate of this round comes with its cosine to it (the feature's input)
        fed = ranked[0].chunk_id if max(w.feedback for w in self.weights) > 0 and ranked else None
        by_entity, (bridged, titled), _, (feedback, by_feedback, to_seed), (_, stats) = await all_or_none(
            entity_candidates(store, anchors, vector, pool, document_ids=docs)
            if self.entity > 0 else _nothing(),
            first_hop_candidates(store, seeds[:SEEDS], seeds[:HOP_SEEDS], vector, pool, named, docs,
                                 _written(direct, seeds[:HOP_SEEDS]) if self.text_names else None, to_chunk=fed),
            read_words(store, [c.chunk_id for c in ranked[:TEXT_POOL]], direct, words, idf.keys())
            if idf is not None else _nothing(),
            feedback_and_cosines(store, vector, ranked[0], self.top_k, list(direct), docs,
                                 self.weights[0].feedback_shift) if fed is not None else _no_feedback(),
            _sections(store, [c.chunk_id for c in ranked if not c.alone],
                      {cid: c.text for cid, c in direct.items() if c.loaded}, self.question) if sections
            else _no_sections())
        self.stats, self.stats_read = stats, sections and self.question is not None
        for cid, cos in to_seed.items():
            direct[cid].seed_cosine = cos
        return _merge([list(direct.values()), by_entity, bridged, titled, by_feedback]), feedback


@dataclass
class _Fusion:
    """The fused score of the candidates (the module docstring), each one's features but the chain's kept until
    a merge or a new keyword feature changes them."""

    names: Mapping[str, float]
    """The title feature per title the question names (:func:`named_titles`)."""
    weights: PassageWeights
    chains: ChainSettings
    merged: dict[str, Candidate]
    base: dict[str, float] = field(default_factory=dict)
    entity: float = 0.0
    """The entity-mention feature's weight (:mod:`._experiments`)."""
    words: tuple[str, ...] = ()
    """The words the question writes as code (:func:`.page_names.code_words`): the pages it names."""

    total: float = field(init=False)
    """The score of a candidate perfect on every feature but feedback's."""

    def __post_init__(self) -> None:
        # computed once: a retrieve scores a few hundred candidates, each several times
        self.total = self.weights.total + self.entity + self.chains.weight

    def __call__(self, c: Candidate, coverage: float) -> float:
        """The candidate's score given its chain coverage, without the feedback feature."""
        own = self.base.get(c.chunk_id)
        if own is None:
            own = self.base[c.chunk_id] = _linked_score(c, self.names, self.weights) + self.entity * c.entity
        return (own + self.chains.weight * coverage) / self.total

    def grow(self, found: Sequence[Candidate]) -> None:
        """Merge a chain round's candidates in."""
        self.merged.update(_merge([list(self.merged.values()), found]))
        self.base.clear()

    def rescore_keywords(self, beside: Mapping[str, Sequence[str]], idf: Mapping[str, float],
                         stats: CorpusStats | None = None) -> None:
        """The keyword feature of every candidate from its section: with the graph's statistics when given
        (:mod:`.corpus_stats`), else with the candidates' own and the keyword search's idf (:mod:`.term_frequency`)."""
        sections = {cid: Section([c.text, *beside.get(cid, ())], f"{c.title} {c.heading}")
                    for cid, c in self.merged.items()}
        keyword = corpus_bm25(sections, stats) if stats is not None else section_bm25(sections, idf)
        for cid, c in self.merged.items():
            c.lexical = keyword[cid]
        self.base.clear()

    def scores(self, coverage: Mapping[str, float], feedback: Feedback | None) -> dict[str, float]:
        """Every candidate's score: its features, its chain's coverage and its feedback cosine."""
        score = {cid: self(c, coverage.get(cid, 0.0)) for cid, c in self.merged.items()}
        if feedback is not None:
            score = {cid: value + self.weights.feedback * max(0.0, feedback.near.get(cid, 0.0)) / self.total
                     for cid, value in score.items()}
        for cid in self.named_pages(score):
            score[cid] += self.weights.title / self.total
        return score

    def named_pages(self, score: Mapping[str, float]) -> list[str]:
        """Per page the question names by its file name (:mod:`.page_names`), its best candidate by ``score``: the
        one that takes the title feature (a candidate whose title the question names as a name has it already)."""
        if not self.words:  # the question writes no code: it names no page (most questions; skip every title)
            return []
        best: dict[str, str] = {}
        for cid, c in self.merged.items():
            page, name = page_name(c.title, c.path)
            if not name or not names_page(self.words, name) or _titled(c, self.names):
                continue
            have = best.get(page)
            if have is None or (-score[cid], cid) < (-score[have], have):
                best[page] = cid
        return list(best.values())


async def _rounds(store: GraphStore, fusion: _Fusion, feedback: Feedback | None, word_idf: Mapping[str, float],
                  idf: Mapping[str, float], vector: VectorParam, seeds: Sequence[tuple[str, float]], pool: int,
                  document_ids: Sequence[str] | None, words: dict[str, frozenset[str]], text_names: bool,
                  chained: bool, question: str | None,
                  ) -> tuple[dict[str, float], dict[str, list[str]] | None, CorpusStats | None]:
    """The chain rounds, the feedback cosines of the best candidates and (when the keyword feature reads sections)
    the candidates' neighbours and (given the ``question``) the graph's keyword statistics, run together: each
    candidate's chain coverage, the neighbours' texts (None when the feature does not read them) and the
    statistics (None when not read or the graph has none)."""
    merged, weights = fusion.merged, fusion.weights
    # the feature of the best candidates before the chain rounds, from the cosines to the seed the first hop read
    # (a query only for any it did not): a chunk a round finds has it only if the feedback search found it too
    # (the same recall@5 on the samples as after them)
    best_so_far = sorted(merged, key=lambda cid: (-fusion(merged[cid], 0.0), cid))[:FEATURE_POOL] if feedback else []
    sectioned = weights.section_keywords and weights.lexical > 0 and bool(word_idf)
    coverage, _, (beside, stats) = await all_or_none(
        extend_chains(store, idf, vector, merged, fusion, [cid for cid, _ in seeds[:max(SEEDS, HOP_SEEDS)]], pool,
                      fusion.grow, document_ids, fusion.chains, words, text_names) if chained else _no_values(),
        feedback_cosines(store, feedback, [merged[cid] for cid in best_so_far]) if feedback else _nothing(),
        _sections(store, [cid for cid in sorted(merged, key=lambda cid: (-fusion(merged[cid], 0.0), cid))
                          [:SECTION_POOL] if not merged[cid].alone],  # as a rule read with the first hop
                  {cid: c.text for cid, c in merged.items() if c.loaded}, question)
        if sectioned else _no_sections())
    return coverage, beside if sectioned else None, stats


def _hits(best: Sequence[str], copies: Mapping[str, Sequence[str]], merged: Mapping[str, Candidate],
          score: Mapping[str, float], texts: Mapping[str, PassageHit]) -> list[PassageHit]:
    """The passages of the chunks picked, best first, each naming the copies folded into it."""
    hits: list[PassageHit] = []
    for cid in best:
        cand = merged[cid]
        hit = texts.get(cid) or _hit(cand)
        if hit is None:  # deleted between the searches and now
            continue
        # a section's further chunk, placed after its neighbour (distinct.py), scores no higher than the chunk
        # before it, so the list stays best first by score
        hit.score = round(min(score[cid], hits[-1].score if hits else 1.0), 4)
        hit.similarity = round(cand.cosine, 4)
        hit.found_by = list(cand.found_by)
        hit.copies = [PassageSource(chunk_id=c, document_id=merged[c].document_id, title=merged[c].title,
                                    path=merged[c].path, heading=merged[c].heading) for c in copies.get(cid, [])]
        hits.append(hit)
    return hits


def _hit(cand: Candidate) -> PassageHit | None:
    """The passage of a candidate whose query read its text (None if none did)."""
    if not cand.loaded:
        return None
    return PassageHit(chunk_id=cand.chunk_id, document_id=cand.document_id, text=cand.text, score=0.0,
                      title=cand.title, path=cand.path, heading=cand.heading)


def _written(found: dict[str, Candidate], seeds: Sequence[tuple[str, float]]) -> dict[str, Sequence[str]]:
    """Per seed, the names its text writes (a seed whose text no query read has none)."""
    return {cid: written_names(found[cid].text) for cid, _ in seeds if cid in found and found[cid].loaded}


async def _nothing() -> list[Any]:
    return []


async def _no_feedback() -> tuple[Feedback | None, list[Candidate], dict[str, float]]:
    return None, [], {}


async def _no_sections() -> tuple[dict[str, list[str]], CorpusStats | None]:
    return {}, None


async def _sections(store: GraphStore, chunk_ids: Sequence[str], known: Mapping[str, str],
                    question: str | None) -> tuple[dict[str, list[str]], CorpusStats | None]:
    """The sections' texts, and the graph's keyword statistics when ``question`` is given (in the same query)."""
    if question is None:
        return await section_texts(store, chunk_ids, known), None
    return await sections_and_stats(store, chunk_ids, known, question)


async def _no_values() -> dict[str, float]:
    """Per chunk nothing: the chain coverage or the cosines to the seed of a step that does not run."""
    return {}


async def _listed(anchors: Awaitable[Sequence[Anchor]] | None) -> list[Anchor]:
    return list(await anchors) if anchors is not None else []


async def fetch_passages(store: GraphStore, chunk_ids: Sequence[str]) -> dict[str, PassageHit]:
    """Load chunks' text, heading and document title and path by id (score left at 0)."""
    if not chunk_ids:
        return {}
    rows = await store.ro_query(
        "UNWIND $ids AS cid MATCH (c:Chunk {id: cid}) " + WITH_TITLE
        + "RETURN c.id, c.text, c.heading, c.document_id, d.title, d.path",
        {"ids": list(chunk_ids)},
    )
    return {
        str(cid): PassageHit(chunk_id=str(cid), document_id=str(doc_id), text=str(text or ""), score=0.0,
                             title=str(title or ""), path=str(path or ""), heading=str(heading or ""))
        for cid, text, heading, doc_id, title, path in rows
    }


async def dense_passages(store: GraphStore, question_vector: npt.NDArray[np.float32] | Sequence[float],
                         top_k: int) -> list[PassageHit]:
    """The dense-only baseline: chunk vector search alone, one query (used by benchmarks and evaluation).

    Score: cosine similarity to the question. The index is asked for at least ``INDEX_BREADTH`` neighbours
    (its search is only as wide as that) and the best ``top_k`` kept.
    """
    rows = await store.ro_query(
        "CALL db.idx.vector.queryNodes('Chunk', 'embedding', $search, vecf32($v)) YIELD node, score "
        "WITH node, score ORDER BY score LIMIT $k "
        "OPTIONAL MATCH (d:Document {id: node.document_id}) "
        "RETURN node.id, node.text, node.heading, node.document_id, d.title, d.path, 1 - score",
        {"k": int(top_k), "search": index_breadth(top_k), "v": vector_param([float(x) for x in question_vector])},
    )
    return [
        PassageHit(chunk_id=str(cid), document_id=str(doc_id), text=str(text or ""), score=round(float(sim), 4),
                   title=str(title or ""), path=str(path or ""), heading=str(heading or ""), found_by=["vector"],
                   similarity=round(float(sim), 4))
        for cid, text, heading, doc_id, title, path, sim in rows
    ]
