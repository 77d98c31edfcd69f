"""The key rule (graphrag_agents._keys) at every entry point: whitespace at the ends stripped, control characters
refused with a hint. FalkorDB's range index ignores whitespace at the ends of a key, so before this rule a
document id ``"memo "`` lost its chunks, a second ingest made a second node, and deleting ``"plan"`` deleted
``"plan "``."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_agents._keys import unaccented
from graphrag_agents.errors import ToolError
from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.retrieval.candidates import loose_key
from graphrag_agents.text.words import fold
from graphrag_agents.tools.toolkit import GraphRAGToolkit

_NONE = IngestPlan(extractor="none")


async def _documents(kg) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Stored documents and their chunk counts, read without any index lookup on the id."""
    rows = await kg.store.ro_query("MATCH (d:Document) OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk) "
                                   "RETURN d.id, count(c)")
    return {str(i): int(n) for i, n in rows}


async def test_trailing_whitespace_id_keeps_its_chunks_and_is_one_document(kg) -> None:  # type: ignore[no-untyped-def]
    first = await kg.ingest(text="Alice works at Acme. Bob works at Beta.", document_id="memo ", plan=_NONE)
    assert first.documents[0].document_id == "memo" and first.documents[0].status == "ingested"
    again = await kg.ingest(text="Alice works at Acme. Bob works at Beta.", document_id="memo\n", plan=_NONE)
    assert again.documents[0].status == "unchanged"
    assert await _documents(kg) == {"memo": 1}
    await kg.finalize()
    hits = await kg.retrieve("Where does Alice work?", document_ids=["memo "], paths=["passages"])
    assert hits.passages and {p.document_id for p in hits.passages} == {"memo"}


async def test_delete_of_plan_and_plan_space_are_one_document(kg) -> None:  # type: ignore[no-untyped-def]
    await kg.ingest(text="The plan is to ship in May.", document_id="plan", plan=_NONE)
    second = await kg.ingest(text="The plan is to ship in June.", document_id="plan ", plan=_NONE)
    assert second.documents[0].status == "updated"
    assert await _documents(kg) == {"plan": 1}
    await kg.ingest(text="Another note entirely.", document_id="planning", plan=_NONE)
    assert await kg.delete_document(" plan\t") is True
    assert await _documents(kg) == {"planning": 1}


@pytest.mark.parametrize("bad", ["x\x00", "a\x01b", "tab\tinside", "\x00", "ok\ud800"])
async def test_control_characters_in_ids_are_refused_with_a_hint(kg, bad: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ToolError) as err:
        await kg.ingest(text="Some text.", document_id=bad, plan=_NONE)
    assert err.value.hint
    await kg.ingest(text="Some text.", document_id="fine", plan=_NONE)
    with pytest.raises(ToolError):
        await kg.retrieve("text", document_ids=[bad])
    with pytest.raises(ToolError):
        await kg.delete_document(bad)
    with pytest.raises(ToolError):
        await kg.update(text="Other text.", document_id=bad)
    assert await _documents(kg) == {"fine": 1}


async def test_blank_id_is_refused(kg) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ToolError, match="empty"):
        await kg.ingest(text="Some text.", document_id=" \n", plan=_NONE)


async def test_update_takes_the_stripped_id(kg) -> None:  # type: ignore[no-untyped-def]
    await kg.ingest(text="Version one.", document_id="doc", plan=_NONE)
    report = await kg.update(text="Version two.", document_id="doc\n", plan=_NONE)
    assert report.documents[0].status == "updated"
    assert await _documents(kg) == {"doc": 1}


async def test_nul_in_text_is_a_failed_document_not_a_raw_error(kg) -> None:  # type: ignore[no-untyped-def]
    report = await kg.ingest(text="Text with a \x00 NUL.", document_id="nul", plan=_NONE)
    assert report.documents[0].status == "failed" and "NUL" in (report.documents[0].reason or "")
    assert await _documents(kg) == {}


