"""Figures the docs quote come from committed records of real runs.

A doc quotes a summary verbatim between ``<!-- summary: PATH -->`` and ``<!-- end summary -->``; the block must be
the committed file, and every committed ``summary.md`` must be what ``summary_markdown`` renders from the
``summary.json`` beside it, so a figure the run no longer gives cannot stay in the docs.

Every row of the README's "Measured" table names its record (the Record cell's links): the raw printed output of
a benchmark run, ``benchmarks/results/runs/<script>-<short commit>.txt`` whose first line is ``# <command> at
<commit>, <date>``, or a summary file a run wrote. Every number of the row's Result and Baseline cells must occur
in its records, a run file's command and commit must be the row's Command and Commit cells (and its name follow
from them), and the row's commit must be an ancestor of HEAD (skipped where there is no git history). A new
measurement is a new run file and the row's cells changed together.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from graphrag_agents.evaluation.report import summary_markdown

ROOT = Path(__file__).resolve().parents[1]
QUOTE = re.compile(r"<!-- summary: (?P<path>\S+) -->\n(?P<body>.*?)\n<!-- end summary -->", re.S)


def quoted_summaries(text: str) -> list[tuple[str, str]]:
    """(path, quoted text) of every summary block in ``text``."""
    return [(m.group("path"), m.group("body")) for m in QUOTE.finditer(text)]


def stale_quotes(text: str, where: str) -> list[str]:
    """The summary blocks of ``text`` that differ from the committed file they name."""
    problems = []
    for path, body in quoted_summaries(text):
        source = ROOT / path
        if not source.is_file():
            problems.append(f"{where}: quotes {path}, which is not committed")
        elif body.strip() != source.read_text(encoding="utf-8").strip():
            problems.append(f"{where}: its copy of {path} differs from the committed file; paste the file again")
    return problems


def test_docs_quote_the_committed_summaries_verbatim() -> None:
    docs = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "cookbook").rglob("README.md")]
    problems, quoted = [], 0
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        quoted += len(quoted_summaries(text))
        problems += stale_quotes(text, doc.relative_to(ROOT).as_posix())
    assert not problems, "\n".join(problems)
    assert quoted >= 1  # docs/evaluation.md's results


def test_every_committed_summary_md_is_rendered_from_its_json() -> None:
    pairs = [(p, p.with_name("summary.md")) for p in sorted((ROOT / "cookbook").rglob("summary.json"))]
    pairs = [(j, m) for j, m in pairs if m.is_file()]
    assert pairs
    for summary_json, summary_md in pairs:
        rendered = summary_markdown(json.loads(summary_json.read_text(encoding="utf-8")))
        assert rendered == summary_md.read_text(encoding="utf-8"), summary_md.relative_to(ROOT)


def test_a_stale_figure_is_caught() -> None:
    committed = (ROOT / "cookbook/multihop_qa/summary.md").read_text(encoding="utf-8")
    row = re.search(r"^\| retrieve \(all paths\) \| [\d.]+ \|", committed, re.MULTILINE)
    assert row is not None  # the committed summary's retrieve row
    stale = committed.replace(row.group(0), "| retrieve (all paths) | 12.3 |")
    assert stale != committed  # the committed run's figures, as docs/evaluation.md quotes them
    doc = f"<!-- summary: cookbook/multihop_qa/summary.md -->\n{stale}\n<!-- end summary -->\n"
    assert stale_quotes(doc, "x.md") == ["x.md: its copy of cookbook/multihop_qa/summary.md differs from the "
                                         "committed file; paste the file again"]


DEMO_FIGURE_DOCS = ("cookbook/mcp/README.md", "docs/clients/pydantic-ai-mcp.md")
DEMO_TEXT = re.compile(r"(?P<text>\d[\d,]*)\s+(?:for the demo question|characters, within the default)")
DEMO_JSON = re.compile(r"instead of (?P<json>\d[\d,]*) of compact JSON")


def demo_figures() -> dict[str, tuple[int, ...]]:
    """Per doc, the MCP ``retrieve`` figures it quotes for the demo question: (text characters[, JSON characters])."""
    found = {}
    for doc in DEMO_FIGURE_DOCS:
        text = (ROOT / doc).read_text(encoding="utf-8")
        figures = [int(m.group("text").replace(",", "")) for m in DEMO_TEXT.finditer(text)]
        figures += [int(m.group("json").replace(",", "")) for m in DEMO_JSON.finditer(text)]
        found[doc] = tuple(figures)
    return found


def test_the_docs_quote_one_demo_result_size() -> None:
    found = demo_figures()
    assert all(found.values()), found  # each page still quotes the figure this test checks
    assert len({figures[0] for figures in found.values()}) == 1, found


@pytest.mark.slow
def test_the_demo_result_size_the_docs_quote_is_what_the_server_sends(tmp_path: Path) -> None:
    """Builds the real demo graph (30 paragraphs, ner) and asks the demo question through the MCP server."""
    pytest.importorskip("mcp")
    from mcp import Client
    from mcp.types import TextContent

    from graphrag_agents import KnowledgeGraph
    from graphrag_agents.adapters.mcp import RESULT_META_KEY, GraphRAGMCPServer
    from graphrag_agents.cli import main
    from graphrag_agents.cli.commands import _demo_question
    from graphrag_agents.ingest.extract_ner import spacy_available

    if not spacy_available():
        pytest.skip("the demo's figures are measured with the ner extractor")
    assert main(["demo", "--data-dir", str(tmp_path)]) == 0

    async def measure() -> tuple[int, int]:
        kg = await KnowledgeGraph.open(graph="demo", data_dir=str(tmp_path))
        async with kg, Client(GraphRAGMCPServer(kg).server) as client:
            result = await client.call_tool("retrieve", {"question": _demo_question()})
        meta = (result.meta or {})[RESULT_META_KEY]
        block = result.content[0]
        assert isinstance(block, TextContent), block
        return len(block.text), len(json.dumps(meta, separators=(",", ":")))

    text, compact = asyncio.run(measure())
    for doc, figures in demo_figures().items():
        assert figures[0] == text, f"{doc} quotes {figures[0]:,} characters; the server sends {text:,}"
        if len(figures) > 1:
            assert figures[1] == compact, f"{doc} quotes {figures[1]:,} of compact JSON; it is {compact:,}"


# ------------------------------------------------------------------------------------ the README's Measured table

MEASURED_HEADING = "## Measured"
COLUMNS = ("What", "Result", "Baseline, same run", "Command", "Commit", "Record")
RUNS = "benchmarks/results/runs"
RUN_HEADER = re.compile(r"^# (?P<command>.+) at (?P<commit>[0-9a-f]{7,40}), (?P<date>\d{4}-\d{2}-\d{2})$")
CELL_SPLIT = re.compile(r"(?<!\\)\|")
CODE_SPAN = re.compile(r"(`+)(?P<code>.+?)\1")
MD_LINK = re.compile(r"\[[^\]]*\]\((?P<target>[^)\s#]+)[^)]*\)")
# A figure: digits with thousands commas and decimals (".953" too), not glued to a word ("2Wiki", "p50", "@5");
# a trailing "x" (a ratio) or "%" may follow.
FIGURE = re.compile(r"(?<![\w@.])(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?=x\b|%|[^\w]|$)")
ANY_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?|\.\d+")


@dataclass(frozen=True)
class MeasuredRow:
    """One row of the README's Measured table, by column."""

    line: int
    cells: dict[str, str]

    @property
    def records(self) -> list[str]:
        """The committed files the row's figures come from (the Record cell's links, relative to the README)."""
        return MD_LINK.findall(self.cells["Record"])

    @property
    def command(self) -> str:
        spans = [m.group("code") for m in CODE_SPAN.finditer(self.cells["Command"])]
        return " ".join(spans[0].split()) if spans else ""

    @property
    def commit(self) -> str:
        spans = [m.group("code") for m in CODE_SPAN.finditer(self.cells["Commit"])]
        return (spans[0] if spans else self.cells["Commit"]).strip()

    def figures(self) -> list[str]:
        """The numbers of the Result and Baseline cells, code spans (flags, names) left out."""
        text = " ".join(CODE_SPAN.sub(" ", self.cells[c]) for c in ("Result", "Baseline, same run"))
        return FIGURE.findall(text)


