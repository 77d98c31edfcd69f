"""The lines the command line prints after a command lead somewhere: "next:" follows the graph's real state, every
hint's command runs as printed, a missing graph names the graphs that exist, skipped files are reported, and the
progress bars label their times. Real embedded FalkorDB, the real CLI (in process) and the real MCP server."""

from __future__ import annotations

import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from graphrag_agents.cli import main
from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.ingest.progress import Progress

ROOT = Path(__file__).resolve().parents[1]


def _hint_commands(text: str) -> list[list[str]]:
    """The graphrag-agents commands a "next:" or "from the command line:" line gives, as argv lists."""
    commands = []
    for line in text.splitlines():
        for part in re.split(r", then |; ", line.split(": ", 1)[-1]):
            part = part.split("  (")[0].strip()
            if part.startswith("graphrag-agents ") and "PATH..." not in part and "your question" not in part:
                commands.append(shlex.split(part)[1:])
    return commands


def test_every_hint_runs_as_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GRAPHRAG_GRAPH", raising=False)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Ada Lovelace worked with Charles Babbage in London on the Analytical Engine. "
                                "Babbage designed the engine at Cambridge University.", encoding="utf-8")
    (docs / "b.html").write_text("<p>not ingested</p>", encoding="utf-8")
    common = ["--data-dir", str(tmp_path / "data"), "--graph", "notes"]
    # RELATED_TO between persons only: the ingest's pruned report gives a set_ontology call and a re-extract.
    assert main(["ontology", "--entity", "Person", "--entity", "Organization", "--entity", "Location",
                 "--relation", "RELATED_TO:Person->Person", *common]) == 0
    capsys.readouterr()
    assert main(["ingest", "docs", "-r", "--extractor", "ner", *common]) == 0
    captured = capsys.readouterr()
    # Before: the .html was skipped without a word.
    assert "skipped 1 file of an unsupported type (docs/b.html); to include them, convert them to" in captured.err
    hints = _hint_commands(captured.out)
    ontology = next(h for h in hints if h[0] == "ontology")
    again = next(h for h in hints if h[0] == "ingest")
    assert "-r" in again and "--reextract" in again, again  # before: no -r, so the folder was refused
    assert main(ontology) == 0
    out = capsys.readouterr().out
    assert "declared nothing new" not in out and "pattern" in out, out  # before: "nothing new", yet it added them
    assert main(again) == 0
    out = capsys.readouterr().out
    assert "reextracted" in out and "next: graphrag-agents finalize" in out, out
    # Unchanged files, but the graph waits for finalize: before, "next:" said retrieve.
    assert main(["ingest", "docs", "-r", "--extractor", "ner", *common]) == 0
    out = capsys.readouterr().out
    assert "unchanged    1 file already stored as it is (docs/a.txt)" in out, out
    assert "items of earlier ingests wait for it; graphrag-agents finalize" in out, out
    (finalize,) = [h for h in _hint_commands(out) if h[0] == "finalize"]
    assert main([*finalize, "-q"]) == 0  # before: finalize had no -q
    assert main(["ingest", "docs", "-r", "--extractor", "ner", *common]) == 0
    assert "next: nothing changed; graphrag-agents retrieve" in capsys.readouterr().out


def test_a_missing_graph_names_the_graphs_that_exist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("GRAPHRAG_GRAPH", raising=False)
    note = tmp_path / "note.txt"
    note.write_text("Grace Hopper joined the United States Navy.", encoding="utf-8")
    data = ["--data-dir", str(tmp_path / "data")]
    assert main(["ingest", str(note), "--extractor", "none", "-q", "--graph", "demo", *data]) == 0
    capsys.readouterr()
    assert main(["status", *data]) == 2
    err = capsys.readouterr().err
    # Before: "Graph 'default' does not exist" and a hint about "the server".
    assert "error: Graph 'default' does not exist." in err
    assert "the one graph that embedded FalkorDB in" in err and "'demo'" in err and "--graph demo" in err, err
    assert main(["ingest", str(note), "--extractor", "none", "-q", "--graph", "other", *data]) == 0
    capsys.readouterr()
    assert main(["status", *data]) == 2
    err = capsys.readouterr().err
    assert "one of the 2 graphs" in err and "'demo', 'other'" in err and "graphrag-agents graphs" in err, err

    run = subprocess.run([sys.executable, "-m", "graphrag_agents.cli.mcp_command", "--graph", "dmeo", *data],
                         env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}, cwd=tmp_path,
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    # Before: "graph 'dmeo' does not exist yet ... (graphrag-agents ingest ... --graph dmeo)".
    assert "which holds: demo, other" in run.stderr and "--graph dmeo" not in run.stderr, run.stderr


