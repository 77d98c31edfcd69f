"""The llm extractor against recorded answers of a real small model (Qwen2.5-Coder 0.5B via llama.cpp).

Cassettes in ``tests/cassettes/`` replay the model server: no server runs in CI. To record them again, start
the server (``bash ../shared/tools/local-llm/serve.sh 8089``), delete the cassettes and run::

    GRAPHRAG_RECORD=once GRAPHRAG_LLM_API_BASE=http://127.0.0.1:8089/v1 pytest tests/test_ingest_llm.py

Requests are matched on their body too, so concurrent chunks get their own answers on replay.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.models.chat import ChatModel

CASSETTES = Path(__file__).parent / "cassettes"
API_BASE = os.environ.get("GRAPHRAG_LLM_API_BASE", "http://127.0.0.1:8089/v1")
FAKE_KEY = "sk-test-0123456789abcdef"
RECORD = os.environ.get("GRAPHRAG_RECORD", "none")

ENTITIES = [
    {"label": "Person", "description": "A person.", "properties": ["born"]},
    {"label": "Organization", "description": "A company, university, band or other organisation."},
    {"label": "Location", "description": "A city or country."},
]
RELATIONS = [
    {"label": "WORKS_AT", "description": "The person works at the organization.",
     "patterns": [["Person", "Organization"]]},
    {"label": "BORN_IN", "description": "The person was born in the place.", "patterns": [["Person", "Location"]]},
    {"label": "MEMBER_OF", "description": "The person is a member of the band or group.",
     "patterns": [["Person", "Organization"]]},
]
CURIE = ("Marie Curie was a physicist born in Warsaw. "
         "Curie worked at the University of Paris with her husband Pierre Curie.")


@contextmanager
def cassette(name: str) -> Iterator[object]:
    """Replay (or, with GRAPHRAG_RECORD=once, record) the model server's answers."""
    import vcr

    recorder = vcr.VCR(
        cassette_library_dir=str(CASSETTES), record_mode=RECORD,
        match_on=["method", "scheme", "host", "port", "path", "body"],
        filter_headers=["authorization", "api-key", "x-api-key", "openai-organization"],
        decode_compressed_response=True,
    )
    with recorder.use_cassette(f"{name}.yaml") as tape:
        yield tape


def _model() -> ChatModel:
    return ChatModel("openai/local", api_base=API_BASE, api_key=FAKE_KEY, timeout=900, max_attempts=1)


async def _declare(kg: KnowledgeGraph) -> None:
    await kg.set_ontology(entities=ENTITIES, relations=RELATIONS)


async def test_one_call_per_chunk_typed_entities_and_relations(kg: KnowledgeGraph) -> None:
    await _declare(kg)
    kg.llm = _model()
    plan = IngestPlan(chunker="sentence", chunk_params={"target_chars": 60, "max_chars": 120}, extractor="llm")
    with cassette("llm_curie") as tape:
        report = await kg.ingest(text=CURIE, document_id="curie", plan=plan)
    doc = report.documents[0]
    assert doc.status == "ingested" and doc.chunks == 2, doc
    assert report.llm_calls == doc.extra["llm_calls"] == len(tape.requests)  # type: ignore[attr-defined]
    assert report.llm_calls == doc.chunks  # exactly one call per chunk: these answers were all valid
    status = await kg.status()
    assert status.entity_labels.get("Person", 0) >= 1
    assert set(status.entity_labels) <= {"Person", "Organization", "Location", "Unknown"}
    assert set(status.relation_types) <= {"WORKS_AT", "BORN_IN", "MEMBER_OF"}
    # every request carried the ontology in its prompt, and no API key was recorded
    for request in tape.requests:  # type: ignore[attr-defined]
        body = json.loads(request.body)
        assert "WORKS_AT" in body["messages"][0]["content"]
        assert body["response_format"] == {"type": "json_object"}
        assert "authorization" not in {k.lower() for k in request.headers}
    text = (CASSETTES / "llm_curie.yaml").read_text()
    assert FAKE_KEY not in text


