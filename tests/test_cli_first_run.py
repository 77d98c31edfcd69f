"""The command line on a first run: nothing fails silently, and every dead end names the next command."""

from __future__ import annotations

import importlib.metadata
import uuid
from pathlib import Path

import pytest
from test_agent_cli import QUESTION, _rows

import graphrag_agents
import graphrag_agents.cli.commands as cli
import graphrag_agents.ingest.extract_ner as extract_ner


@pytest.fixture
def four_paragraphs(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _rows()
    monkeypatch.setattr(cli, "_demo_corpus", lambda: rows)
    for name in ("GRAPHRAG_MODEL", "GRAPHRAG_AGENT_MODE", "GRAPHRAG_GRAPH"):
        monkeypatch.delenv(name, raising=False)


def test_demo_without_spacy_falls_back_to_passages_and_says_so(
        tmp_path: Path, four_paragraphs: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(extract_ner, "spacy_available", lambda: False)  # as after `pip install .` without extras
    # Before: every paragraph failed ("the ner extractor needs spaCy"), the graph was empty, 0 evidence, exit 0.
    assert cli.main(["demo", "--data-dir", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "note: spaCy (the offline extractor) is not installed" in captured.err
    assert "pip install '.[all]' in the graphrag-agents source folder" in captured.err
    assert "graph demo: 4 documents" in captured.out and "none extractor" in captured.out
    assert "returned 0 numbered" not in captured.out
    # Before: nothing said which graph was built; `retrieve` then looked in 'default'.
    assert f"The demo graph is 'demo' in embedded FalkorDB in {tmp_path}. Next:" in captured.out
    assert f'graphrag-agents retrieve "your question" --graph demo --data-dir {tmp_path}' in captured.out
    assert cli.main(["retrieve", QUESTION, "--graph", "demo", "--data-dir", str(tmp_path)]) == 0
    assert "Passages" in capsys.readouterr().out


def test_demo_with_ner_asked_for_and_no_spacy_fails_loudly(
        tmp_path: Path, four_paragraphs: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(extract_ner, "spacy_available", lambda: False)
    assert cli.main(["demo", "--extractor", "ner", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: The ner extractor needs spaCy") and "hint: pip install '.[all]' in the" in err


def test_graphs_and_version(tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    graph = f"cli_{uuid.uuid4().hex[:8]}"
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nAda Lovelace worked with Charles Babbage in London.\n", encoding="utf-8")
    assert cli.main(["ingest", str(notes), "--extractor", "none", "-q", "--graph", graph,
                     "--data-dir", str(data_dir)]) == 0
    capsys.readouterr()
    assert cli.main(["graphs", "--data-dir", str(data_dir)]) == 0
    out = capsys.readouterr().out
    assert f"  {graph}: 1 documents, 1 chunks, 0 entities, 0 relations, 1 waiting for finalize" in out
    assert "Use one with --graph NAME" in out
    assert cli.main(["graphs", "--data-dir", str(tmp_path / "nowhere")]) == 1
    assert "no data folder at" in capsys.readouterr().err and not (tmp_path / "nowhere").exists()

    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    installed = importlib.metadata.version("graphrag-agents")
    assert capsys.readouterr().out.strip() == f"graphrag-agents {installed}"
    assert graphrag_agents.__version__ == installed


def test_ingest_dead_ends_say_why_and_what_next(tmp_path: Path, data_dir: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--graph", f"cli_{uuid.uuid4().hex[:8]}", "--data-dir", str(data_dir)]
    empty, unsupported = tmp_path / "empty", tmp_path / "csvs"
    empty.mkdir()
    unsupported.mkdir()
    (unsupported / "table.csv").write_text("a,b\n", encoding="utf-8")
    for folder in (empty, unsupported):
        # Before: exit code 2 and not a word.
        assert cli.main(["ingest", str(folder), "-r", *common]) == 2
        err = capsys.readouterr().err
        assert f"error: no files to ingest under {folder}" in err and ".md" in err and "hint:" in err
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"not a pdf")
    assert cli.main(["ingest", str(broken), str(tmp_path / "missing.txt"), "--extractor", "none", *common]) == 1
    out = capsys.readouterr().out
    # Before: "next: graphrag-agents finalize" although nothing was written.
    assert "next: nothing was written; fix the failures above" in out and "finalize" not in out


def test_retrieve_before_finalize_names_finalize(tmp_path: Path, data_dir: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    graph = f"cli_{uuid.uuid4().hex[:8]}"
    common = ["--graph", graph, "--data-dir", str(data_dir)]
    notes = tmp_path / "notes.txt"
    notes.write_text("Ada Lovelace worked with Charles Babbage in London.", encoding="utf-8")
    assert cli.main(["ingest", str(notes), "--extractor", "none", "-q", *common]) == 0
    assert f"next: graphrag-agents finalize --graph {graph}" in capsys.readouterr().out
    assert cli.main(["retrieve", "Who worked with Babbage?", *common]) == 0
    # Before: an answer from full-text only, and no word about the missing embeddings.
    err = capsys.readouterr().err
    assert "1 ingested items are not embedded yet" in err and f"graphrag-agents finalize --graph {graph}" in err
    assert cli.main(["finalize", "--quiet", *common]) == 0
    capsys.readouterr()
    assert cli.main(["retrieve", "Who worked with Babbage?", *common]) == 0
    assert "hint:" not in capsys.readouterr().err


def test_the_ontology_command_declares_what_an_ingest_hint_asks_for(
        tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    graph = f"cli_{uuid.uuid4().hex[:8]}"
    common = ["--graph", graph, "--data-dir", str(data_dir)]
    assert cli.main(["ontology", "--entity", "Person:a human being", *common]) == 0
    assert "declared Person" in capsys.readouterr().out
    notes = tmp_path / "notes.txt"
    notes.write_text("Ada Lovelace worked with Charles Babbage at the Royal Society in London.", encoding="utf-8")
    assert cli.main(["ingest", str(notes), "--extractor", "ner", *common]) == 0
    out = capsys.readouterr().out
    # Before: the hint named set_ontology(...), a Python call the command line could not make.
    line = next(ln for ln in out.splitlines() if ln.startswith("from the command line: graphrag-agents ontology"))
    assert "--json" in line and "--reextract" in line
    assert cli.main(["ontology", "--relation", "KNOWS:Person->Person", "--entity", "Organization", *common]) == 0
    out = capsys.readouterr().out
    assert "declared Organization, KNOWS" in out and "relation KNOWS: Person->Person" in out
    assert cli.main(["ontology", "--json", '{"entities": [{"label": "Location"}]}', *common]) == 0
    assert "entity types: Person, Organization, Location" in capsys.readouterr().out
    assert cli.main(["ontology", "--relation", "KNOWS:Person", *common]) == 2
    assert "hint: Write patterns as SOURCE->TARGET" in capsys.readouterr().err
