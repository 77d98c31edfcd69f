"""A synthetic corpus in the style of the HotpotQA sample, any size, deterministic; used by ``scale_bench.py``.

Each synthetic paragraph (one document, one chunk) takes 2-4 consecutive sentences of a real paragraph P and
puts another real title S (parenthetical qualifiers dropped: "Rush (band)" -> "Rush") in the place of P's
title: "Neil Peart is a Canadian musician ..." becomes "Jeff Porcaro is a Canadian musician ...". When P's
first sentence does not spell its title, the text starts with "S: ". Entities are S and the capitalised name
spans of the sentences (a cheap stand-in for spaCy's NER: about 3 a sentence, as NER finds on this corpus);
every pair named in one sentence (at most 10 pairs) gets a co-mention relation whose fact is the sentence, like
the ``ner`` extractor writes: *grouped*, so the writer stores each sentence once as one fact node naming its
entities (``SyntheticParagraph.batch(grouped=False)`` writes the previous release's one relation per pair, the
baseline of the memory and start-up figures). Paragraph i is a pure function of (seed, i), so a 10k corpus holds
the 1k one.

A *planted question* asks about a paragraph by its subject and a few of its content words ("What do we know
about Jeff Porcaro, Canadian musician author drummer?"); its answer paragraph is known. With ~N/1971 synthetic
variants of each real paragraph, most of the text of the answer paragraph also appears under other subjects:
the question is answerable only by the name, and it gets harder as the corpus grows.

Vectors. Embedding 100k paragraphs with the real ONNX model takes hours on 2 cores, so the bulk reuses vectors:
the real sentences and titles are embedded once (cached), and a synthetic text's vector is
``normalise(mean(vectors of its source sentences) + ALPHA * vector(S) + noise)``; a fact's is the same over its
one sentence. ``calibrate`` measures how close that is to the real embedding of the synthetic chunk's embedded
text (``SyntheticParagraph.embedded``: its title above its text, as ``finalize`` embeds it).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from graphrag_agents.ingest.embedding import CHUNK_EMBED_FORMAT, chunk_embed_text
from graphrag_agents.ingest.records import (
    ChunkRecord,
    DocumentBatch,
    DocumentRecord,
    EntityRecord,
    RelationRecord,
    chunk_id,
    entity_id,
)
from graphrag_agents.models.embedder import Embedder, l2_normalise

__all__ = ["ALPHA", "NOISE", "LookupEmbedder", "Source", "SyntheticParagraph", "calibrate"]

ALPHA = 0.5
"""Weight of the subject's vector in a synthetic vector (set by ``calibrate`` on real embeddings)."""
NOISE = 0.02
"""Standard deviation of the deterministic per-text noise added before normalising."""
LABEL = "Unknown"
CO_MENTION = "RELATED_TO"
_QUALIFIER = re.compile(r"\s*\([^)]*\)$")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
_SPAN = re.compile(r"\b[A-Z][\w'’.-]*(?:\s+(?:(?:of|the|and|de|von|van|del|la|for)\s+)?[A-Z][\w'’.-]*){0,4}")
_STARTERS = frozenset("The It He She In A An This His Her They After During On At For From By As With When While "
                      "Its Their There These Those Since Although Following Despite Unlike Born Before Upon Both "
                      "Some Many Most One Two Three".split())
_STOP = frozenset("also that this with from were which their there have been after where about into when known "
                  "born became best most other first during under while such they them then than only".split())


