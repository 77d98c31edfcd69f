"""One key rule for every document id (``graphrag_agents._keys``, rule 3): NFC and the invisible edge marks fold,
compatibility forms (NFKC) are distinct ids, a file's id is its path in NFC, and every lookup (ingest, update,
delete, the ``document_ids`` filter, the tools, file ids) applies the same rule, so an id finds its document and
only it. Upgrades from the rules before (1: ids stripped only; 2: ids NFKC-folded when written) delete nothing."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from graphrag_agents.errors import ToolError
from graphrag_agents.ingest.key_upgrade import KeyClash
from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.ingest.records import ChunkRecord, DocumentBatch, DocumentRecord, content_hash
from graphrag_agents.ingest.writer import write_documents
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import GraphRAGToolkit

_NONE = IngestPlan(extractor="none")

# Each pair is one id under NFKC (the rule written by 75f0126) and two under NFC.
_PAIRS = [("x²", "x2"), ("Ⅸ", "IX"), ("H₂O", "H2O"), ("½", "1⁄2"), ("ｃａｆé", "café"), ("step ①", "step 1"),
          ("ﬁnance", "finance"), ("10 ㎏", "10 kg"), ("a\u00a0b", "a b")]


async def _texts(kg: KnowledgeGraph) -> dict[str, str]:
    """Each stored document's id and text, read without any lookup on the id."""
    rows = await kg.store.ro_query("MATCH (d:Document) OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk) "
                                   "WITH d, c ORDER BY c.index RETURN d.id, collect(c.text)")
    return {str(i): " ".join(texts) for i, texts in rows}


async def _read(kg: KnowledgeGraph, doc_id: str) -> set[str]:
    """The documents the passages of a search filtered on ``doc_id`` come from."""
    hits = await kg.retrieve("What does the note say?", document_ids=[doc_id], paths=["passages"])
    return {p.document_id for p in hits.passages}


async def _write_as_before(kg: KnowledgeGraph, rule: int | None, docs: list[tuple[str, str, str | None]]) -> None:
    """Store ``(id, text, file path or None)`` documents as an earlier version did: ids as given, no ``key_rule``
    on the documents, and the graph's ``key_rule`` (none before 75f0126, 2 at 75f0126)."""
    await kg.ensure_schema()
    for doc_id, text, path in docs:
        record = DocumentRecord(doc_id, doc_id if path is None else Path(path).stem, content_hash(text),
                                loader=None if path is None else "markdown", path=path or doc_id,
                                metadata={"from_file": path is not None})
        assert await write_documents(kg.store, [DocumentBatch(record, [ChunkRecord(f"{doc_id}#0", 0, text)])])
    await kg.store.query("MATCH (d:Document) REMOVE d.key_rule")
    if rule is None:
        await kg.store.query("MATCH (m:__Meta__) REMOVE m.key_rule")
    else:
        await kg.store.query("MATCH (m:__Meta__) SET m.key_rule = $r", {"r": rule})


async def test_compatibility_forms_are_distinct_ids_at_every_kg_entry_point(kg: KnowledgeGraph) -> None:
    for a, b in _PAIRS:
        for doc_id in (a, b):
            report = await kg.ingest(text=f"The note {doc_id} says {len(doc_id)}.", document_id=doc_id, plan=_NONE)
            assert (report.documents[0].document_id, report.documents[0].status) == (doc_id, "ingested")
    # Canonical equivalence folds: the Kelvin sign is "K" under NFC, one id.
    await kg.ingest(text="The note says 5 kelvin.", document_id="5 \u212a", plan=_NONE)
    kelvin = await kg.ingest(text="The note says five kelvin.", document_id="5 K", plan=_NONE)
    assert (kelvin.documents[0].document_id, kelvin.documents[0].status) == ("5 K", "updated")
    texts = await _texts(kg)
    assert len(texts) == 2 * len(_PAIRS) + 1
    updated = await kg.update(text="The note x² says it was replaced.", document_id="x²", plan=_NONE)
    assert updated.documents[0].status == "updated"
    assert (await _texts(kg))["x2"] == "The note x2 says 2."
    assert (await kg.update(text="Absent.", document_id="Ⅹ", plan=_NONE)).documents[0].status == "failed"
    await kg.finalize()
    for a, b in _PAIRS:
        assert await _read(kg, a) == {a} and await _read(kg, b) == {b}
    for a, _ in _PAIRS:
        assert await kg.delete_document(a) is True
    assert set(await _texts(kg)) == {b for _, b in _PAIRS} | {"5 K"}


def _nfd_nfc_pair(root: Path) -> tuple[Path, Path]:
    nfd, nfc = root / "cafe\u0301.md", root / "café.md"
    nfc.write_text("# Composed\n\nThe composed café opens at 8.\n")
    nfd.write_text("# Decomposed\n\nThe decomposed café opens at 9.\n")
    return nfd, nfc