def test_bars_label_elapsed_and_left_and_finalize_moves_per_batch(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    with Progress(True, console=Console(file=out, force_terminal=True, width=160)) as bars:
        bars.add("x", "Embedding chunks", total=600)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    # Before: "0/600 0% 0:00:04 left -:--:--", read as four seconds left.
    assert re.search(r"0/600\s+0%\s+elapsed 0:00:0\d\s+left -:--:--", text), text

    from graphrag_agents.ingest.embedding import embed_missing
    from graphrag_agents.kg import KnowledgeGraph

    async def go() -> list[int]:
        done: list[int] = []
        async with await KnowledgeGraph.open(graph="bars", data_dir=str(tmp_path / "data")) as kg:
            await kg.ingest(text=" ".join(f"Sentence number {i} is here." for i in range(200)), document_id="d",
                            plan=_fixed_plan())
            await embed_missing(kg.store, kg.embedder, lambda kind, n: done.append(n) if kind == "chunks" else None)
        return done

    import asyncio

    done = asyncio.run(go())
    # Before: one update per 256-row window (0% until the window was written).
    assert len(done) > 2 and done == sorted(done) and done[0] < done[-1], done


def _fixed_plan() -> IngestPlan:
    return IngestPlan(chunker="fixed", chunk_params={"size": 50, "overlap": 0}, extractor="none")  # ~110 chunks


def test_ingest_json_is_still_json_with_skipped_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("Alan Turing worked at Bletchley Park.", encoding="utf-8")
    (tmp_path / "docs" / "c.csv").write_text("a,b\n", encoding="utf-8")
    assert main(["ingest", str(tmp_path / "docs"), "-r", "--extractor", "none", "--json", "--data-dir",
                 str(tmp_path / "data")]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out[:captured.out.rindex("}") + 1])["documents"][0]["status"] == "ingested"
    assert "skipped 1 file" in captured.err


def test_cli_rough_edges(capsys: pytest.CaptureFixture[str]) -> None:
    from graphrag_agents.cli.commands import _parser, suggest_option

    parser, _ = _parser()
    # Before: argparse said "unrecognized arguments" with no suggestion (Python < 3.14).
    assert suggest_option(parser, ["retrieve", "q", "--top_k", "3"]) == "unknown option --top_k; did you mean --top-k?"
    suggestion = suggest_option(parser, ["ingest", "x", "--chunkr=fixed"])
    assert suggestion == "unknown option --chunkr; did you mean --chunker?"
    assert suggest_option(parser, ["retrieve", "q", "--top", "3"]) is None  # a unique prefix argparse accepts
    with pytest.raises(SystemExit) as exit_:
        main(["finalize", "--qiuet"])
    assert exit_.value.code == 2 and "did you mean --quiet?" in capsys.readouterr().err
    assert parser.parse_args(["finalize", "-q"]).quiet  # before: refused
    subcommands = next(a for a in parser._actions if isinstance(a, __import__("argparse")._SubParsersAction))
    helps = {name: p.format_help() for name, p in subcommands.choices.items()}
    assert "--graph" not in helps["graphs"]
    assert "graph name (default: 'demo')" in helps["demo"]
    assert "GRAPHRAG_GRAPH or 'default'" not in helps["eval"]
    for name, flag in (("retrieve", "--top-k"), ("retrieve", "--expand-hops"), ("ingest", "--chunker"),
                       ("ingest", "--resolver")):
        action = next(a for a in subcommands.choices[name]._actions if flag in a.option_strings)
        assert action.help, (name, flag)
    run = subprocess.run([sys.executable, "-m", "graphrag_agents.cli.mcp_command", "--version"], capture_output=True,
                         text=True, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}, timeout=60)
    assert run.returncode == 0 and run.stdout.startswith("graphrag-mcp "), run.stderr  # before: refused


