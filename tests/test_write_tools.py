"""The write tools through GraphRAGToolkit on a real embedded FalkorDB: listing, ingest, preview, policies."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from snapshot import assert_snapshot
from test_loaders import make_pdf

from graphrag_agents.errors import ReadOnlyViolation, ToolError
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.tools.toolkit import READ_TOOLS, WRITE_TOOLS, GraphRAGToolkit
from graphrag_agents.tools.write import sandbox
from graphrag_agents.tools.write.results import FinalizeResult, IngestDocument, IngestResult, PrunedInfo

FAST = [{"match": "*", "extractor": "none"}]  # chunks only: no model to load


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "notes").mkdir(parents=True)
    (root / "reports").mkdir()
    (root / "notes" / "a.md").write_text("# Aspirin\n\nAspirin treats headache. Bayer makes it.\n")
    (root / "notes" / "b.md").write_text("# Ibuprofen\n\nIbuprofen treats fever.\n")
    (root / "c.txt").write_text("Alice Smith works at Acme Corp in Berlin.")
    (root / "weird[1].md").write_text("Brackets in the name.")
    (root / "reports" / "q1.pdf").write_bytes(make_pdf(["Sales rose in the first quarter.", "Costs fell."]))
    return root


def _by_path(result: IngestResult) -> dict[str, str]:
    return {d.path or d.document_id: d.status for d in result.documents}


async def test_tools_listed_by_options_with_annotations(kg: KnowledgeGraph, corpus: Path) -> None:
    full = GraphRAGToolkit(kg, files_root=corpus)
    assert [s.name for s in full.tool_specs()] == [*READ_TOOLS, *WRITE_TOOLS]
    hints = {s.name: s.annotations for s in full.tool_specs()}
    for name in ("set_ontology", "ingest", "finalize", "add_facts"):
        assert hints[name].destructive and not hints[name].read_only
    assert hints["preview_files"].read_only and not hints["preview_files"].destructive
    assert hints["ingest"].open_world and not hints["ingest"].idempotent
    assert hints["set_ontology"].idempotent and hints["add_facts"].idempotent
    ingest_schema = full.spec("ingest").input_schema
    assert {"files", "plan", "text"} <= set(ingest_schema["properties"])
    text_only = GraphRAGToolkit(kg)
    names = [s.name for s in text_only.tool_specs()]
    assert "preview_files" not in names and "ingest" in names
    assert set(text_only.spec("ingest").input_schema["properties"]) == {"text", "document_id", "title", "reextract"}
    assert "files" not in text_only.spec("ingest").description
    for policy in ("on_write", "never"):
        assert "finalize" not in [s.name for s in GraphRAGToolkit(kg, finalize_policy=policy).tool_specs()]  # type: ignore[arg-type]


async def test_read_only_toolkit_refuses_every_write_tool(kg: KnowledgeGraph, corpus: Path) -> None:
    toolkit = GraphRAGToolkit(kg, read_only=True, files_root=corpus)
    assert {s.name for s in toolkit.tool_specs()} == set(READ_TOOLS)
    for name in WRITE_TOOLS:
        with pytest.raises(ReadOnlyViolation):
            await toolkit.call(name, {})
    with pytest.raises(ReadOnlyViolation):
        await toolkit.ingest("Some text.")
    with pytest.raises(ReadOnlyViolation):
        await toolkit.finalize()
    assert not await kg.store.exists()


async def test_broad_files_root_is_refused(kg: KnowledgeGraph) -> None:
    with pytest.raises(ToolError, match="filesystem root"):
        GraphRAGToolkit(kg, files_root="/")
    with pytest.raises(ToolError, match="home folder"):
        GraphRAGToolkit(kg, files_root=str(Path.home()))
    with pytest.raises(ValueError, match="valid keys"):
        GraphRAGToolkit(kg, plan_limits={"extractor": ["llm"]})


async def test_ingest_files_statuses_and_batch_goes_on(kg: KnowledgeGraph, corpus: Path) -> None:
    (corpus / "bad.txt").write_bytes(b"ok \xff\xfe not utf-8")
    (corpus / "empty.md").write_bytes(b"")
    (corpus / "big.txt").write_text("word " * 400)
    (corpus / "x.docx").write_bytes(b"PK")
    toolkit = GraphRAGToolkit(kg, files_root=corpus, max_file_bytes=1000)
    first = await toolkit.ingest(files=["*", "x.docx", "missing.md"], plan=FAST)
    status = _by_path(first)
    assert status["c.txt"] == status["weird[1].md"] == "ingested"
    for path in ("bad.txt", "empty.md", "big.txt", "x.docx", "missing.md"):
        assert status[path] == "failed", path
    reasons = {d.path: d.reason or "" for d in first.documents}
    assert "UTF-8" in reasons["bad.txt"] and "empty" in reasons["empty.md"]
    assert "max_file_bytes" in reasons["big.txt"] and "unsupported file type '.docx'" in reasons["x.docx"]
    assert "not found" in reasons["missing.md"]
    assert first.counts == {"ingested": 2, "failed": 5}
    assert first.hint and "5 document(s) failed" in first.hint and "finalize" in first.hint
    assert next(d for d in first.documents if d.path == "c.txt").document_id == "file:c.txt"

    (corpus / "c.txt").write_text("Alice Smith works at Globex in Paris.")
    second = await toolkit.ingest(files=["c.txt", "weird[1].md"])
    assert _by_path(second) == {"c.txt": "updated", "weird[1].md": "unchanged"}
    third = await toolkit.ingest(files=["file:weird[1].md"], reextract=True)  # a document id works as a path
    assert _by_path(third) == {"weird[1].md": "reextracted"}
    doc = third.documents[0]
    assert doc.plan and doc.plan["extractor"] == "none" and "last ingest" in doc.plan["reason"]
    text = third.to_llm_text()
    assert "weird[1].md: reextracted" in text and len(second.to_llm_text(200)) <= 200


async def test_globs_folders_and_plan_rules(kg: KnowledgeGraph, corpus: Path) -> None:
    toolkit = GraphRAGToolkit(kg, files_root=corpus)
    result = await toolkit.ingest(
        files=["notes/*.md", "reports", "c.txt"],
        plan=[{"match": "*.md", "chunker": "structural", "extractor": "none"},
              {"match": "reports/*.pdf", "chunker": "fixed", "extractor": "llm", "resolver": "llm_verified"},
              {"match": "*", "extractor": "none"}])
    plans = {d.path: d.plan or {} for d in result.documents}
    assert list(plans) == ["notes/a.md", "notes/b.md", "reports/q1.pdf", "c.txt"]
    assert plans["notes/a.md"]["chunker"] == "structural" and plans["notes/a.md"]["match"] == "*.md"
    pdf = plans["reports/q1.pdf"]
    assert (pdf["chunker"], pdf["extractor"], pdf["resolver"]) == ("fixed", "ner", "exact")
    assert "outside plan_limits" in pdf["reason"]
    assert plans["c.txt"]["match"] == "*"
    assert all(d.status in ("ingested", "failed") for d in result.documents)


async def test_fifty_files_per_call(kg: KnowledgeGraph, tmp_path: Path) -> None:
    root = tmp_path / "many"
    for folder in ("a", "b"):
        (root / folder).mkdir(parents=True)
        for i in range(26):
            (root / folder / f"f{i:02}.txt").write_text(f"File {folder} {i}.")
    toolkit = GraphRAGToolkit(kg, files_root=root)
    with pytest.raises(ToolError) as err:
        await toolkit.ingest(files=["**/*.txt"], plan=FAST)
    assert "52 files" in err.value.message and "at most 50" in err.value.hint and "a/ (26)" in err.value.hint
    assert not await kg.store.exists()  # refused before anything was read or written
    ok = await toolkit.ingest(files=["a/*.txt", "b/f0*.txt", "b/f1*.txt"], plan=FAST)  # 26 + 10 + 10
    assert ok.counts == {"ingested": 46}


async def test_text_ingest_statuses_and_file_ids_refused(kg: KnowledgeGraph, corpus: Path) -> None:
    toolkit = GraphRAGToolkit(kg, files_root=corpus)
    first = await toolkit.ingest("Carol founded Initech in 1999.", plan=FAST)
    doc_id = first.documents[0].document_id
    assert doc_id.startswith("text:") and first.documents[0].status == "ingested"
    assert (await toolkit.ingest("Carol founded Initech in 1999.", plan=FAST)).documents[0].status == "unchanged"
    assert (await toolkit.ingest("v1", document_id="note-1", plan=FAST)).documents[0].status == "ingested"
    assert (await toolkit.ingest("v2", document_id="note-1")).documents[0].status == "updated"
    again = await toolkit.ingest("v2", document_id="note-1", reextract=True)
    assert again.documents[0].status == "reextracted"
    await toolkit.ingest(files=["notes/a.md"], plan=FAST)
    await kg.ingest(paths=[corpus / "c.txt"])  # the operator's own ingest: id = the path as given
    for bad in ("file:notes/a.md", "file:anything", "notes/a.md", str(corpus / "c.txt")):
        with pytest.raises(ToolError) as err:
            await toolkit.ingest("Overwrite attempt.", document_id=bad)
        assert "reextract=true" in err.value.hint, bad
    fresh = GraphRAGToolkit(kg, files_root=corpus)  # a restarted process remembers no plan
    redo = await fresh.ingest(files=["notes/a.md"], reextract=True)
    assert redo.documents[0].plan and "no plan was remembered" in redo.documents[0].plan["reason"]


async def test_pruned_report_gives_the_set_ontology_call(kg: KnowledgeGraph) -> None:
    toolkit = GraphRAGToolkit(kg)
    await toolkit.set_ontology(entities=[{"label": "Person"}, {"label": "Drug"}])
    result = await toolkit.ingest("Alice Smith works at Acme Corp in Berlin. Bob Jones met Alice Smith in Paris.")
    assert result.documents[0].status == "ingested" and result.documents[0].plan
    assert result.documents[0].plan["extractor"] == "ner"
    pruned = result.pruned
    assert pruned.relation_types.get("RELATED_TO") and pruned.unknown_entities  # ner's co-mentions, ORG / GPE
    assert pruned.set_ontology_call and pruned.set_ontology_call["relations"][0]["label"] == "RELATED_TO"
    assert result.hint and "set_ontology(" in result.hint and "reextract=true" in result.hint
    assert "Pruned:" in result.to_llm_text()


async def test_preview_pages_bounded_reads_and_pdf(kg: KnowledgeGraph, corpus: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (corpus / "long.txt").write_text("Start. " + "The middle part of a long file. " * 20_000 + "End.")
    for i in range(30):
        (corpus / "bulk" / f"{i:02}.md").parent.mkdir(exist_ok=True)
        (corpus / "bulk" / f"{i:02}.md").write_text(f"Bulk file {i}. " * 400)
    windows: list[int] = []
    real_window = sandbox.FilesRoot.read_window

    def spy(self: sandbox.FilesRoot, rel: str, offset: int, size: int) -> bytes:
        windows.append(size)
        return real_window(self, rel, offset, size)

    def never(*_: Any) -> Any:
        raise AssertionError("preview must not read whole files")

    monkeypatch.setattr(sandbox.FilesRoot, "read_window", spy)
    monkeypatch.setattr(sandbox.FilesRoot, "read_bytes", never)
    toolkit = GraphRAGToolkit(kg, files_root=corpus)
    pages, offset, seen = 0, 0, []
    while True:
        page = await toolkit.preview_files(offset=offset, sample_chars=2000)
        pages += 1
        assert len(page.model_dump_json()) <= 33_000 and page.offset == offset
        seen += [f.path for f in page.files]
        if page.next_offset is None:
            break
        assert page.next_offset == offset + len(page.files) and page.hint and "offset=" in page.hint
        offset = page.next_offset
    assert pages >= 2 and len(seen) == len(set(seen)) == page.total_files == 36
    assert max(windows) <= 2000 * 4 + 8
    everything = await toolkit.preview_files(files=["long.txt", "reports/*.pdf"])
    long, pdf = everything.files
    assert long.chars_estimated and abs(long.chars - 640_011) < 20_000 and len(long.sample) <= 2000
    assert "middle part" in long.sample and "Start" not in long.sample
    assert pdf.pages == 2 and pdf.sample and not pdf.chars_estimated
    assert not await kg.store.exists()
    text = everything.to_llm_text(1500)
    assert len(text) <= 1500 and "reports/q1.pdf" in text


async def test_finalize_manual_and_on_write(kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    manual = GraphRAGToolkit(kg)
    written = await manual.ingest("Dana leads Umbrella Labs.")
    assert written.finalized is None
    done = await manual.finalize()
    assert done.ran and done.embedded_chunks == 1 and done.documents == 1
    assert (await kg.status()).unembedded == 0

    on_write = GraphRAGToolkit(kg, finalize_policy="on_write")
    auto = await on_write.ingest("Erin runs Hooli.")
    assert auto.finalized is True and (await kg.status()).unembedded == 0
    assert (await on_write.finalize()).ran is False  # nothing pending: a no-op

    async def broken(progress: bool | None = None) -> Any:
        raise RuntimeError("embedding provider down")

    monkeypatch.setattr(kg, "finalize", broken)
    failed = await on_write.ingest("Frank joined Hooli.")
    assert failed.documents[0].status == "ingested" and failed.finalized is False
    assert failed.hint and "finalize failed" in failed.hint and "embedding provider down" in failed.hint
    monkeypatch.undo()
    retried = await on_write.new_session().ingest("Frank joined Hooli.")  # unchanged, yet retried
    assert retried.documents[0].status == "unchanged" and retried.finalized is True
    monkeypatch.setattr(kg, "finalize", broken)
    await on_write.ingest("Gina left Hooli.")
    monkeypatch.undo()
    direct = await on_write.finalize()
    assert isinstance(direct, FinalizeResult) and direct.ran and (await kg.status()).unembedded == 0

    never = GraphRAGToolkit(kg, finalize_policy="never")
    assert (await never.ingest("Hank visits Hooli.")).finalized is None
    with pytest.raises(ToolError, match="never"):
        await never.finalize()


async def test_set_ontology_is_additive(kg: KnowledgeGraph) -> None:
    toolkit = GraphRAGToolkit(kg)
    first = await toolkit.set_ontology(
        entities=[{"label": "Drug", "description": "A medicine"}, {"label": "Disease"}],
        relations=[{"label": "TREATS", "patterns": [["Drug", "Disease"]]}])
    assert first.added_entities == ["Drug", "Disease"] and first.added_relations == ["TREATS"]
    again = await toolkit.set_ontology(entities=[{"label": "Drug", "description": "Other"}])
    assert not again.changed and again.kept_descriptions == ["Drug"] and again.hint
    assert "Nothing new" in again.to_llm_text()
    more = await toolkit.set_ontology(entities=[{"label": "Symptom"}],
                                      relations=[{"label": "TREATS", "patterns": [["Drug", "Symptom"]]}])
    assert more.added_patterns == [("TREATS", "Drug", "Symptom")]
    assert more.relations["TREATS"] == [("Drug", "Disease"), ("Drug", "Symptom")]
    with pytest.raises(ToolError) as err:
        await toolkit.set_ontology(relations=[{"label": "CAUSES", "patterns": [["Drug", "Effect"]]}])
    assert "Effect" in err.value.message and err.value.hint
    ontology = await toolkit.get_ontology()
    assert [e.label for e in ontology.entities] == ["Drug", "Disease", "Symptom"]


async def test_symlink_and_spelling_are_one_document_and_sessions_run_together(kg: KnowledgeGraph,
                                                                               corpus: Path) -> None:
    (corpus / "link.md").symlink_to("notes/a.md")
    toolkit = GraphRAGToolkit(kg, files_root=corpus)
    first = await toolkit.ingest(files=["notes/a.md"], plan=FAST)
    again = await toolkit.new_session().ingest(files=["link.md", "./notes//a.md"], plan=FAST)
    assert [(d.document_id, d.status) for d in first.documents + again.documents] == [
        ("file:notes/a.md", "ingested"), ("file:notes/a.md", "unchanged")]
    results = await asyncio.gather(
        toolkit.new_session().ingest(files=["notes/b.md"], plan=FAST),
        toolkit.new_session().ingest("Iris works at Wonka.", plan=FAST),
        toolkit.new_session().ingest(files=["notes/b.md"], reextract=True, plan=FAST))
    assert sorted(d.status for r in results for d in r.documents) in (
        ["ingested", "ingested", "reextracted"], ["ingested", "ingested", "unchanged"])
    rows = await kg.store.ro_query("MATCH (d:Document {id: 'file:notes/b.md'})-[:HAS_CHUNK]->(c) RETURN count(c)")
    assert rows == [[1]]  # replaced in place, never duplicated


async def test_write_schemas_and_texts_snapshot(kg: KnowledgeGraph, corpus: Path) -> None:
    specs = {s.name: {"description": s.description, "annotations": s.annotations.as_mcp(),
                      "input_schema": s.input_schema} for s in GraphRAGToolkit(kg, files_root=corpus).tool_specs()
             if s.name in WRITE_TOOLS}
    assert_snapshot("write_tools.json", json.dumps(specs, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    result = IngestResult(
        documents=[IngestDocument(document_id=f"file:notes/n{i}.md", path=f"notes/n{i}.md", status="ingested",
                                  chunks=3, entities=4, relations=2,
                                  plan={"chunker": "structural", "extractor": "ner", "resolver": "exact",
                                        "reason": "rule 1 ('*.md')"}) for i in range(40)]
        + [IngestDocument(document_id="file:x.docx", path="x.docx", status="failed", reason="unsupported type")],
        counts={"ingested": 40, "failed": 1},
        pruned=PrunedInfo(patterns={"Person-WORKS_AT->Place": 3},
                          pattern_examples={"Person-WORKS_AT->Place": "Alice works at Berlin."}),
        hint="Call finalize after the last batch.")
    text = result.to_llm_text(max_chars=2500)
    assert len(text) <= 2500 and "more omitted)" in text and "Person-WORKS_AT->Place" in text
    assert_snapshot("ingest_budget.txt", text)