def measured_rows(readme: str) -> list[MeasuredRow]:
    """The rows of the first table under the README's "Measured" heading."""
    lines = readme.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(MEASURED_HEADING))
    rows, header = [], None
    for number in range(start + 1, len(lines)):
        line = lines[number]
        if line.startswith("## "):
            break
        if not line.startswith("|"):
            if header:
                break
            continue
        cells = [c.strip() for c in CELL_SPLIT.split(line.strip().strip("|"))]
        if header is None:
            header = cells
            assert tuple(header) == COLUMNS, f"README:{number + 1}: the Measured table's columns are {COLUMNS}"
        elif not set("".join(cells)) <= {"-", " ", ":"}:  # not the separator row
            assert len(cells) == len(header), f"README:{number + 1}: {len(cells)} cells, not {len(header)}"
            rows.append(MeasuredRow(number + 1, dict(zip(header, cells, strict=True))))
    return rows


def _canonical(number: str) -> str:
    number = number.replace(",", "")
    return "0" + number if number.startswith(".") else number


def _in_history(commit: str) -> bool | None:
    """Whether ``commit`` is an ancestor of HEAD; None when git or the history is not there to ask."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return None
    known = subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=ROOT, capture_output=True)
    if known.returncode != 0:
        shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT, capture_output=True,
                                 text=True)
        return None if shallow.stdout.strip() == "true" else False
    return subprocess.run(["git", "merge-base", "--is-ancestor", commit, "HEAD"], cwd=ROOT).returncode == 0


def row_problems(row: MeasuredRow, root: Path = ROOT) -> list[str]:
    """What keeps ``row`` from being backed by its record: a missing file, a number the record does not hold, a
    command or commit other than the run's."""
    where = f"README:{row.line} ({row.cells['What'][:40]}...)"
    if not row.records:
        return [f"{where}: the Record cell links no committed record"]
    problems, text = [], ""
    for record in row.records:
        path = root / record
        if not path.is_file():
            problems.append(f"{where}: its record {record} is not committed")
            continue
        body = path.read_text(encoding="utf-8")
        text += body + "\n"
        if record.startswith(RUNS + "/"):
            header = RUN_HEADER.match(body.splitlines()[0] if body else "")
            if header is None:
                problems.append(f"{where}: {record} does not open with '# <command> at <commit>, <date>'")
                continue
            command, commit = " ".join(header.group("command").split()), header.group("commit")
            script = Path(next((w for w in command.split() if w.endswith(".py")), "x")).stem
            if not re.fullmatch(rf"{re.escape(script)}-{re.escape(commit)}(?:-[\w.-]+)?\.txt", Path(record).name):
                problems.append(f"{where}: {record} should be named {script}-{commit}[-<what>].txt, after its run")
            if row.command != command:
                problems.append(f"{where}: the Command cell is {row.command!r}; {record} ran {command!r}")
            if not (row.commit.startswith(commit) or commit.startswith(row.commit)):
                problems.append(f"{where}: the Commit cell is {row.commit!r}; {record} ran at {commit}")
    held = {_canonical(n) for n in ANY_NUMBER.findall(text)}
    figures = row.figures()
    if not figures:
        problems.append(f"{where}: the Result cell gives no figure")
    missing = [f for f in figures if _canonical(f) not in held]
    if missing and text:
        problems.append(f"{where}: {', '.join(missing)} not in {', '.join(row.records)}")
    return problems