def test_the_bundled_demo_text_has_no_dump_artefacts() -> None:
    from importlib import resources

    text = resources.files("graphrag_agents.data").joinpath("demo_corpus.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    # Before: "Neil Ellwood Peart, {'1': ", '2': ", '3': ", '4': "} ( ; born September 12, 1952)".
    artefacts = re.compile(r"\{'\d+':|\(\s*[;,]|\(\s*\)")
    assert len(rows) == 30 and not [r["title"] for r in rows if artefacts.search(r["text"])]


def test_importing_litellm_turns_its_banner_off(monkeypatch: pytest.MonkeyPatch) -> None:
    import litellm

    from graphrag_agents.cli.first_run import model_down_hint
    from graphrag_agents.models._litellm_retry import import_litellm

    monkeypatch.setattr(litellm, "suppress_debug_info", False)  # as in a fresh process
    assert import_litellm().suppress_debug_info is True  # before: only ChatModel.complete set it, not ChatLiteLLM
    monkeypatch.setenv("GRAPHRAG_MODEL", "openai/local")
    monkeypatch.setenv("OPENAI_API_BASE", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("GRAPHRAG_API_BASE", raising=False)
    assert model_down_hint().startswith("check that the model openai/local is up at the server at http://127.0.0.1:9")


@pytest.mark.slow  # about 20 s: the OpenAI client's own retries against a closed port
def test_a_model_that_is_down_gets_no_litellm_banner_and_a_hint(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import litellm

    monkeypatch.setattr(litellm, "suppress_debug_info", False)  # as in a fresh process
    monkeypatch.setenv("GRAPHRAG_MODEL", "openai/local")
    monkeypatch.setenv("OPENAI_API_BASE", "http://127.0.0.1:9/v1")  # nothing listens there
    monkeypatch.setenv("OPENAI_API_KEY", "unused")
    monkeypatch.delenv("GRAPHRAG_API_BASE", raising=False)
    note = tmp_path / "note.txt"
    note.write_text("Grace Hopper joined the United States Navy.", encoding="utf-8")
    data = ["--data-dir", str(tmp_path / "data")]
    assert main(["ingest", str(note), "--extractor", "none", "-q", *data]) == 0
    assert main(["finalize", "-q", *data]) == 0
    capsys.readouterr()
    assert main(["ask", "Which navy did Grace Hopper join?", "--mode", "retrieve_first", *data]) == 2
    captured = capsys.readouterr()
    # Before: litellm's "Give Feedback / Get Help" banner on stdout, and no hint line.
    assert "Give Feedback" not in captured.out + captured.err
    assert "hint: check that the model openai/local is up at the server at http://127.0.0.1:9/v1" in captured.err


def test_a_closed_pipe_ends_quietly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    note = tmp_path / "note.txt"
    note.write_text("Grace Hopper joined the United States Navy.", encoding="utf-8")
    data = ["--data-dir", str(tmp_path / "data")]
    assert main(["ingest", str(note), "--extractor", "none", "-q", *data]) == 0
    assert main(["finalize", "-q", *data]) == 0
    out = capsys.readouterr().out
    # Before: "merged 0 duplicate entities" though the label vote had folded some.
    assert re.search(r"merged \d+ duplicate entit(?:y|ies) \(\d+ Unknown into the typed entity of the same name, \d+ "
                     r"typed differently in different sentences into the type given most often\)", out), out
    read, write = __import__("os").pipe()
    __import__("os").close(read)  # as `| head` does once it has its lines: every write now fails
    child = subprocess.run([sys.executable, "-m", "graphrag_agents.cli", "status", *data], stdout=write,
                           stderr=subprocess.PIPE, text=True, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
                           timeout=120)
    __import__("os").close(write)
    # Before: a BrokenPipeError traceback.
    assert child.returncode == 0 and "Traceback" not in child.stderr and "BrokenPipe" not in child.stderr, \
        child.stderr


def test_entities_into_a_closed_pipe_ends_quietly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from graphrag_agents.ingest.extract_ner import spacy_available

    if not spacy_available():
        pytest.skip("entities need the ner extractor here")
    note = tmp_path / "note.txt"
    note.write_text("Grace Hopper joined the United States Navy. Alan Turing worked at Bletchley Park in England.",
                    encoding="utf-8")
    data = ["--data-dir", str(tmp_path / "data")]
    assert main(["ingest", str(note), "--extractor", "ner", "-q", *data]) == 0
    assert main(["entities", *data]) == 0
    assert "Grace Hopper\tPerson" in capsys.readouterr().out
    # The issue's `graphrag-agents entities | head`, as `head` leaves it: the reader gone before the output ends.
    child = subprocess.Popen([sys.executable, "-m", "graphrag_agents.cli", "entities", *data], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()
    err = child.stderr.read().decode()
    assert child.wait(timeout=120) == 0 and "Traceback" not in err and "BrokenPipe" not in err, err


def test_finalize_names_what_removed_entities(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    from graphrag_agents.ingest.records import ChunkRecord, DocumentBatch, DocumentRecord, EntityRecord, entity_id
    from graphrag_agents.ingest.writer import write_document
    from graphrag_agents.kg import KnowledgeGraph

    async def write() -> None:  # the ner extractor typed one name two ways in two sentences, as in the issue
        async with await KnowledgeGraph.open(graph="default", data_dir=str(tmp_path / "data")) as kg:
            chunks = [ChunkRecord(f"a#{i}", i, f"Toto played in sentence {i}.") for i in range(3)]
            records = [EntityRecord(entity_id(label, "Toto"), label, "Toto", "", [chunks[i].id])
                       for i, label in enumerate(("Organization", "Organization", "Person"))]
            plan = json.dumps({"extractor": "ner"}, sort_keys=True)
            await write_document(kg.store, DocumentBatch(DocumentRecord("a", "a", "h", metadata={"plan": plan}),
                                                         chunks, records))

    asyncio.run(write())
    data = ["--data-dir", str(tmp_path / "data")]
    assert main(["status", *data]) == 0
    assert "2 entities" in capsys.readouterr().out
    assert main(["finalize", "-q", *data]) == 0
    out = capsys.readouterr().out
    # Before: "merged 0 duplicate entities" while the count fell from 2 to 1 (and "1 duplicate entities" after).
    assert "merged 1 duplicate entity (0 Unknown into the typed entity of the same name, 1 typed differently in " \
           "different sentences into the type given most often)" in out and "1 entities" in out, out
