"""``graphrag-agents ingest / finalize / status`` on the real embedded FalkorDB."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from graphrag_agents.cli import main


def test_ingest_finalize_status(tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.md").write_text("# Alpha\n\nAda Lovelace worked with Charles Babbage in London.\n")
    (docs / "sub" / "b.txt").write_text("Grace Hopper joined the United States Navy.")
    (docs / "sub" / "c.csv").write_text("not,ingested\n")
    (docs / ".hidden.md").write_text("# Hidden\n")
    common = ["--data-dir", str(data_dir), "--graph", f"cli_{uuid.uuid4().hex[:8]}"]
    assert main(["ingest", str(docs), *common]) == 2
    assert "pass --recursive" in capsys.readouterr().err
    assert main(["ingest", str(docs), "-r", "--extractor", "ner", "--chunker", "structural", "-q",
                 *common]) == 0
    out = capsys.readouterr().out
    assert "2 ingested" in out and "graphrag-agents finalize" in out
    assert main(["ingest", str(docs), "-r", "--extractor", "ner", *common]) == 0
    assert "2 unchanged" in capsys.readouterr().out
    assert main(["ingest", str(tmp_path / "nope.txt"), "--extractor", "none", *common]) == 1
    assert "cannot read the file" in capsys.readouterr().out
    assert main(["finalize", "--quiet", *common]) == 0
    out = capsys.readouterr().out
    assert "embedded 2 chunks" in out
    assert main(["status", *common]) == 0
    out = capsys.readouterr().out
    assert "2 documents, 2 chunks" in out and "Person" in out and "RELATED_TO" in out
