"""Chain expansion: rounds of hops from the chains' ends, and chains scored by how much of the question they cover.

A compositional question resolves one description per link: "When did the director of film X's father die?"
needs the film's paragraph (it names the director), the director's (it names the father) and the father's.
The first round of :mod:`.bridge` follows one link from the best direct matches. A passage a hop reaches
remembers the passage that led to it (``Candidate.parent``), so the candidates form chains; each further
*round* takes the best passages at a chain's end not yet followed (by the score so far, chain coverage
included) and follows their entities through the titled hop (bridge expansion too with ``bridge``), with seed
weights falling by ``decay`` per round.

A chain is scored by its *coverage*: the idf-weighted share of the question's content words (the words of its
names among them) that some passage of the chain holds, title included, each word counted once however many
passages hold it. Every passage of a chain gets the coverage of the best chain it lies on, so the link in the
middle that no question word names directly is lifted with the chain it completes. Rounds stop when one adds
no coverage (the best chain covers no more of the question than before), when nothing is left to follow, when
a chain covers ``covered`` (60%) of the question, or after ``rounds``. A question whose first hop already reaches
that much is a two-hop one as a rule, and a round then only costs time: it ran on 78 of 100 HotpotQA questions
and changed no recall@5 there.

No LLM: word sets and the graph's entity mentions and titles only. Bounds: at most ``rounds`` extra rounds (default
1, so chains of three passages: a direct match, its first hop and one more; a second round added nothing on the
samples, at four hops either, ``benchmarks/results/retrieval-weights-history.md``), each following ``frontier``
passages (3) with the bounded queries of :mod:`.bridge` (per seed 50 entities, per name 3 titled documents, ``k``
chunks), whose rows carry the chunk's text; words are read for at most ``TEXT_POOL`` candidates a round (plus their
chains), in one query for those whose text no hop brought."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from .._keys import QUERY_WORD as _WORD
from ..store.graph import GraphStore
from ._cypher import QueryVector
from ._tasks import all_or_none
from .bridge import bridge_candidates, titled_candidates
from .candidates import Candidate, TermWeights
from .fulltext import query_terms, term_weights
from .written_names import written_names

__all__ = ["CHAINS", "TEXT_POOL", "ChainSettings", "chain_coverage", "extend_chains", "idf_of", "question_idf",
           "read_words"]

TEXT_POOL = 40
"""Best candidates (by score so far) whose words are read to score chains, each round."""


@dataclass(frozen=True)
class ChainSettings:
    """How far chain expansion goes and how much a chain's coverage counts (module docstring)."""

    rounds: int = 1
    """Rounds past the first hop (0: one hop only; 2 was the default before the MuSiQue measurements)."""
    frontier: int = 3
    """Passages followed per round."""
    decay: float = 0.5
    """Seed weight factor per round: a passage two links away counts half as much as one link away."""
    weight: float = 1.0
    """Weight of the chain-coverage feature in the passage score (0: chains found but not scored)."""
    bridge: bool = False
    """Whether later rounds follow shared entities too (bridge expansion), not only titled hops."""
    ends_only: bool = True
    """Whether a round follows only passages a hop reached (extending chains), not any best passage."""
    novelty: float = 0.35
    """Weight of what a passage adds to the coverage of the passages ranked before it, in the final order
    (:mod:`.novelty`; 0: the score's order, the previous behaviour)."""
    covered: float = 0.6
    """No round runs once the best chain covers this share of the question (1: only a whole cover stops them, the
    previous behaviour). 0.6 is the lowest that lost nothing on fold A of the three tuning sets; it saves the
    round's 3-6 ms on most questions (``benchmarks/results/retrieval-latency-history.md``)."""
    statements: bool = False
    """Whether the new-coverage order (``novelty``) also orders a statement: a sentence that asks nothing, a claim
    to check (:mod:`graphrag_agents.text.statements`). False: a statement's passages are ordered by score, as each
    of them is evidence on its own; True: as a question's, the behaviour before (``docs/retrieval-passages.md``,
    "Claims")."""


CHAINS = ChainSettings()


def _words(text: str, vocabulary: _Finder | None = None) -> frozenset[str]:
    return vocabulary.find(text) if vocabulary is not None else frozenset(_WORD.findall(text.lower()))


class _Finder:
    """Finds the words of a vocabulary where they stand as whole words of a text (as :data:`_WORD` splits it:
    runs of alphanumeric characters).

    A substring search per word, then a look at the characters on either side (the question has at most 32
    content words): faster than one pattern of all the words, which the regex engine tries at every character,
    and than splitting every text into a set of its words.
    """

    __slots__ = ("_vocabulary",)

    def __init__(self, vocabulary: Collection[str]) -> None:
        self._vocabulary = tuple(dict.fromkeys(vocabulary))

    def find(self, text: str) -> frozenset[str]:
        lowered = text.lower()
        return frozenset(w for w in self._vocabulary if _whole_word(lowered, w))


