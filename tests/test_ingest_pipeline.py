"""The ingestion pipeline on the real embedded FalkorDB: files, failures, incremental updates, locking."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
from graphrag_agents.ingest.rwlock import ReadWriteLock
from graphrag_agents.kg import KnowledgeGraph

NONE = IngestPlan(extractor="none")
MD = b"# Guide\n\nIntro text here.\n\n## Install\n\nRun the installer.\n\n## Use\n\nOpen the app and work.\n"


def _pdf(text: str | None) -> bytes:
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(width=300, height=300)
    if text is not None:
        font = DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"):
                                 NameObject("/Type1"), NameObject("/BaseFont"): NameObject("/Helvetica")})
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): DictionaryObject(
            {NameObject("/F1"): writer._add_object(font)})})
        stream = DecodedStreamObject()
        stream.set_data(f"BT /F1 12 Tf 20 200 Td ({text}) Tj ET".encode())
        page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


async def _chunk_rows(kg: KnowledgeGraph, doc_id: str) -> list[list[object]]:
    return await kg.store.ro_query(
        "MATCH (:Document {id: $id})-[:HAS_CHUNK]->(c:Chunk) OPTIONAL MATCH (c)-[:NEXT]->(n:Chunk) "
        "RETURN c.index, c.heading, n.index ORDER BY c.index", {"id": doc_id})


async def test_files_of_every_type_with_metadata_and_structure(kg: KnowledgeGraph, tmp_path: Path) -> None:
    (tmp_path / "guide.md").write_bytes(MD)
    (tmp_path / "notes.txt").write_text("Plain notes. Second sentence.")
    (tmp_path / "spec.rst").write_text("Spec\n====\n\nBody of the spec.\n\nUsage\n-----\n\nCall it.\n")
    (tmp_path / "report.pdf").write_bytes(_pdf("Quarterly report text"))
    paths = [str(tmp_path / n) for n in ("guide.md", "notes.txt", "spec.rst", "report.pdf")]
    report = await kg.ingest(paths=paths, plan=IngestPlan(chunker="structural", extractor="none"))
    assert [d.status for d in report.documents] == ["ingested"] * 4, report.documents
    rows = await kg.store.ro_query(
        "MATCH (d:Document) RETURN d.id, d.title, d.loader, d.path, size(d.content_hash), d.from_file "
        "ORDER BY d.id")
    by_id = {r[0]: r[1:] for r in rows}
    assert by_id[paths[0]] == ["Guide", "markdown", paths[0], 64, True]
    assert by_id[paths[2]][:2] == ["Spec", "rst"]
    assert by_id[paths[3]][1] == "pdf"
    chunks = await _chunk_rows(kg, paths[0])
    assert [c[1] for c in chunks] == ["Guide", "Guide > Install", "Guide > Use"]
    assert [c[2] for c in chunks] == [1, 2, None]  # NEXT edges chain the chunks in order


async def test_bad_files_fail_with_a_reason_and_the_rest_continue(kg: KnowledgeGraph, tmp_path: Path) -> None:
    files = {
        "ok.txt": b"Good text. Still good.",
        "table.csv": b"a,b\n1,2\n",
        "empty.md": b"",
        "latin1.txt": "caf\xe9".encode("latin-1"),
        "scan.pdf": _pdf(None),
        "big.txt": b"word " * 300,
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    kg.max_file_bytes = 1000
    paths = [str(tmp_path / n) for n in files] + [str(tmp_path / "missing.txt"), str(tmp_path)]
    report = await kg.ingest(paths=paths, plan=NONE)
    status = {Path(d.document_id).name: (d.status, d.reason or "") for d in report.documents}
    assert status["ok.txt"][0] == "ingested"
    assert "unsupported file type '.csv'" in status["table.csv"][1]
    assert "empty" in status["empty.md"][1]
    assert "not valid UTF-8" in status["latin1.txt"][1]
    assert "no extractable text" in status["scan.pdf"][1]
    assert "over the 1,000-byte limit" in status["big.txt"][1]
    assert "cannot read" in status["missing.txt"][1]
    assert "folder" in status[tmp_path.name][1]
    assert report.hint and "7 document(s) failed" in report.hint
    graph = await kg.status()
    assert graph.documents == 1 and graph.chunks == 1  # nothing of the failed ones was written


async def test_too_many_chunks_fail_before_extraction(kg: KnowledgeGraph) -> None:
    plan = IngestPlan(chunker="fixed", chunk_params={"size": 20, "overlap": 0}, extractor="none", max_chunks=2)
    report = await kg.ingest(text="one two three four five six seven eight nine ten eleven twelve",
                             document_id="long", plan=plan)
    assert report.status == "failed" and "over the plan's max_chunks of 2" in (report.documents[0].reason or "")


async def test_bytes_sources_and_duplicate_ids(kg: KnowledgeGraph) -> None:
    sources = [SourceDocument("file:a.md", "a.md", data=MD, path="a.md", from_file=True),
               SourceDocument("file:a.md", "a.md", data=MD, path="a.md", from_file=True),
               SourceDocument("t1", "t1", text="Just text.")]
    report = await kg.ingest_documents(sources, [IngestPlan(chunker="structural", extractor="none"), NONE, NONE])
    assert [d.status for d in report.documents] == ["ingested", "failed", "ingested"]
    assert "given twice" in (report.documents[1].reason or "")
    rows = await kg.store.ro_query("MATCH (d:Document) RETURN d.id, d.loader, d.path ORDER BY d.id")
    assert rows == [["file:a.md", "markdown", "a.md"], ["t1", None, "t1"]]


async def test_unchanged_is_skipped_changed_is_replaced_and_orphans_go(kg: KnowledgeGraph) -> None:
    ner = IngestPlan(extractor="ner")
    first = await kg.ingest(text="Barack Obama visited Berlin with Angela Merkel.", document_id="d1", plan=ner)
    await kg.ingest(text="Angela Merkel lives in Berlin.", document_id="d2", plan=ner)
    assert first.status == "ingested" and first.documents[0].entities >= 3
    assert (await kg.ingest(text="Barack Obama visited Berlin with Angela Merkel.", document_id="d1",
                            plan=ner)).status == "unchanged"
    again = await kg.ingest(text="Barack Obama visited Berlin with Angela Merkel.", document_id="d1", plan=ner,
                            reextract=True)
    assert again.status == "reextracted"
    updated = await kg.ingest(text="Emmanuel Macron visited Paris.", document_id="d1", plan=ner)
    assert updated.status == "updated"
    names = {r[0] for r in await kg.store.ro_query("MATCH (e:__Entity__) RETURN e.name")}
    assert "Barack Obama" not in names  # only d1 mentioned him: deleted with its old version
    assert {"Angela Merkel", "Berlin", "Emmanuel Macron", "Paris"} <= names  # d2 still mentions these
    status = await kg.status()
    assert status.documents == 2 and status.chunks == 2


async def test_update_and_delete(kg: KnowledgeGraph) -> None:
    missing = await kg.update(text="x", document_id="nope")
    assert missing.status == "failed" and "use ingest" in (missing.documents[0].reason or "")
    await kg.ingest(text="First version.", document_id="u", plan=NONE)
    assert (await kg.update(text="Second version.", document_id="u", plan=NONE)).status == "updated"
    assert await kg.delete_document("u")
    assert (await kg.status()).documents == 0


async def test_updates_run_alone_while_ingests_share_the_lock() -> None:
    lock = ReadWriteLock()
    events: list[str] = []

    async def reader(name: str, delay: float) -> None:
        async with lock.shared():
            events.append(f"{name}+")
            await asyncio.sleep(delay)
            events.append(f"{name}-")

    async def writer() -> None:
        async with lock.exclusive():
            assert lock.readers == 0
            events.append("W+")
            await asyncio.sleep(0.01)
            events.append("W-")

    first = asyncio.create_task(reader("a", 0.03))
    second = asyncio.create_task(reader("b", 0.03))
    await asyncio.sleep(0.005)
    update = asyncio.create_task(writer())
    await asyncio.sleep(0.005)
    late = asyncio.create_task(reader("c", 0.0))  # arrives after the waiting writer: waits for it
    await asyncio.gather(first, second, update, late)
    assert events[:2] == ["a+", "b+"]  # plain ingests overlap
    assert events.index("W+") > max(events.index("a-"), events.index("b-"))
    assert events.index("c+") > events.index("W-")


async def test_concurrent_ingests_of_one_new_id_write_it_once(kg: KnowledgeGraph) -> None:
    await kg.ensure_schema()
    reports = await asyncio.gather(*(kg.ingest(text="Same text. Twice.", document_id="same", plan=NONE)
                                     for _ in range(3)))
    assert sorted(r.status for r in reports) == ["ingested", "unchanged", "unchanged"]
    assert (await kg.status()).chunks == 1


@pytest.mark.parametrize("bad", [{"chunker": "words"}, {"extractor": "magic"}, {"resolver": "fuzzy"},
                                 {"chunker": "fixed", "chunk_params": {"size": 10, "overlap": 10}}])
def test_invalid_plans_name_the_valid_choices(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="valid|smaller"):
        IngestPlan(**bad)  # type: ignore[arg-type]


def test_progress_is_silent_off_a_terminal_and_draws_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    from graphrag_agents.ingest.progress import Progress, want_progress

    assert want_progress(None) is False and want_progress(True) is True  # pytest's stderr is no terminal
    with Progress(False) as bars:
        bars.add("x", "Extracting", total=3)
        bars.advance("x")
    assert capsys.readouterr().err == ""
    with Progress(True) as bars:
        bars.add("x", "Extracting", total=3)
        bars.advance("x", 3)
    assert "Extracting" in capsys.readouterr().err