async def test_a_file_named_in_nfd_and_one_in_nfc_are_one_id_and_the_later_is_refused(kg: KnowledgeGraph,
                                                                                     tmp_path: Path) -> None:
    nfd, nfc = _nfd_nfc_pair(tmp_path)
    both = await kg.ingest(paths=[nfc, nfd], plan=_NONE)
    assert [d.status for d in both.documents] == ["ingested", "failed"]
    assert both.documents[0].document_id == str(nfc)
    assert "NFC" in (both.documents[1].reason or "") and "rename" in (both.documents[1].reason or "")
    later = await kg.ingest(paths=[nfd], plan=_NONE)  # another call: refused, not "updated"
    assert later.documents[0].status == "failed"
    assert str(nfc) in (later.documents[0].reason or "") and "rename" in (later.documents[0].reason or "")
    assert (await kg.update(path=nfd, plan=_NONE)).documents[0].status == "failed"
    assert (await kg.ingest(paths=[nfc], plan=_NONE)).documents[0].status == "unchanged"
    lig, plain = tmp_path / "ﬁnance.md", tmp_path / "finance.md"
    lig.write_text("The ligature note says revenue rose.\n")
    plain.write_text("The plain note says revenue fell.\n")
    assert [d.status for d in (await kg.ingest(paths=[lig, plain], plan=_NONE)).documents] == ["ingested"] * 2
    assert set(await _texts(kg)) == {str(nfc), str(lig), str(plain)}
    assert "composed" in (await _texts(kg))[str(nfc)]
    await kg.finalize()
    assert await _read(kg, str(lig)) == {str(lig)} and await _read(kg, str(plain)) == {str(plain)}
    assert await kg.delete_document(str(lig)) is True
    assert set(await _texts(kg)) == {str(nfc), str(plain)}


async def test_the_tools_key_files_and_texts_by_the_same_rule(kg: KnowledgeGraph, tmp_path: Path) -> None:
    nfd, nfc = _nfd_nfc_pair(tmp_path)
    (tmp_path / "ﬁnance.md").write_text("The ligature note says revenue rose.\n")
    (tmp_path / "finance.md").write_text("The plain note says revenue fell.\n")
    toolkit = GraphRAGToolkit(kg, files_root=tmp_path, finalize_policy="on_write")
    result = await toolkit.call("ingest", {"files": ["*.md"], "plan": [{"extractor": "none"}]})
    statuses = {d.path: d.status for d in result.documents}  # type: ignore[attr-defined]
    assert statuses["ﬁnance.md"] == statuses["finance.md"] == "ingested"
    assert sorted(statuses[p.name] for p in (nfd, nfc)) == ["failed", "ingested"]
    for text, doc_id in (("The x squared note.", "x²"), ("The x two note.", "x2")):
        written = await toolkit.call("ingest", {"text": text, "document_id": doc_id})
        assert [(d.document_id, d.status) for d in written.documents] == [(doc_id, "ingested")]  # type: ignore[attr-defined]
    facts = await toolkit.call("add_facts", {"text": "Water is H₂O.", "document_id": "H₂O",
                                             "entities": [{"name": "Water", "label": "Product"}]})
    assert facts.document_id == "H₂O"  # type: ignore[attr-defined]
    with pytest.raises(ToolError):  # "x2" holds text: add_facts under it is refused, and only under it
        await toolkit.call("add_facts", {"text": "Two.", "document_id": "x2",
                                         "entities": [{"name": "Two", "label": "Product"}]})
    for doc_id in ("file:ﬁnance.md", "file:finance.md", "x²", "x2"):
        found = await toolkit.call("retrieve", {"question": "What does the note say?", "document_ids": [doc_id],
                                                "paths": ["passages"]})
        assert {p.document_id for p in found.passages} == {doc_id}  # type: ignore[attr-defined]


