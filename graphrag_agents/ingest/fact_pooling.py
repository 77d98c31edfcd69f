"""Co-mention facts' vectors read from their chunk's model run, not embedded a second time.

A co-mention fact (a ``__Fact__`` node, the ``ner`` extractor's sentence naming two or more entities) is a
sentence of a chunk. Embedding each sentence on its own makes the model read again text it has just read for the
chunk: on HotpotQA + 2Wiki + ``techdocs_a`` together that second pass cost 0.58x of the embedder's time over the
chunks, the largest step of a build after the chunks themselves. With a local model (a
:class:`~graphrag_agents.models.embedder.SpanEmbedder`), ``finalize`` gives the fact the mean of the token states
the model computed for its chunk over the sentence's tokens: the sentence read in its chunk, under the
document's title and heading. Those vectors also rank the facts of a question's gold paragraphs higher than the
sentences embedded alone (``docs/scale-building.md``, "Fact vectors read from the chunk").

A fact is left to the facts phase, which embeds its sentence alone as before, when its sentence is not found in
its first chunk's text, lies past the tokens the model reads of the chunk (256), or its chunk is not embedded in
this ``finalize`` (it had a vector already). ``fact_vectors="sentences"`` embeds every fact alone.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..models.embedder import SpanEmbedder
from ..store.graph import GraphStore

__all__ = ["FACT_NODE_UPDATE", "ChunkFacts", "PooledRun", "pool_facts", "sentence_span"]

_ID_WINDOW = 8192

FACT_NODE_UPDATE = ("UNWIND $rows AS r WITH r, r.k AS node MATCH (f:__Fact__) WHERE id(f) = node "
                    "SET f.embedding = vecf32(r.v)")
"""Set co-mention facts' vectors from ``$rows = [{k: node id, v: vector}]`` (the id projected first: an index
seek, see ``embedding._Target.update``)."""

_MISSING = ("MATCH (f:__Fact__) WHERE id(f) >= $lo AND id(f) < $hi AND f.embedding IS NULL "
            "MATCH (c:Chunk {id: f.chunk_ids[0]}) RETURN id(c), id(f)")
_TEXTS = "UNWIND $ids AS i WITH i AS node MATCH (f:__Fact__) WHERE id(f) = node RETURN node, f.text"


def sentence_span(text: str, sentence: str) -> tuple[int, int] | None:
    """Where ``sentence`` is in ``text``, its words in order with any spacing between them (a stored fact has
    its spacing collapsed); None when it is not there."""
    words = sentence.split()
    if not words:
        return None
    found = re.search(r"\s+".join(map(re.escape, words)), text)
    return (found.start(), found.end()) if found else None


@dataclass(frozen=True)
class ChunkFacts:
    """Co-mention facts without a vector, by the node id of their first chunk (two sorted arrays, 16 bytes a
    fact, so a graph of millions of facts is held in tens of MB)."""

    chunks: npt.NDArray[np.int64]
    facts: npt.NDArray[np.int64]

    @classmethod
    async def load(cls, store: GraphStore) -> ChunkFacts:
        """Walk the fact nodes in windows of node ids and keep those without a vector."""
        rows: list[Any] = []
        top = await store.query("MATCH (f:__Fact__) RETURN max(id(f))", idempotent=True)
        max_id = -1 if not top or top[0][0] is None else int(top[0][0])
        for lo in range(0, max_id + 1, _ID_WINDOW):
            rows += await store.query(_MISSING, {"lo": lo, "hi": lo + _ID_WINDOW}, idempotent=True)
        pairs = np.array(rows, dtype=np.int64).reshape(-1, 2)
        order = np.argsort(pairs[:, 0], kind="stable")
        return cls(pairs[order, 0], pairs[order, 1])

    def __len__(self) -> int:
        return len(self.facts)

    def of(self, chunk: int) -> list[int]:
        """The facts whose first chunk is the node ``chunk``."""
        lo, hi = np.searchsorted(self.chunks, [chunk, chunk + 1])
        return [int(f) for f in self.facts[lo:hi]]


@dataclass
class PooledRun:
    """What one model run over chunk texts gave: each text's vector, and the vectors read for facts."""

    vectors: npt.NDArray[np.float32]
    facts: list[dict[str, Any]] = field(default_factory=list)
    """``{k: fact node id, v: vector}`` rows, as :data:`FACT_NODE_UPDATE` writes them."""


async def pool_facts(store: GraphStore, embedder: SpanEmbedder, texts: list[str],
                     facts_of_text: list[list[int]]) -> PooledRun:
    """Embed ``texts`` (chunk texts as the chunk vectors are made) and read, from the same run, a vector for each
    fact in ``facts_of_text[i]`` whose sentence is found in ``texts[i]``."""
    wanted = sorted({fact for facts in facts_of_text for fact in facts})
    rows = await store.query(_TEXTS, {"ids": wanted}, idempotent=True) if wanted else []
    sentences: dict[int, str] = {int(node): str(text or "") for node, text in rows}
    located: list[list[tuple[int, tuple[int, int]]]] = []
    for text, facts in zip(texts, facts_of_text, strict=True):
        spans = ((fact, sentence_span(text, sentences.get(fact, ""))) for fact in facts)
        located.append([(fact, span) for fact, span in spans if span is not None])
    vectors, pooled = await asyncio.to_thread(embedder.embed_spans, texts, [[s for _, s in f] for f in located])
    run = PooledRun(vectors)
    for found, fact_vectors in zip(located, pooled, strict=True):
        run.facts += [{"k": fact, "v": vec.tolist()} for (fact, _), vec in zip(found, fact_vectors, strict=True)
                      if vec is not None]
    return run
