"""Fuzz every tool through ``toolkit.call`` with hostile arguments (hypothesis, bounded to well under a minute).

Three properties: a call either returns a result or raises :class:`ToolError` (never a raw driver error, a
pydantic error or an IndexError); every document a result reports as written is stored, once, with its chunks;
and the embedded server never crashed meanwhile (its pid is unchanged).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphrag_agents._keys import MAX_KEY_BYTES, canonical_key
from graphrag_agents.errors import ToolError
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit
from graphrag_agents.tools.write import AddFactsResult, IngestResult

_WRITTEN = {"ingested", "updated", "reextracted", "unchanged"}
_NASTY = ["", " ", "\n", "\x00", "\x01", "\t", "\r\n", "\u2028", "\ud800", "\ufeff", "'", '"', "`", "\\", "$x",
          "})-[r]-({", "MATCH (n) DETACH DELETE n", "..", "../", "/etc/passwd", "file:", "*", "**/*", "[", "é",
          "__Entity__", "Chunk", "Unknown", "a|b", "a:b", "x" * 600]

_words = st.sampled_from(["Alice", "Acme", "works", "at", "Bob", "Beta", "memo", "plan", "Drug", "TREATS", "notes",
                          "b.txt", "a_empty.txt", "linked.txt", "*.txt"])
_hostile_text = st.one_of(
    st.sampled_from(_NASTY),
    st.text(max_size=40),
    st.builds(lambda a, b, c: a + b + c, st.sampled_from(_NASTY), _words, st.sampled_from(_NASTY)),
    st.lists(_words, min_size=1, max_size=8).map(" ".join),
)
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**12), st.floats(allow_nan=True), _hostile_text)
_json = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(_hostile_text, inner, max_size=4)),
                     max_leaves=12)

_entity = st.fixed_dictionaries({"name": st.one_of(_words, _hostile_text), "label": st.one_of(
    st.sampled_from(["Person", "Company", "Drug\n", " Person "]), _hostile_text)})
_FIELDS: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    "retrieve": {"question": st.one_of(_words, _hostile_text), "document_ids": st.lists(_hostile_text, max_size=3),
                 "top_k": st.integers(-1, 60), "expand_hops": st.integers(0, 6), "min_score": _scalars,
                 "paths": st.lists(st.sampled_from(["facts", "links", "passages", "bogus"]), max_size=3)},
    "check_citations": {"answer": st.one_of(_hostile_text, st.just("Alice works at Acme [1]. Bob [2-9999999]."))},
    "ingest": {"text": st.one_of(st.lists(_words, min_size=3, max_size=12).map(" ".join), _hostile_text),
               "document_id": _hostile_text, "title": _hostile_text, "reextract": st.booleans(),
               "files": st.lists(st.one_of(_words, _hostile_text), max_size=3),
               "plan": st.lists(st.dictionaries(st.sampled_from(["match", "chunker", "extractor", "bogus"]),
                                                _hostile_text, max_size=3), max_size=2)},
    "add_facts": {"text": st.one_of(st.just("Alice works at Acme."), _hostile_text), "document_id": _hostile_text,
                  "entities": st.lists(_entity, max_size=3),
                  "relations": st.lists(st.fixed_dictionaries({"source": _words, "target": _words,
                                                               "type": st.sampled_from(["WORKS_AT", "x\x00"])}),
                                        max_size=2)},
    "set_ontology": {"entities": st.lists(st.fixed_dictionaries({"label": _hostile_text}), max_size=2),
                     "relations": st.lists(st.fixed_dictionaries({"label": _hostile_text}), max_size=2)},
    "preview_files": {"files": st.lists(st.one_of(_words, _hostile_text), max_size=3), "offset": _scalars,
                      "sample_chars": st.integers(0, 20000)},
}


_edge = st.sampled_from(["", "", " ", "\n", "\t", "\r\n", "\x00", "\x01", "\u00a0", "\ud800", "\ufeff",
                         # invisible marks strip() keeps: zero-width, bidi, word joiner, soft hyphen
                         "\u200b", "\u200d", "\u200e", "\u200f", "\u202e", "\u2060", "\u00ad", "\u200f\ufeff"])
# One key in several Unicode spellings (NFC, NFD, full-width), and keys at and over the 1,024-byte key bound.
_variants = st.sampled_from(["café", "cafe\u0301", "ｃａｆé", "Ｍemo", "memo", "ﬁle", "file"])
_long = st.sampled_from(["k" * 1024, "k" * 1025, "é" * 512, "é" * 513, "😀" * 256, "😀" * 257, "x" * 4097])
_decorated = st.one_of(st.builds(lambda a, w, b: a + w + b, _edge, st.one_of(_words, _variants), _edge),
                       _long)
_sentence = st.lists(_words, min_size=3, max_size=10).map(lambda ws: " ".join(ws) + ".")
_PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "retrieve": st.fixed_dictionaries({"question": st.one_of(_sentence, _decorated),
                                       "document_ids": st.lists(_decorated, min_size=1, max_size=3)},
                                      optional={"top_k": st.integers(1, 5)}),
    "ingest": st.one_of(
        st.fixed_dictionaries({"text": _sentence, "document_id": _decorated}),
        st.fixed_dictionaries({"text": st.one_of(_sentence, st.builds(lambda a, t: a + t, _edge, _sentence))},
                              optional={"document_id": _decorated, "title": _decorated,
                                        "reextract": st.booleans()}),
        st.fixed_dictionaries({"files": st.lists(st.one_of(_decorated, st.sampled_from(
            ["b.txt", "a_empty.txt", "linked.txt", "escape.txt", "*.txt", "a_empty.txt\n"])), min_size=1,
            max_size=3)})),
    "add_facts": st.fixed_dictionaries(
        {"text": st.just("Aspirin treats headache. Alice takes Aspirin."),
         "entities": st.lists(st.fixed_dictionaries({"name": st.one_of(st.builds(
             lambda a, w, b: a + w + b, _edge, st.sampled_from(["Aspirin", "headache", "Alice"]), _edge)),
             "label": st.builds(lambda a, w, b: a + w + b, _edge, st.sampled_from(["Drug", "Disease"]), _edge)}),
             min_size=1, max_size=3)},
        optional={"document_id": _decorated,
                  "relations": st.just([{"source": "Aspirin", "target": "headache", "type": "TREATS"}])}),
    "set_ontology": st.just({"entities": [{"label": "Drug"}, {"label": "Disease"}],
                             "relations": [{"label": "TREATS", "patterns": [["Drug", "Disease"]]}]}),
}


def _args(tool: str) -> st.SearchStrategy[Any]:
    fields = _FIELDS.get(tool, {})
    wild = st.fixed_dictionaries({}, optional={**fields, "bogus": _json}) if fields else st.dictionaries(
        _hostile_text, _json, max_size=2)
    options = [wild, st.none(), st.dictionaries(_hostile_text, _json, max_size=3), _json]  # _json: not an object
    if tool in _PLAUSIBLE:  # mostly well-formed calls, so writes happen and the stored state is checked
        options = [_PLAUSIBLE[tool]] * 3 + options
    return st.one_of(options)


def _root(tmp: Path) -> Path:
    outside = tmp / "outside.txt"
    outside.write_text("secret outside the root")
    root = tmp / "files"
    root.mkdir()
    (root / "b.txt").write_text("Bob works at Beta. Alice works at Acme.")
    (root / "a_empty.txt").write_text("")
    os.link(outside, root / "linked.txt")
    os.symlink(outside, root / "escape.txt")
    return root


async def _reported_written(kg: KnowledgeGraph, result: Any) -> None:
    docs: list[Any] = []
    if isinstance(result, IngestResult):
        docs = list(result.documents)
    elif isinstance(result, AddFactsResult):
        docs = [result]
    for doc in docs:
        if doc.status not in _WRITTEN:
            continue
        rows = await kg.store.ro_query("MATCH (d:Document) WHERE d.id = $id OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c) "
                                       "RETURN d.id, count(c)", {"id": doc.document_id})
        exact = [(i, n) for i, n in rows if i == doc.document_id]
        assert len(exact) == 1 and exact[0][1] >= 1, (doc.document_id, doc.status, rows)


def test_every_tool_survives_hostile_arguments(data_dir: Path, embedder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    loop = asyncio.new_event_loop()
    kg = loop.run_until_complete(KnowledgeGraph.open(graph=f"fuzz_{uuid.uuid4().hex[:10]}", data_dir=str(data_dir),
                                                     embedder=embedder))
    toolkit = GraphRAGToolkit(kg, files_root=_root(tmp_path), finalize_policy="manual")
    loop.run_until_complete(toolkit.call("ingest", {"text": "Alice works at Acme.", "document_id": "seed"}))
    names = sorted(spec.name for spec in toolkit.tool_specs())
    assert {"retrieve", "ingest", "add_facts", "set_ontology", "preview_files", "finalize"} <= set(names)

    weighted = names + ["ingest"] * 4 + ["add_facts"] * 2 + ["retrieve"] * 2  # the tools that write or filter

    @settings(max_examples=200, deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(call=st.sampled_from(weighted).flatmap(lambda name: st.tuples(st.just(name), _args(name))))
    def run(call: tuple[str, Any]) -> None:
        name, args = call

        async def one() -> None:
            try:
                result = await toolkit.call(name, args)
            except ToolError as exc:
                assert exc.hint or exc.message, (name, args)
                return
            await _reported_written(kg, result)

        loop.run_until_complete(one())

    server = kg.store._client.server
    pid = server.pid if server is not None else None
    try:
        run()
        assert server is None or server.pid == pid, "the embedded server crashed (and was restarted) during the fuzz"
        ids = [str(i) for (i,) in loop.run_until_complete(kg.store.ro_query("MATCH (d:Document) RETURN d.id"))]
        assert len({canonical_key(i) for i in ids}) == len(ids), f"one key stored twice: {sorted(ids)}"
        assert all(len(i.encode()) <= MAX_KEY_BYTES + 5 for i in ids), "a key over the bound was stored"
    finally:
        loop.run_until_complete(kg.store.delete())
        loop.run_until_complete(kg.close())
        loop.close()