@dataclass
class SyntheticParagraph:
    """One synthetic document with its single chunk, entities and relations, and the vectors of each."""

    index: int
    subject: str
    text: str
    source_sentences: list[int]
    """Indexes into ``Source.sentences`` of the sentences it reuses."""
    entities: list[str] = field(default_factory=list)
    facts: list[tuple[str, str, str, int]] = field(default_factory=list)
    """(name a, name b, fact sentence, source sentence index)."""

    @property
    def doc_id(self) -> str:
        return f"syn-{self.index:07d}"

    def batch(self, grouped: bool = True) -> DocumentBatch:
        """The records the product's writer takes; ``grouped=False``: one relation per pair, as before fact nodes."""
        cid = chunk_id(self.doc_id, 0)
        ents = {entity_id(LABEL, n): EntityRecord(id=entity_id(LABEL, n), label=LABEL, name=n, chunk_ids=[cid])
                for n in self.entities}
        rels = [RelationRecord(entity_id(LABEL, a), entity_id(LABEL, b), CO_MENTION, fact, cid, grouped=grouped)
                for a, b, fact, _ in self.facts]
        digest = hashlib.sha256(self.text.encode()).hexdigest()
        return DocumentBatch(DocumentRecord(id=self.doc_id, title=self.subject, content_hash=digest),
                             [ChunkRecord(id=cid, index=0, text=self.text)], list(ents.values()), rels)

    @property
    def embedded(self) -> str:
        """What ``finalize`` embeds for the paragraph's chunk (its document title, then its text)."""
        return chunk_embed_text(self.subject, None, self.text)

    def question(self) -> str:
        """The planted question whose answer paragraph is this one."""
        words = [w for w in _WORD.findall(self.text.replace(self.subject, " ")) if w.lower() not in _STOP]
        return f"What do we know about {self.subject}, {' '.join(dict.fromkeys(words[:6]))}?"


def _names(sentence: str) -> list[str]:
    """Capitalised spans of a sentence, without sentence starters ("The", "He") and one-or-two-letter words."""
    found: dict[str, None] = {}
    for match in _SPAN.finditer(sentence):
        words = match.group().rstrip(".").split()
        if words and words[0] in _STARTERS:
            words = words[1:]
        name = " ".join(words)
        if len(name) >= 3 and name not in _STARTERS:
            found.setdefault(name, None)
    return list(found)


class Source:
    """The real corpus, cut into sentences, with the titles each sentence names."""

    def __init__(self, corpus_path: Path) -> None:
        rows = [json.loads(line) for line in corpus_path.read_text(encoding="utf-8").splitlines() if line.strip()]
        self.digest = hashlib.sha256(corpus_path.read_bytes()).hexdigest()[:16]
        self.subjects = sorted({_QUALIFIER.sub("", r["title"]).strip() for r in rows} - {""})
        self.paragraphs: list[tuple[str, list[int]]] = []
        self.sentences: list[str] = []
        for row in rows:
            ids = []
            for sentence in row["sentences"]:
                if sentence.strip():
                    ids.append(len(self.sentences))
                    self.sentences.append(sentence.strip())
            if len(ids) >= 2:
                self.paragraphs.append((_QUALIFIER.sub("", row["title"]).strip(), ids))
        self.named = [_names(s) for s in self.sentences]
        self.names = sorted(set(self.subjects).union(*self.named))
        """Every name an entity can have: the subjects and the names the sentences hold."""

    def paragraph(self, seed: int, index: int) -> SyntheticParagraph:
        """Synthetic paragraph ``index`` (a pure function of ``seed`` and ``index``)."""
        rng = random.Random(f"{seed}:{index}")
        title, ids = self.paragraphs[rng.randrange(len(self.paragraphs))]
        subject = self.subjects[rng.randrange(len(self.subjects))]
        while subject == title:
            subject = self.subjects[rng.randrange(len(self.subjects))]
        take = min(len(ids), rng.randint(2, 4))
        chosen = ids[:take]
        texts = [self.sentences[i].replace(title, subject) if title else self.sentences[i] for i in chosen]
        text = " ".join(texts)
        if subject not in texts[0]:
            text = f"{subject}: {text}"
        para = SyntheticParagraph(index, subject, text, chosen)
        entities: dict[str, None] = {subject: None}
        for sid, sentence in zip(chosen, texts, strict=True):
            here = [n for n in self.named[sid] if n != subject and n in sentence]
            if subject in sentence or sid == chosen[0]:
                here = [subject, *here]
            entities.update(dict.fromkeys(here))
            pairs = [(a, b) for i, a in enumerate(here) for b in here[i + 1:]][:10]
            para.facts += [(a, b, sentence, sid) for a, b in pairs]
        para.entities = list(entities)
        return para

    def paragraphs_range(self, seed: int, start: int, stop: int) -> Iterator[SyntheticParagraph]:
        """Paragraphs ``start`` .. ``stop - 1``."""
        for i in range(start, stop):
            yield self.paragraph(seed, i)


