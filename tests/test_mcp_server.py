"""The MCP server in memory (``mcp.Client`` on the server object): tools, results, sessions, errors, limits.

Also holds the graph builders the other ``test_mcp_*`` files import.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pytest
from mcp import Client
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict

from graphrag_agents.adapters.mcp import RESULT_META_KEY, STRUCTURED_TOOLS, GraphRAGMCPServer
from graphrag_agents.errors import ConfigurationError, StoreUnavailable
from graphrag_agents.ingest.records import (
    ChunkRecord,
    DocumentBatch,
    DocumentRecord,
    EntityRecord,
    RelationRecord,
    entity_id,
)
from graphrag_agents.ingest.writer import write_document
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.models.embedder import l2_normalise
from graphrag_agents.models.litellm_embedder import EmbeddingProviderError
from graphrag_agents.tools.results import ToolResult
from graphrag_agents.tools.spec import ToolAnnotations, ToolSpec
from graphrag_agents.tools.toolkit import READ_TOOLS, GraphRAGToolkit

QUESTION = "Where does Alice Smith work?"
ALL_HINTS = {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}


async def acme_graph(kg: KnowledgeGraph, extra_chunks: int = 0, chunk_chars: int = 2000) -> None:
    """One document about Alice and Acme, plus ``extra_chunks`` long chunks (for results over the size limit)."""
    await kg.ensure_schema()
    text = "Alice Smith works at Acme Corp in Berlin. Acme Corp was founded in 1999."
    chunks = [ChunkRecord(id="acme#0", index=0, text=text)]
    for i in range(1, extra_chunks + 1):
        filler = f"Report {i} on where Alice Smith works and what Acme Corp does in Berlin. "
        chunks.append(ChunkRecord(id=f"acme#{i}", index=i, text=(filler * 40)[:chunk_chars]))
    alice, acme = entity_id("Person", "Alice Smith"), entity_id("Company", "Acme Corp")
    batch = DocumentBatch(
        DocumentRecord(id="file:notes/acme.md", title="Acme", content_hash="h", loader="markdown",
                       path="file:notes/acme.md"),
        chunks,
        [EntityRecord(alice, "Person", "Alice Smith", "An engineer", ["acme#0"]),
         EntityRecord(acme, "Company", "Acme Corp", "A company in Berlin", ["acme#0"])],
        [RelationRecord(alice, acme, "WORKS_AT", "Alice Smith works at Acme Corp in Berlin.", "acme#0")],
    )
    await write_document(kg.store, batch)
    await kg.finalize()


class HashEmbedder:
    """A fast bag-of-words embedder for tests that need many long chunks (MiniLM takes ~0.4 s per chunk here)."""

    model_name = "test-hash-bow"
    dimension = 64

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                rows[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dimension] += 1.0
        return l2_normalise(rows)

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self.embed(texts)


@pytest.fixture
async def fast_kg(data_dir: Path) -> AsyncIterator[KnowledgeGraph]:
    """Like ``kg``, with :class:`HashEmbedder`."""
    graph = await KnowledgeGraph.open(graph=f"t_{uuid.uuid4().hex[:12]}", data_dir=str(data_dir),
                                      embedder=HashEmbedder())
    try:
        yield graph
    finally:
        await graph.store.delete()
        await graph.close()


def data_of(result: CallToolResult) -> dict[str, Any]:
    """The typed result of a call: its structuredContent, or for the large results (retrieve, ingest, ...) the
    copy in ``_meta`` (see ``STRUCTURED_TOOLS``)."""
    if result.structured_content is not None:
        return dict(result.structured_content)
    assert result.meta and RESULT_META_KEY in result.meta, result
    return dict(result.meta[RESULT_META_KEY])


def first_number(found: CallToolResult | dict[str, Any]) -> int:
    """The first evidence number a retrieve result issued."""
    structured = data_of(found) if isinstance(found, CallToolResult) else found
    numbers = [int(item["n"]) for key in ("passages", "facts", "relations", "entities")
               for item in structured.get(key) or []]
    assert numbers, f"no evidence in {structured}"
    return min(numbers)


def text_of(result: CallToolResult) -> str:
    """The text block of a tool result."""
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def cite(client: Client, n: int) -> dict[str, Any]:
    """check_citations of one sentence citing ``n``."""
    result = await client.call_tool("check_citations", {"answer": f"Alice Smith works at Acme Corp [{n}]."})
    assert not result.is_error, text_of(result)
    return dict(result.structured_content)


# -- fake write tools (the real ones are being written) -----------------------------------------------------

class _TextInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str


class _WriteResult(ToolResult):
    written: int = 0


def fake_write_specs(*_: Any) -> list[ToolSpec]:
    """Write tools declared non-destructive on purpose: the server must still mark them destructive."""
    additive = ToolAnnotations(read_only=False, destructive=False, idempotent=False, open_world=True)

    async def handler(args: Any) -> ToolResult:
        return _WriteResult(written=1)

    return [ToolSpec(name, f"fake {name}", _TextInput, _WriteResult, additive, handler)
            for name in ("set_ontology", "ingest", "finalize")]


# -- listing ------------------------------------------------------------------------------------------------

async def test_lists_every_tool_with_schema_and_all_four_annotations(kg: KnowledgeGraph) -> None:
    server = GraphRAGMCPServer(kg, read_only=True)
    specs = {s.name: s for s in server.toolkit.tool_specs()}
    async with Client(server.server) as client:
        tools = (await client.list_tools()).tools
    assert [t.name for t in tools] == list(READ_TOOLS)
    for tool in tools:
        assert tool.annotations is not None
        hints = tool.annotations.model_dump(by_alias=True, exclude_none=True)
        assert set(hints) >= ALL_HINTS, tool.name
        assert hints["readOnlyHint"] is True and hints["destructiveHint"] is False
        assert tool.input_schema == specs[tool.name].input_schema
        assert tool.input_schema["additionalProperties"] is False
        if tool.name in STRUCTURED_TOOLS:
            assert tool.output_schema and "truncated" in tool.output_schema["properties"]
        else:  # its typed result travels in _meta, so clients give the model the text
            assert tool.output_schema is None


async def test_write_tools_are_destructive_and_instructions_follow_the_tools(
        kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("graphrag_agents.tools.toolkit.write_specs", fake_write_specs)
    writer = GraphRAGMCPServer(kg)
    async with Client(writer.server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        instructions = client.instructions or ""
        written = await client.call_tool("ingest", {"text": "Alice works at Acme."})
    for name in ("set_ontology", "ingest", "finalize"):
        hints = tools[name].annotations
        assert hints is not None and hints.read_only_hint is False and hints.destructive_hint is True
    assert data_of(written)["written"] == 1
    assert "`set_ontology`" in instructions and "`finalize`" in instructions and "ask the user" in instructions
    assert "`retrieve` first with the user's question word for word" in instructions
    assert "`check_citations`" in instructions

    reader = GraphRAGMCPServer(kg, read_only=True)
    assert "set_ontology" not in reader.instructions and "ingest" not in reader.instructions
    async with Client(reader.server) as client:
        assert {t.name for t in (await client.list_tools()).tools} == set(READ_TOOLS)
        refused = await client.call_tool("ingest", {"text": "Alice works at Acme."})
    assert refused.is_error and "read-only" in text_of(refused) and "Hint:" in text_of(refused)

    narrow = GraphRAGMCPServer(kg, include=["retrieve", "check_citations"])
    assert "get_ontology" not in narrow.instructions and "ingest" not in narrow.instructions


async def test_the_real_write_tools_build_a_graph_over_mcp(kg: KnowledgeGraph, tmp_path: Path) -> None:
    from jsonschema import Draft202012Validator

    corpus = tmp_path / "corpus"
    (corpus / "notes").mkdir(parents=True)
    (corpus / "notes" / "acme.md").write_text("# Acme\n\nAlice Smith works at Acme Corp in Berlin.\n")
    (corpus / "notes" / "globex.md").write_text("# Globex\n\nGlobex was founded in 1989 in Springfield.\n")
    # structured="all": every tool declares its output schema and every result below is checked against it
    server = GraphRAGMCPServer(kg, files_root=str(corpus), structured="all")
    async with Client(server.server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {*READ_TOOLS, "preview_files", "set_ontology", "ingest", "finalize", "add_facts"}
        for tool in tools.values():
            assert tool.annotations is not None
            assert set(tool.annotations.model_dump(by_alias=True, exclude_none=True)) >= ALL_HINTS
            assert tool.output_schema is not None
            Draft202012Validator.check_schema(tool.output_schema)
            writes = not tool.annotations.read_only_hint
            assert tool.annotations.destructive_hint is writes, tool.name
        for step in ("`preview_files`", "`set_ontology`", "`files`", "`finalize`", "`add_facts`", "pruned"):
            assert step in (client.instructions or ""), step

        # Every structured result below is also checked by the client against the tool's output schema.
        preview = await client.call_tool("preview_files", {})
        assert not preview.is_error, text_of(preview)
        ingested = await client.call_tool("ingest", {"files": ["notes/*.md"],
                                                     "plan": [{"match": "*", "extractor": "none"}]})
        assert not ingested.is_error, text_of(ingested)
        assert {d["status"] for d in data_of(ingested)["documents"]} == {"ingested"}
        finalized = await client.call_tool("finalize", {})
        assert not finalized.is_error, text_of(finalized)
        found = await client.call_tool("retrieve", {"question": QUESTION, "paths": ["passages"]})
        assert (await cite(client, first_number(found)))["grounded"]


def test_toolkit_options_go_with_a_graph_not_a_toolkit() -> None:
    toolkit = object.__new__(GraphRAGToolkit)
    with pytest.raises(ValueError, match="read_only"):
        GraphRAGMCPServer(toolkit, read_only=True)
    with pytest.raises(TypeError, match="GraphRAGToolkit or a KnowledgeGraph"):
        GraphRAGMCPServer("graph")  # type: ignore[arg-type]


# -- results and sessions -----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_retrieve_then_check_citations_in_one_connection(kg: KnowledgeGraph, mode: str) -> None:
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True)
    async with Client(server.server, mode=mode) as client:
        found = await client.call_tool("retrieve", {"question": QUESTION})
        assert not found.is_error
        n = first_number(found)
        text = text_of(found)
        assert f"[{n}]" in text and text.startswith("retrieve:"), "the text block is to_llm_text()"
        assert "truncated" not in data_of(found)
        check = await cite(client, n)
    assert check["grounded"] and check["cited"] == [n] and check["invalid"] == []
    # each sentence's verdict and the span of its evidence behind it travel in structuredContent
    (claim,) = check["claims"]
    assert claim["verdict"] == "verified" and claim["cited"] == [n]
    span = claim["support"][0]
    content = next(s["content"] for s in check["sources"] if s["n"] == span["n"])
    assert "Alice Smith works at Acme Corp" in content[span["start"]:span["end"]]


async def test_two_concurrent_clients_have_independent_numbering(kg: KnowledgeGraph) -> None:
    await acme_graph(kg)
    server = GraphRAGMCPServer(kg, read_only=True)
    async with Client(server.server) as a, Client(server.server) as b:
        status_a, status_b = await asyncio.gather(a.call_tool("status", {}), b.call_tool("status", {}))
        assert status_a.structured_content["n"] == 1 and status_b.structured_content["n"] == 1
        found_a = await a.call_tool("retrieve", {"question": QUESTION})
        n_a = first_number(found_a)
        assert n_a == 2
        assert (await cite(a, n_a))["grounded"]
        check_b = await cite(b, n_a)
    assert check_b["invalid"] == [n_a] and not check_b["grounded"], "b never saw a's number"


async def test_bad_arguments_and_unknown_tools_are_error_results_with_hints(kg: KnowledgeGraph) -> None:
    server = GraphRAGMCPServer(kg, read_only=True)
    async with Client(server.server) as client:
        for name, args in (("retrieve", {"question": "ok", "top_k": 0}), ("retrieve", {"surprise": 1}),
                           ("retrieve", {"question": "x" * 2001}), ("nope", {})):
            result = await client.call_tool(name, args)
            assert result.is_error and result.structured_content is None
            assert "Hint:" in text_of(result), text_of(result)
        missing = await client.call_tool("status", {})
    assert missing.is_error and kg.name in text_of(missing) and "Ingest documents" in text_of(missing)


@pytest.mark.parametrize("structured", ["auto", "all"])
async def test_a_huge_result_is_truncated_to_valid_json_and_cut_evidence_is_dropped(
        fast_kg: KnowledgeGraph, structured: Literal["auto", "all"]) -> None:
    await acme_graph(fast_kg, extra_chunks=40)
    server = GraphRAGMCPServer(fast_kg, read_only=True, structured=structured)
    whole = await server.toolkit.new_session().retrieve(QUESTION, paths=["passages"], top_k=40)
    assert len(whole.model_dump_json()) > 60_000, "the test needs a result well over the limit"
    async with Client(server.server) as client:
        found = await client.call_tool("retrieve", {"question": QUESTION, "paths": ["passages"], "top_k": 40})
        assert not found.is_error  # with "all", the client also validated it against the advertised output schema
        assert (found.structured_content is None) == (structured == "auto")
        data = data_of(found)
        wire = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        assert len(wire) <= 40_000 and json.loads(wire) == data
        assert data["truncated"] is True and "passages" in data["hint"] and "cannot be cited" in data["hint"]
        kept = [p["n"] for p in data["passages"]]
        assert 0 < len(kept) < len(whole.passages)
        cut = next(p.n for p in whole.passages if p.n not in kept)
        assert "shortened" in text_of(found) and "passages" in text_of(found)
        assert (await cite(client, kept[0]))["grounded"]
        assert (await cite(client, cut))["invalid"] == [cut], "evidence cut from the reply cannot be cited"


# -- failures -------------------------------------------------------------------------------------------------

def _raise(exc: BaseException) -> Any:
    async def fail(*args: Any, **kwargs: Any) -> Any:
        raise exc

    return fail


@pytest.mark.parametrize(("exc", "kind"), [
    (ConnectionError("Error connecting to redis://admin:hunter2@db:6379 with sk-abcdefghijklmnopqrstuv"),
     "database"),
    (StoreUnavailable("FalkorDB at redis://admin:hunter2@db:6379 is down"), "database"),
    (ConfigurationError("bad model; api_key=sk-abcdefghijklmnopqrstuv"), "configuration"),
    (TimeoutError("read timed out"), "timeout"),
    (EmbeddingProviderError("rate limited; key sk-abcdefghijklmnopqrstuv"), "model provider"),
    (RuntimeError("Task got Future attached to a different loop"), "configuration"),
    (RuntimeError("boom sk-abcdefghijklmnopqrstuv"), "internal"),
])
async def test_other_failures_name_their_kind_and_keep_details_in_the_log(
        kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        exc: Exception, kind: str) -> None:
    monkeypatch.setattr(kg, "retrieve", _raise(exc))
    server = GraphRAGMCPServer(kg, read_only=True)
    with caplog.at_level(logging.ERROR, logger="graphrag_agents.mcp"):
        async with Client(server.server) as client:
            result = await client.call_tool("retrieve", {"question": QUESTION})
    text = text_of(result)
    assert result.is_error and f"kind: {kind}" in text and "Hint:" in text
    assert str(exc) not in text, "the underlying message stays in the server log"
    reference = text.split("reference ")[1].split(")")[0]
    assert reference in caplog.text and type(exc).__name__ in caplog.text
    assert "hunter2" not in caplog.text and "sk-abcdefghijklmnop" not in caplog.text


async def test_a_call_over_the_timeout_ends_as_a_timeout_error(kg: KnowledgeGraph,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(30)

    monkeypatch.setattr(kg, "retrieve", slow)
    server = GraphRAGMCPServer(kg, read_only=True, call_timeout=0.2)
    async with Client(server.server) as client:
        result = await asyncio.wait_for(client.call_tool("retrieve", {"question": QUESTION}), 10)
    text = text_of(result)
    assert result.is_error and "longer than 0.2 s" in text and "kind: timeout" in text


async def test_tokens_are_masked_in_tool_errors(kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    from graphrag_agents.errors import ToolError

    monkeypatch.setattr(kg, "retrieve", _raise(ToolError("Rejected Bearer abcdef123456 and my-server-token-xyz",
                                                         "retry")))
    server = GraphRAGMCPServer(kg, read_only=True, token="my-server-token-xyz")
    async with Client(server.server) as client:
        text = text_of(await client.call_tool("retrieve", {"question": QUESTION}))
    assert "abcdef123456" not in text and "my-server-token-xyz" not in text and "Hint: retry" in text