async def test_a_graph_written_before_75f0126_is_upgraded_without_deleting_and_clashes_are_reported(
        kg: KnowledgeGraph, tmp_path: Path, data_dir: Path, embedder, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    resume = tmp_path / "re\u0301sume\u0301.md"
    resume.write_text("The résumé lists three jobs.\n")
    await _write_as_before(kg, None, [
        ("café", "The composed café opens at 8.", None), ("cafe\u0301", "The decomposed café opens at 9.", None),
        ("file", "The plain file note.", None), ("\ufeffmemo", "The memo with a mark.", None),
        (str(resume), resume.read_text(), str(resume))])
    before = await _texts(kg)
    async with await KnowledgeGraph.open(graph=kg.name, data_dir=str(data_dir), embedder=embedder) as old:
        assert await old.delete_document("ﬁle") is False  # NFC keeps the ligature: not the document "file"
        assert (await old.ingest(paths=[resume], plan=_NONE)).documents[0].status == "unchanged"
        with caplog.at_level(logging.WARNING, logger="graphrag_agents"):
            report = await old.finalize()
        assert report.key_clashes == [KeyClash("cafe\u0301", "café")]
        assert report.rekeyed == 2  # the memo and the file
        warned = [r.getMessage() for r in caplog.records if "key" in r.getMessage()]
        assert len(warned) == 1 and "'cafe\\u0301'" in warned[0] and "'caf\\xe9'" in warned[0]
        assert "delete_document" in warned[0]
        after = await _texts(old)
        assert sorted(after.values()) == sorted(before.values())  # nothing deleted
        assert set(after) == {"café", "cafe\u0301", "file", "memo", str(resume).replace("e\u0301", "é")}
        assert await _read(old, "cafe\u0301") == {"cafe\u0301"} and await _read(old, "café") == {"café"}
        assert (await old.ingest(paths=[resume], plan=_NONE)).documents[0].status == "unchanged"
        assert (await old.finalize()).key_clashes == [KeyClash("cafe\u0301", "café")]  # until resolved
        tool = await GraphRAGToolkit(old).call("finalize", {})
        assert "'cafe\\u0301'" in (tool.hint or "") and "delete_document" in (tool.hint or "")
        assert await old.delete_document("café") is True
        assert (await _texts(old))["cafe\u0301"] == "The decomposed café opens at 9."
        again = await old.finalize()  # the id is free now: the one left gets it
        assert (again.rekeyed, again.key_clashes) == (1, [])
        assert (await _texts(old))["café"] == "The decomposed café opens at 9."


async def test_a_graph_written_by_75f0126_keeps_finding_its_folded_ids(  # type: ignore[no-untyped-def]
        kg: KnowledgeGraph, tmp_path: Path, data_dir: Path, embedder) -> None:
    nfd = tmp_path / "cafe\u0301.md"
    nfd.write_text("The decomposed café opens at 9.\n")
    # 75f0126 stored ingest(document_id="x²") as "x2" and "ﬁnance" as "finance"; a file under its path as given.
    await _write_as_before(kg, 2, [("x2", "The x squared note.", None), ("finance", "The finance note.", None),
                                   (str(nfd), nfd.read_text(), str(nfd))])
    async with await KnowledgeGraph.open(graph=kg.name, data_dir=str(data_dir), embedder=embedder) as old:
        same = await old.ingest(text="The x squared note.", document_id="x²", plan=_NONE)
        assert (same.documents[0].document_id, same.documents[0].status) == ("x2", "unchanged")
        await old.ingest(text="The y two note.", document_id="y2", plan=_NONE)  # written under rule 3
        assert await old.delete_document("y²") is False  # "y2" was written as "y2": "y²" is another id
        report = await old.finalize()
        assert (report.rekeyed, report.key_clashes) == (1, [])  # the file, to its path in NFC
        assert set(await _texts(old)) == {"x2", "finance", "y2", str(nfd).replace("e\u0301", "é")}
        assert await _read(old, "x²") == {"x2"}
        updated = await old.update(text="The x squared note, revised.", document_id="x²", plan=_NONE)
        assert (updated.documents[0].document_id, updated.documents[0].status) == ("x2", "updated")
        assert await old.delete_document("ﬁnance") is True
        assert await old.delete_document("x²") is True  # still a rule-2 document after its rewrite
        assert (await old.ingest(text="The z note.", document_id="z²", plan=_NONE)).documents[0].status == "ingested"
        assert set(await _texts(old)) == {"y2", "z²", str(nfd).replace("e\u0301", "é")}


async def test_a_graph_with_two_metadata_nodes_still_tells_a_stored_version(kg: KnowledgeGraph) -> None:
    """Two processes creating one graph's schema at once on a server reached by URL (no folder lock) can leave two
    ``__Meta__ {key: 'graph'}`` nodes. The read of the key rule beside the stored versions must not multiply the
    rows: it doubled every chunk count, so an unchanged document read as another version (the losing writer of a
    concurrent ingest on a cluster reported "failed: another writer stored a different version")."""
    text = "Paragraph one says that item one weighs three grams.\n\nParagraph two says item two weighs six."
    first = await kg.ingest(text=text, document_id="doc", plan=IngestPlan(extractor="none"))
    assert first.documents[0].status == "ingested"
    await kg.store.query("CREATE (:__Meta__ {key: 'graph', key_rule: 3})")
    assert (await kg.store.ro_query("MATCH (m:__Meta__ {key: 'graph'}) RETURN count(m)"))[0][0] == 2
    again = await kg.ingest(text=text, document_id="doc", plan=IngestPlan(extractor="none"))
    assert again.documents[0].status == "unchanged"
    assert (await kg.store.ro_query("MATCH (c:Chunk) RETURN count(c)"))[0][0] == first.documents[0].chunks