async def test_file_path_with_edge_whitespace_fails_per_file(kg, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    good, odd = tmp_path / "good.txt", tmp_path / "odd.txt "
    good.write_text("A good file.")
    odd.write_text("An odd file.")
    report = await kg.ingest(paths=[odd, good], plan=_NONE)
    statuses = {d.document_id: (d.status, d.reason) for d in report.documents}
    assert statuses[str(good)][0] == "ingested"
    assert statuses[str(odd)][0] == "failed" and "rename" in (statuses[str(odd)][1] or "")


async def test_tools_strip_ids_and_refuse_control_characters(kg) -> None:  # type: ignore[no-untyped-def]
    toolkit = GraphRAGToolkit(kg, finalize_policy="on_write")
    result = await toolkit.call("ingest", {"text": "Alice works at Acme.", "document_id": "memo\n"})
    assert [d.document_id for d in result.documents] == ["memo"]  # type: ignore[attr-defined]
    await toolkit.call("set_ontology", {"entities": [{"label": "Drug\n"}, {"label": " Disease"}],
                                        "relations": [{"label": "TREATS", "patterns": [["Drug", "Disease"]]}]})
    facts = await toolkit.call("add_facts", {
        "text": "Aspirin treats headache.", "document_id": " facts-1 ",
        "entities": [{"name": " Aspirin ", "label": "Drug"}, {"name": "headache\n", "label": "Disease"}],
        "relations": [{"source": "Aspirin", "target": "headache", "type": "TREATS"}]})
    assert facts.document_id == "facts-1"  # type: ignore[attr-defined]
    names = await kg.store.ro_query("MATCH (e:__Entity__) WHERE e.label IN ['Drug', 'Disease'] "
                                    "RETURN e.name ORDER BY e.name")
    assert [n for (n,) in names] == ["Aspirin", "headache"]
    assert set(await _documents(kg)) == {"memo", "facts-1"}
    for args in ({"question": "Acme?", "document_ids": ["x\x00"]}, {"question": "Acme?", "document_ids": [" "]},
                 {"question": "Acme\ud800?"}):
        with pytest.raises(ToolError) as err:
            await toolkit.call("retrieve", args)
        assert err.value.hint
    found = await toolkit.call("retrieve", {"question": "Where does Alice work?", "document_ids": ["memo "]})
    assert found.passages  # type: ignore[attr-defined]
    with pytest.raises(ToolError):
        await toolkit.call("ingest", {"text": "x", "document_id": "a\x00"})


async def test_shells_left_by_an_earlier_version_are_removed_on_upgrade(kg, data_dir: Path,  # type: ignore[no-untyped-def]
                                                                        embedder) -> None:
    from graphrag_agents.kg import KnowledgeGraph

    await kg.ingest(text="Kept text.", document_id="kept", plan=_NONE)
    # What the previous version stored for ingest(document_id="memo "): the document node, none of its chunks.
    await kg.store.query("CREATE (:Document {id: 'memo ', title: 'memo ', content_hash: 'old', path: 'memo '}), "
                         "(:Document {id: '\\tplan', title: 'plan', content_hash: 'old', path: '\\tplan'})")
    async with await KnowledgeGraph.open(graph=kg.name, data_dir=str(data_dir), embedder=embedder) as upgraded:
        report = await upgraded.ingest(text="The memo, ingested again.", document_id="memo", plan=_NONE)
        assert report.documents[0].status == "ingested"
        assert await _documents(upgraded) == {"kept": 1, "memo": 1}


async def test_tenant_and_graph_names_follow_the_rule(data_dir: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    from graphrag_agents.errors import ConfigurationError
    from graphrag_agents.kg import KnowledgeGraph

    toolkit = await GraphRAGToolkit.for_tenant("acme\n", base_graph="keys", data_dir=str(data_dir),
                                               embedder=embedder)
    try:
        assert toolkit.kg.name == "keys__acme"
    finally:
        await toolkit.aclose()
    for bad in ("ac me", "acme\x00", "\n"):
        with pytest.raises(ToolError):
            await GraphRAGToolkit.for_tenant(bad, data_dir=str(data_dir), embedder=embedder)
    async with await KnowledgeGraph.open(graph=" keys_graph\n", data_dir=str(data_dir), embedder=embedder) as kg:
        assert kg.name == "keys_graph"
    with pytest.raises(ConfigurationError):
        await KnowledgeGraph.open(graph="a\x00b", data_dir=str(data_dir), embedder=embedder)


_LONG = "x" * 4097  # FalkorDB's range index keeps 4,096 bytes of a key: a longer one was stored, then never found


@pytest.mark.parametrize("long_id", [_LONG, "é" * 600], ids=["ascii-4097", "utf8-1200-bytes"])
async def test_ids_over_the_key_bound_are_refused_at_every_kg_entry_point(kg, long_id: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ToolError, match="1,024-byte bound") as err:
        await kg.ingest(text="Some text about a long id.", document_id=long_id, plan=_NONE)
    assert "shorter" in err.value.hint
    await kg.ingest(text="Some text.", document_id="fine", plan=_NONE)
    for call in (lambda: kg.update(text="Other text.", document_id=long_id, plan=_NONE),
                 lambda: kg.delete_document(long_id), lambda: kg.retrieve("text", document_ids=[long_id])):
        with pytest.raises(ToolError, match="1,024-byte bound"):
            await call()
    assert await _documents(kg) == {"fine": 1}


async def test_an_id_at_the_bound_is_stored_whole_and_found(kg) -> None:  # type: ignore[no-untyped-def]
    at_bound = "y" * 1024
    first = await kg.ingest(text="Alice works at Acme. Bob works at Beta.", document_id=at_bound, plan=_NONE)
    assert first.documents[0].status == "ingested"
    again = await kg.ingest(text="Alice works at Acme. Bob works at Beta.", document_id=at_bound, plan=_NONE)
    assert again.documents[0].status == "unchanged"
    assert await _documents(kg) == {at_bound: 1}
    assert await kg.delete_document(at_bound) is True and await _documents(kg) == {}


def _deep_file(root: Path) -> str:
    """A file 17 folders deep whose relative path (its document id) is over the key bound."""
    folder = root
    for depth in range(17):
        folder = folder / f"level{depth:02d}-{'f' * 60}"
    folder.mkdir(parents=True)
    (folder / "deep.txt").write_text("The deep file says the vault code is 4417.")
    return str((folder / "deep.txt").relative_to(root))


async def test_a_deep_file_over_the_bound_fails_with_a_hint_in_kg_and_tools(kg, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "root"
    rel = _deep_file(root)
    (root / "near.txt").write_text("A near file.")
    report = await kg.ingest(paths=[root / rel, root / "near.txt"], plan=_NONE)
    deep, near = report.documents
    assert near.status == "ingested"
    assert deep.status == "failed" and "shorter path" in (deep.reason or "")
    update = await kg.update(path=root / rel, plan=_NONE)
    assert update.documents[0].status == "failed" and "shorter path" in (update.documents[0].reason or "")
    toolkit = GraphRAGToolkit(kg, files_root=root)
    result = await toolkit.call("ingest", {"files": ["**/deep.txt"]})
    [status] = result.documents  # type: ignore[attr-defined]
    assert status.status == "failed" and "shorter path" in (status.reason or "")
    assert set(await _documents(kg)) == {str(root / "near.txt")}


async def test_tools_refuse_an_id_over_the_bound_in_bytes(kg) -> None:  # type: ignore[no-untyped-def]
    toolkit = GraphRAGToolkit(kg)
    for tool, args in (("ingest", {"text": "Some text."}), ("add_facts", {"text": "Some text.", "entities": [
            {"name": "Some", "label": "Unknown"}]})):
        with pytest.raises(ToolError, match="1,024-byte bound"):
            await toolkit.call(tool, {**args, "document_id": "😀" * 300})  # 300 characters, 1,200 bytes
    assert not await kg.store.exists()  # refused before anything was written


async def test_an_entity_name_nfkc_stretches_past_the_bound_is_kept_under_a_bounded_key(kg) -> None:  # type: ignore[no-untyped-def]
    toolkit = GraphRAGToolkit(kg)
    await toolkit.call("set_ontology", {"entities": [{"label": "Phrase"}]})
    name = "\ufdfa" * 300  # 900 UTF-8 bytes as written (NFC); its NFKC key, the entity's identity, is 9,900
    await toolkit.call("add_facts", {"text": f"{name} is a phrase.", "document_id": "f1",
                                     "entities": [{"name": name, "label": "Phrase"}]})
    (stored, key), = await kg.store.ro_query("MATCH (e:Phrase) RETURN e.name, e.name_key")
    assert stored == name and "~sha256:" in key


_CAFE_VARIANTS = ["café", "cafe\u0301", "\ufeffcafé", "\u200bcafé\u200d", "\u200fcafé\u200e", "café\u00ad"]


async def test_unicode_variants_of_one_id_are_one_document(kg) -> None:  # type: ignore[no-untyped-def]
    for i, variant in enumerate(_CAFE_VARIANTS):
        report = await kg.ingest(text=f"The café opens at {8 + i}.", document_id=variant, plan=_NONE)
        assert report.documents[0].document_id == "café"
        assert report.documents[0].status == ("ingested" if i == 0 else "updated")
    assert await _documents(kg) == {"café": 1}
    await kg.finalize()
    hits = await kg.retrieve("When does the café open?", document_ids=["cafe\u0301"], paths=["passages"])
    assert hits.passages and "13" in hits.passages[0].text
    assert await kg.delete_document("\ufeffcafe\u0301") is True and await _documents(kg) == {}


async def test_a_graph_with_variant_ids_from_an_earlier_version_is_read_then_upgraded_deleting_none(  # type: ignore[no-untyped-def]
        kg, data_dir: Path, embedder) -> None:
    from graphrag_agents.ingest.records import ChunkRecord, DocumentBatch, DocumentRecord, content_hash
    from graphrag_agents.ingest.writer import write_documents
    from graphrag_agents.kg import KnowledgeGraph

    await kg.ingest(text="Kept text.", document_id="kept", plan=_NONE)
    # What the previous version stored for the NFD and the BOM-prefixed ids: two documents, ids as given.
    for doc_id, text in (("cafe\u0301", "The old café opens at 7."), ("\ufeffcafé", "The café opens at 9.")):
        record = DocumentRecord(doc_id, doc_id, content_hash(text), path=doc_id)
        assert await write_documents(kg.store, [DocumentBatch(record, [ChunkRecord(f"{doc_id}#0", 0, text)])])
    old_memo = "The old memo."
    record = DocumentRecord("memo\u200b", "memo", content_hash(old_memo), path="memo\u200b")
    assert await write_documents(kg.store, [DocumentBatch(record, [ChunkRecord("memo\u200b#0", 0, old_memo)])])
    await kg.ingest(text="The new memo.", document_id="memo", plan=_NONE)  # written after it, canonical already
    await kg.store.query("MATCH (m:__Meta__) REMOVE m.key_rule")
    async with await KnowledgeGraph.open(graph=kg.name, data_dir=str(data_dir), embedder=embedder) as upgraded:
        assert (await upgraded.status()).documents == 5  # readable as it was
        report = await upgraded.finalize()
        # Nothing deleted: one café variant gets the free id, the other and the marked memo keep theirs.
        assert report.rekeyed == 1 and len(report.key_clashes) == 2
        held = {c.stored_id: c.key for c in report.key_clashes}
        assert held["memo\u200b"] == "memo" and set(held.values()) == {"café", "memo"}
        assert set(await _documents(upgraded)) == {"kept", "café", "memo", *held}
        (memo,), = await upgraded.store.ro_query("MATCH (:Document {id: 'memo'})-[:HAS_CHUNK]->(c) RETURN c.text")
        assert memo == "The new memo."
        for doc_id in ("café", *held):
            hits = await upgraded.retrieve("When does the café open?", document_ids=[doc_id], paths=["passages"])
            assert {p.document_id for p in hits.passages} == {doc_id}
        again = await upgraded.finalize()
        assert again.rekeyed == 0 and again.key_clashes == report.key_clashes


async def test_an_empty_id_is_refused_not_derived(kg) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ToolError, match="empty"):
        await kg.ingest(text="Some text.", document_id="", plan=_NONE)
    assert not await kg.store.exists()


@pytest.mark.parametrize(("label", "cleaned"), [("Dr|ug", "Dr ug"), ("Medical\ndevice", "Medical device"),
                                                ("Supplier\x01Company", "Supplier Company")])
async def test_a_label_refusal_shows_the_cleaned_value(kg, label: str, cleaned: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ToolError) as err:
        await kg.set_ontology(entities=[{"label": label}])
    assert err.value.hint == f"Pass {cleaned!r} instead."
    await kg.set_ontology(entities=[{"label": cleaned}])


@pytest.mark.parametrize("kind", ["folder", "dangling symlink"])
async def test_an_unusable_lock_path_names_the_path_and_the_fix(kg, data_dir: Path, kind: str) -> None:  # type: ignore[no-untyped-def]
    from graphrag_agents.errors import StoreUnavailable

    lock = data_dir / f"write.{kg.name}.lock"
    if kind == "folder":
        lock.mkdir()
    else:
        lock.symlink_to(data_dir / "gone" / "nowhere")
    try:
        with pytest.raises(StoreUnavailable) as err:
            await kg.ingest(text="Some text.", document_id="doc", plan=_NONE)
        assert str(lock) in str(err.value) and "Fix: remove it" in str(err.value)
        assert ("a folder" if kind == "folder" else "does not exist") in str(err.value)
    finally:
        lock.rmdir() if kind == "folder" else lock.unlink()
    assert (await kg.ingest(text="Some text.", document_id="doc", plan=_NONE)).documents[0].status == "ingested"


def test_unaccented_drops_the_accents_the_retrieval_title_match_and_the_citation_check_both_ignore() -> None:
    assert unaccented("Aschenbrödel") == "Aschenbrodel"
    assert unaccented("Tekezé, Zürich") == "Tekeze, Zurich"
    assert unaccented("plain ASCII") == "plain ASCII"
    assert loose_key("aschenbrödel") == loose_key("aschenbrodel")
    assert fold("ZÜRICH") == "zurich"