def test_every_measured_figure_is_in_its_record() -> None:
    rows = measured_rows((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(rows) >= 5, "the README's Measured table was not found, or lost its rows"
    problems = [p for row in rows for p in row_problems(row)]
    assert not problems, "\n".join(problems)


def test_every_measured_commit_is_in_the_history() -> None:
    rows = measured_rows((ROOT / "README.md").read_text(encoding="utf-8"))
    found = {row.commit: _in_history(row.commit) for row in rows}
    if None in found.values():
        pytest.skip("no git history here to check the commits against")
    assert all(found.values()), {c: ok for c, ok in found.items() if not ok}


def test_a_figure_absent_from_its_record_is_caught() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = [r for r in measured_rows(readme) if any(rec.startswith(RUNS) for rec in r.records)]
    row = rows[0]
    assert row_problems(row) == []
    first = row.figures()[0]
    record = "".join((ROOT / r).read_text(encoding="utf-8") for r in row.records)
    wrong = next(f"{first}{d}" for d in "987654321" if f"{first}{d}" not in record)  # a figure never printed
    cells = row.cells | {"Result": row.cells["Result"].replace(first, wrong, 1)}
    assert row_problems(MeasuredRow(row.line, cells)) == [
        f"README:{row.line} ({row.cells['What'][:40]}...): {wrong} not in {', '.join(row.records)}"]
    other = MeasuredRow(row.line, row.cells | {"Commit": "`0000000`", "Command": "`python benchmarks/x.py`"})
    assert [p.split(": ", 1)[1].split(";")[0] for p in row_problems(other)] == [
        "the Command cell is 'python benchmarks/x.py'", "the Commit cell is '0000000'"]
    gone = MeasuredRow(row.line, row.cells | {"Record": "[run](benchmarks/results/runs/nothing-0000000.txt)"})
    assert row_problems(gone)[0].endswith("its record benchmarks/results/runs/nothing-0000000.txt is not committed")