def _whole_word(text: str, word: str) -> bool:
    at = text.find(word)
    while at >= 0:
        end = at + len(word)
        if (at == 0 or not text[at - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            return True
        at = text.find(word, at + 1)
    return False


def _finder(vocabulary: Collection[str] | None) -> _Finder | None:
    """A finder of the words of ``vocabulary`` in a text (None: every word of the text)."""
    return None if vocabulary is None else _Finder(vocabulary)


def _chain(cid: str, merged: Mapping[str, Candidate]) -> list[str]:
    """``cid`` and the passages that led to it, nearest first (a cycle ends the walk)."""
    out = [cid]
    parent = merged[cid].parent
    while parent and parent in merged and parent not in out:
        out.append(parent)
        parent = merged[parent].parent
    return out


def chain_coverage(merged: Mapping[str, Candidate], words: Mapping[str, frozenset[str]],
                   idf: Mapping[str, float]) -> dict[str, float]:
    """Per candidate, the coverage of the best chain it lies on (0 for one whose words were not read)."""
    total = sum(idf.values())
    best: dict[str, float] = {}
    if total <= 0:
        return best
    for cid in merged:
        if cid not in words:
            continue
        links = _chain(cid, merged)
        covered: set[str] = set()
        for link in links:
            covered |= words.get(link, frozenset()) & idf.keys()
        value = sum(idf[w] for w in covered) / total
        for link in links:
            if value > best.get(link, 0.0):
                best[link] = value
    return best


async def read_words(store: GraphStore, ids: Collection[str], merged: Mapping[str, Candidate],
                     known: dict[str, frozenset[str]], vocabulary: Collection[str] | None = None) -> None:
    """Fill ``known`` with the words (title + text) of the chunks ``ids``, only those of ``vocabulary`` when
    given (the question's: all that coverage counts): from the text their query brought, else in one query for
    the rest."""
    finder = _finder(vocabulary)
    for cid in ids:
        if cid not in known and (merged[cid].loaded or merged[cid].text):
            known[cid] = _words(f"{merged[cid].title} {merged[cid].text}", finder)
    missing = [cid for cid in ids if cid not in known]
    if not missing:
        return
    rows = await store.ro_query("UNWIND $ids AS cid MATCH (c:Chunk {id: cid}) RETURN c.id, c.text",
                                {"ids": missing})
    for cid, text in rows:
        known[str(cid)] = _words(f"{merged[str(cid)].title} {text or ''}", finder)


def _with_chains(ids: Sequence[str], merged: Mapping[str, Candidate]) -> list[str]:
    return list(dict.fromkeys(link for cid in ids for link in _chain(cid, merged)))


async def question_idf(store: GraphStore, question: str,
                       weighted: Awaitable[TermWeights] | None = None) -> dict[str, float]:
    """The idf of each of the question's content words found in the chunks (cached counts, see
    :func:`~.fulltext.term_weights`; ``weighted``: those weights, when already asked for): what a chain's
    coverage is weighed by."""
    return idf_of(await (weighted if weighted is not None else term_weights(store, "Chunk", query_terms(question))))


def idf_of(weighted: TermWeights) -> dict[str, float]:
    """The idf per word of term weights (:func:`~.fulltext.term_weights`): what a chain's coverage is weighed by."""
    weights, _ = weighted
    # a word searched one letter off (``%word%``, candidates.spelled_near) names no word a text holds
    return {str(t): float(w) for t, w in weights if not str(t).startswith("%")}


async def extend_chains(store: GraphStore, idf: Mapping[str, float], vector: QueryVector,
                        merged: dict[str, Candidate],
                        score: Callable[[Candidate, float], float], expanded: Collection[str], k: int,
                        merge: Callable[[Sequence[Candidate]], None], document_ids: Sequence[str] | None = None,
                        settings: ChainSettings = CHAINS,
                        words: dict[str, frozenset[str]] | None = None, text_names: bool = True) -> dict[str, float]:
    """Run the rounds over ``merged`` (grown in place through ``merge``); return each candidate's chain coverage.

    ``idf`` weighs the question's words (:func:`question_idf`), ``score`` ranks a candidate given its chain
    coverage so far, ``expanded`` are the chunks the first round already followed, ``k`` bounds each expansion
    query, ``words`` are the word sets already read (:func:`read_words`; filled in place); with ``text_names``
    the titled hops also look up the names the followed passages' text writes (:mod:`.written_names`).
    """
    words = {} if words is None else words
    followed = set(expanded)

    coverage: dict[str, float] = {}

    def ranked() -> list[str]:
        return sorted(merged, key=lambda cid: (-score(merged[cid], coverage.get(cid, 0.0)), cid))

    pool = _with_chains(ranked()[:TEXT_POOL], merged)
    await read_words(store, pool, merged, words, idf.keys())
    coverage = chain_coverage(merged, words, idf)
    best = max(coverage.values(), default=0.0)
    for round_ in range(1, settings.rounds + 1):
        frontier = [cid for cid in ranked() if cid not in followed
                    and (merged[cid].parent or not settings.ends_only)][:settings.frontier]
        if not frontier or best >= settings.covered:
            break
        followed.update(frontier)
        seeds = [(cid, settings.decay ** round_ / (i + 1)) for i, cid in enumerate(frontier)]
        written = {cid: written_names(merged[cid].text) for cid in frontier
                   if text_names and merged[cid].loaded}
        found = await all_or_none(
            titled_candidates(store, seeds, vector, k, document_ids, written),
            bridge_candidates(store, seeds, vector, k, (), document_ids) if settings.bridge else _nothing())
        merge([c for group in found for c in group])
        pool = _with_chains(ranked()[:TEXT_POOL], merged)
        await read_words(store, pool, merged, words, idf.keys())
        coverage = chain_coverage(merged, words, idf)
        now = max(coverage.values(), default=0.0)
        if now <= best:
            break  # this round added no coverage
        best = now
    return coverage


async def _nothing() -> list[Candidate]:
    return []