async def test_malformed_output_is_retried_once(kg: KnowledgeGraph) -> None:
    """The real model's answer cut at max_tokens is invalid JSON: asked again once, with the error."""
    await _declare(kg)
    kg.llm = ChatModel("openai/local", api_base=API_BASE, api_key=FAKE_KEY, timeout=900, max_attempts=1,
                       max_tokens=48)
    with cassette("llm_malformed") as tape:
        report = await kg.ingest(text=CURIE, document_id="curie", plan=IngestPlan(extractor="llm"))
    requests = [json.loads(r.body) for r in tape.requests]  # type: ignore[attr-defined]
    doc = report.documents[0]
    assert doc.chunks == 1 and report.llm_calls == len(requests) == 2
    first, retry = requests
    assert len(first["messages"]) == 2 and len(retry["messages"]) == 4
    assert retry["messages"][2]["role"] == "assistant"
    assert retry["messages"][3]["content"].startswith("That reply is not valid:")
    answers = [json.loads(r["body"]["string"])["choices"][0]["message"]["content"]
               for r in tape.responses]  # type: ignore[attr-defined]
    assert retry["messages"][2]["content"] == answers[0]
    assert "EOF while parsing" in retry["messages"][3]["content"]  # the real cut answer, named precisely
    # the recorded retry is valid (an empty extraction): the chunk is not listed as malformed
    assert doc.status == "ingested" and "malformed_chunks" not in doc.extra


class _Garbage(ChatModel):
    """Always answers the same invalid JSON (tests only), to reach the give-up path without a server."""

    async def complete(self, messages, *, json_mode=False):  # type: ignore[no-untyped-def,override]
        self.usage.calls += 1
        return '{"entities": [{"name": "Marie Curie", "type": '


async def test_twice_malformed_chunk_yields_nothing_and_the_document_is_kept(kg: KnowledgeGraph) -> None:
    await _declare(kg)
    kg.llm = _Garbage("scripted/garbage")
    report = await kg.ingest(text=CURIE, document_id="curie", plan=IngestPlan(extractor="llm"))
    doc = report.documents[0]
    assert doc.status == "ingested" and doc.extra["malformed_chunks"] == [0] and doc.entities == 0
    assert report.llm_calls == 2 == kg.llm.usage.calls  # one call and one retry, then it gives up


async def test_provider_error_fails_the_document_with_masked_key(kg: KnowledgeGraph) -> None:
    await _declare(kg)
    # Nothing listens on port 9: a connection error, retried with backoff, then the document fails.
    kg.llm = ChatModel("openai/local", api_base="http://127.0.0.1:9/v1", api_key=FAKE_KEY, timeout=5,
                       max_attempts=2, backoff_s=0.01)
    report = await kg.ingest(text=CURIE, document_id="curie", plan=IngestPlan(extractor="llm"))
    doc = report.documents[0]
    assert doc.status == "failed" and doc.reason and "failed 2 times" in doc.reason
    assert FAKE_KEY not in doc.reason and FAKE_KEY not in (report.hint or "")
    assert kg.llm.usage.attempts == 2
    status = await kg.status()
    assert status.documents == 0 and status.chunks == 0  # nothing half-written


@pytest.mark.parametrize("json_mode", [True, False])
async def test_chat_model_masks_key_in_refusals(json_mode: bool) -> None:
    from graphrag_agents.errors import ConfigurationError, GraphRAGError

    chat = ChatModel("no-such-provider/model", api_key=FAKE_KEY, max_attempts=1)
    with pytest.raises(GraphRAGError) as err:
        await chat.complete([{"role": "user", "content": "hi"}], json_mode=json_mode)
    assert FAKE_KEY not in str(err.value)
    assert isinstance(err.value, ConfigurationError | GraphRAGError)
