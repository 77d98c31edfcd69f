"""Co-mention facts' vectors read from their chunk's model run (``ingest/fact_pooling.py``), and the way back to
embedding every sentence alone (``fact_vectors="sentences"``)."""

from __future__ import annotations

import numpy as np
import pytest

from graphrag_agents.ingest.embedding import chunk_embed_text
from graphrag_agents.ingest.fact_pooling import sentence_span
from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.models.embedder import SpanEmbedder
from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder

NER = IngestPlan(extractor="ner")
FACT = "Van Hook Township is a township in Mountrail County, North Dakota, United States."
TEXT = "It lies in the plains. " + FACT + " It has 200 people."


def test_the_span_text_vectors_are_embeds_and_each_span_reads_its_own_words(embedder: OnnxMiniLMEmbedder) -> None:
    first, second = "Ada Lovelace wrote the first program.", "The river floods every spring."
    text = f"{first} {second}"
    vectors, spans = embedder.embed_spans([text, "no span here"], [[(0, len(first)), sentence_span(text, second)
                                                                    or (0, 0)], []])
    assert np.allclose(vectors, embedder.embed([text, "no span here"]), atol=1e-5)
    assert spans[1] == []
    read_first, read_second = spans[0]
    assert read_first is not None and read_second is not None
    assert abs(float(np.linalg.norm(read_first)) - 1.0) < 1e-5
    alone = embedder.embed([first, second])
    # each span's vector is nearer its own sentence embedded alone than the other sentence
    assert float(read_first @ alone[0]) > float(read_first @ alone[1])
    assert float(read_second @ alone[1]) > float(read_second @ alone[0])


def test_a_span_the_model_did_not_read_whole_has_no_vector() -> None:
    short = OnnxMiniLMEmbedder(max_tokens=8, max_batch_tokens=64)
    text = "one two three four five six seven eight nine ten"
    _, spans = short.embed_spans([text], [[(0, 3), (text.index("nine"), len(text)), (3, 4)]])
    first, truncated, blank = spans[0]
    assert first is not None
    assert truncated is None  # past the 8 tokens the model reads
    assert blank is None  # a space holds no token


def test_span_lists_must_match_the_texts(embedder: OnnxMiniLMEmbedder) -> None:
    with pytest.raises(ValueError, match="one per text"):
        embedder.embed_spans(["a", "b"], [[]])


def test_a_stored_sentence_is_found_whatever_the_spacing() -> None:
    text = "Title\nVan Hook Township is a township in\n  Mountrail County. Next."
    span = sentence_span(text, "Van Hook Township is a township in Mountrail County.")
    assert span is not None and text[span[0]:span[1]].startswith("Van Hook") and text[span[1] - 1] == "."
    assert sentence_span(text, "Van Hook Township is a city.") is None
    assert sentence_span(text, "   ") is None


def test_the_local_embedder_reads_spans_and_a_hosted_one_does_not() -> None:
    from graphrag_agents.models.litellm_embedder import LiteLLMEmbedder

    assert isinstance(OnnxMiniLMEmbedder(), SpanEmbedder)
    assert not isinstance(LiteLLMEmbedder("openai/text-embedding-3-small", dimension=8), SpanEmbedder)


async def _fact_vector(kg: KnowledgeGraph) -> np.ndarray:
    rows = await kg.store.ro_query("MATCH (f:__Fact__) RETURN f.text, f.embedding")
    assert len(rows) == 1 and rows[0][0] == FACT
    return np.asarray(rows[0][1], dtype=np.float32)


async def _read_in_chunk(kg: KnowledgeGraph) -> np.ndarray:
    (title, heading, text), = await kg.store.ro_query(
        "MATCH (c:Chunk) OPTIONAL MATCH (d:Document {id: c.document_id}) RETURN d.title, c.heading, c.text")
    chunk = chunk_embed_text(title, heading, text)
    span = sentence_span(chunk, FACT)
    assert span is not None
    assert isinstance(kg.embedder, SpanEmbedder)
    _, spans = kg.embedder.embed_spans([chunk], [[span]])
    assert spans[0][0] is not None
    return spans[0][0]


async def test_by_default_a_co_mention_fact_is_read_from_its_chunks_run(kg: KnowledgeGraph) -> None:
    await kg.ingest(text=TEXT, document_id="vanhook", title="Van Hook Township", plan=NER)
    report = await kg.finalize(progress=False)
    assert report.embedded.facts == report.embedded.facts_from_chunks == 1
    stored = await _fact_vector(kg)
    assert float(stored @ await _read_in_chunk(kg)) > 0.999
    assert float(stored @ kg.embedder.embed([FACT])[0]) < 0.99  # not the sentence embedded alone
    assert (await kg.vector_rules()).facts == "all"


async def test_sentences_embeds_every_fact_alone_as_the_previous_release(kg: KnowledgeGraph) -> None:
    await kg.ingest(text=TEXT, document_id="vanhook", title="Van Hook Township", plan=NER)
    report = await kg.finalize(progress=False, fact_vectors="sentences")
    assert report.embedded.facts == 1 and report.embedded.facts_from_chunks == 0
    assert float(await _fact_vector(kg) @ kg.embedder.embed([FACT])[0]) > 0.999
    assert (await kg.vector_rules()).facts == "sentences"


async def test_a_fact_whose_chunk_has_its_vector_already_is_embedded_alone(kg: KnowledgeGraph) -> None:
    await kg.ingest(text=TEXT, document_id="vanhook", title="Van Hook Township", plan=NER)
    assert (await kg.finalize(progress=False, fact_vectors="typed")).embedded.facts == 0
    report = await kg.finalize(progress=False, fact_vectors="all")  # the chunk is not embedded again
    assert report.embedded.chunks == 0
    assert report.embedded.facts == 1 and report.embedded.facts_from_chunks == 0
    assert float(await _fact_vector(kg) @ kg.embedder.embed([FACT])[0]) > 0.999


async def test_a_retrieve_finds_a_fact_read_from_its_chunk(kg: KnowledgeGraph) -> None:
    await kg.ingest(text=TEXT, document_id="vanhook", title="Van Hook Township", plan=NER)
    await kg.finalize(progress=False)
    hits = await kg.retrieve("Which county is Van Hook Township in?", paths=["facts"])
    assert [fact.fact for fact in hits.facts] == [FACT]