class LookupEmbedder:
    """An :class:`Embedder` that returns precomputed vectors for known texts and embeds the rest for real.

    It keeps the real model's name, so the graph it fills opens with the real embedder for the questions.
    """

    def __init__(self, real: Embedder, table: dict[str, npt.NDArray[np.float32]]) -> None:
        self.real = real
        self.table = table
        self.model_name = real.model_name
        self.dimension = real.dimension
        self.misses = 0

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        missing = [i for i, t in enumerate(texts) if t not in self.table]
        for i, text in enumerate(texts):
            if text in self.table:
                out[i] = self.table[text]
        if missing:
            self.misses += len(missing)
            out[missing] = self.real.embed([texts[i] for i in missing])
        return out

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import asyncio

        return await asyncio.to_thread(self.embed, texts)


def base_vectors(source: Source, embedder: Embedder, cache: Path) -> tuple[npt.NDArray[np.float32],
                                                                          dict[str, npt.NDArray[np.float32]]]:
    """Real vectors of every source sentence and every name, embedded once and cached in ``cache``."""
    path = cache / f"scale-vectors-{source.digest}-{embedder.model_name}.npz"
    if path.exists():
        data = np.load(path)
        sentences, names = data["sentences"], data["names"]
    else:
        sentences = embedder.embed(source.sentences)
        names = embedder.embed(source.names)
        cache.mkdir(parents=True, exist_ok=True)
        np.savez(path, sentences=sentences, names=names)
    return sentences, dict(zip(source.names, names, strict=True))


def _noise(key: str, dim: int) -> npt.NDArray[np.float32]:
    seed = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")
    return np.random.default_rng(seed).normal(0.0, NOISE, dim).astype(np.float32)


def synthetic_vectors(para: SyntheticParagraph, sentences: npt.NDArray[np.float32],
                      names: dict[str, npt.NDArray[np.float32]], alpha: float = ALPHA
                      ) -> dict[str, npt.NDArray[np.float32]]:
    """text -> vector for the paragraph's chunk, entities and facts (the cheap path, see the module docstring)."""
    dim = sentences.shape[1]
    subject = names[para.subject]
    table = {para.embedded: l2_normalise((sentences[para.source_sentences].mean(axis=0) + alpha * subject
                                      + _noise(para.text, dim))[None, :])[0]}
    for name in para.entities:
        table[name] = names[name]
    for _, _, fact, sid in para.facts:
        if fact not in table:
            boost = alpha * subject if para.subject in fact else 0.0
            table[fact] = l2_normalise((sentences[sid] + boost + _noise(fact, dim))[None, :])[0]
    return table


def calibrate(source: Source, embedder: Embedder, sentences: npt.NDArray[np.float32],
              names: dict[str, npt.NDArray[np.float32]], seed: int, cache: Path, count: int = 1000,
              questions: int = 100) -> dict[str, float]:
    """Check the cheap path against real embeddings on the first ``count`` paragraphs (embedded once, cached).

    Returns the ALPHA (of 0, .25, .5, .75, 1, 1.5, 2) whose synthetic chunk vectors agree best with the real ones, that
    mean cosine, and dense-only recall@10 of ``questions`` planted questions by brute-force search over the
    ``count`` chunks with real vectors and with synthetic ones: how far the cheap path moves the baseline.
    """
    paras = [source.paragraph(seed, i) for i in range(count)]
    path = cache / f"scale-real-{source.digest}-{seed}-{count}-{embedder.model_name}-f{CHUNK_EMBED_FORMAT}.npy"
    if path.exists():
        real = np.load(path)
    else:
        real = embedder.embed([p.embedded for p in paras])
        np.save(path, real)
    best = {"alpha": ALPHA, "agreement": -1.0}
    for alpha in (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0):
        approx = np.stack([synthetic_vectors(p, sentences, names, alpha)[p.embedded] for p in paras])
        agreement = float(np.mean(np.sum(real * approx, axis=1)))
        if agreement > best["agreement"]:
            best = {"alpha": alpha, "agreement": agreement}
            chosen = approx
    picks = random.Random(f"{seed}:calibrate").sample(range(count), min(questions, count))
    asked = embedder.embed([paras[i].question() for i in picks])
    for key, matrix in (("dense_recall_real", real), ("dense_recall_synthetic", chosen)):
        top = np.argsort(-(asked @ matrix.T), axis=1)[:, :10]
        best[key] = float(np.mean([picks[j] in top[j] for j in range(len(picks))]))
    return best
