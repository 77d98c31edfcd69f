"""The docs match the code: their Python blocks run, and every command-line flag they name exists.

Python blocks (```python in README.md, docs/*.md and cookbook/README.md) run against the session's embedded
FalkorDB (``GRAPHRAG_HOME`` = ``data_dir``), each in a temporary working folder, with top-level ``await``. A block
runs as it is unless :data:`PLANS` says otherwise: the names its prose hands it (``kg``, ``model``), a set-up (a
stand-in for a hosted model), the results its comments state; :data:`SKIPPED` lists blocks that cannot run offline.

Commands (fenced shell lines and inline code spans) are checked against the parsers the entry points of
``[project.scripts]`` build; ``python script.py --flag`` against the script's ``add_argument`` calls; ``pip
install '.[extra]'`` against the extras. A bare flag span (`` `--quiet` ``) belongs to the command named before it
on its line, else in its section (fenced commands first), else in the document's title.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import inspect
import io
import json
import re
import shlex
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fake_chat import ScriptedChatModel, evidence_number, last_tool_text, tool_call
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from test_loaders import make_pdf
from test_mcp_http import serving

from graphrag_agents import KnowledgeGraph
from graphrag_agents.adapters.mcp import GraphRAGMCPServer
from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.models.chat import ChatModel
from graphrag_agents.retrieval.hits import PassageHit

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md")),
        "cookbook/README.md"]
FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)\s*$")
HEADING = re.compile(r"^(#{1,6})\s")
SPAN = re.compile(r"(`+)(.+?)\1")


# ---------------------------------------------------------------------------------------------------- Markdown


@dataclass(frozen=True)
class Block:
    """A fenced code block of a doc."""

    doc: str
    lang: str
    line: int
    """1-based line of its first code line."""
    code: str
    index: int
    """1-based among the doc's blocks of the same language."""

    @property
    def id(self) -> str:
        return f"{self.doc}#{self.index}"


@dataclass(frozen=True)
class Line:
    """A line of a doc outside fenced blocks (or a logical line inside a non-Python one)."""

    number: int
    section: int
    text: str
    fenced: bool


def read_doc(doc: str) -> tuple[list[Block], list[Line], str]:
    """The doc's fenced blocks, its lines with their section numbers, and its title line."""
    blocks: list[Block] = []
    lines: list[Line] = []
    counts: dict[str, int] = {}
    section, title = 0, ""
    fence: tuple[str, str, int, list[str]] | None = None
    for number, text in enumerate((ROOT / doc).read_text(encoding="utf-8").splitlines(), start=1):
        opened = FENCE.match(text)
        if fence is None and opened:
            fence = (opened.group(1), opened.group(2).lower(), number + 1, [])
        elif fence is not None and text.strip() == fence[0]:
            _, lang, start, body = fence
            counts[lang] = counts.get(lang, 0) + 1
            blocks.append(Block(doc, lang, start, "\n".join(body) + "\n", counts[lang]))
            if lang != "python":
                logical = ""
                for offset, row in enumerate(body):
                    logical += row[:-1] + " " if row.endswith("\\") else row
                    if not row.endswith("\\"):
                        lines.append(Line(start + offset, section, logical, True))
                        logical = ""
            fence = None
        elif fence is not None:
            fence[3].append(text)
        else:
            if heading := HEADING.match(text):
                section += 1
                title = title or (text if len(heading.group(1)) == 1 else "")
            lines.append(Line(number, section, text, False))
    return blocks, lines, title


def python_blocks() -> list[Block]:
    return [b for doc in DOCS for b in read_doc(doc)[0] if b.lang == "python"]


# ------------------------------------------------------------------------------------------ the shared graph

DEMO_GRAPH = "demo"  # what agent.md's block opens (`graphrag-agents demo` builds a graph of this name)
DEMO_DOCS = {
    "rush": "Rush was a Canadian rock band formed in Toronto in 1968. Neil Peart was the drummer of Rush from 1974.",
    "counterparts": "Counterparts is the fifteenth studio album by the Canadian rock band Rush, released in 1993.",
}
QUESTION = "Which band did Neil Peart play in?"
DRUMMER = "Neil Peart was the drummer of Rush"


@pytest.fixture(scope="module")
async def demo_kg(data_dir: Path, embedder: Any) -> AsyncIterator[KnowledgeGraph]:
    """A two-document graph about Rush on the session's server, shared by the blocks that read a graph."""
    kg = await KnowledgeGraph.open(graph=DEMO_GRAPH, data_dir=str(data_dir), embedder=embedder)
    try:
        if await kg.store.exists():
            await kg.store.delete()
        for doc_id, text in DEMO_DOCS.items():
            await kg.ingest(text=text, document_id=doc_id, plan=IngestPlan(extractor="ner"), progress=False)
        await kg.finalize(progress=False)
        yield kg
    finally:
        await kg.store.delete()
        await kg.close()


def scripted_model(prefix: str = "") -> ScriptedChatModel:
    """A chat model that calls retrieve (``prefix`` + retrieve), then cites the passage naming Rush's drummer."""
    return ScriptedChatModel(steps=[
        AIMessage(content="", tool_calls=[tool_call(f"{prefix}retrieve", {"question": QUESTION})]),
        lambda messages: AIMessage(content="Neil Peart played in Rush "
                                   f"[{evidence_number(last_tool_text(messages, prefix + 'retrieve'), DRUMMER)}]."),
    ])


def pydantic_ai_model(prefix: str = "") -> Any:
    """A pydantic-ai FunctionModel doing the same: retrieve, then the cited answer."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    def reply(messages: list[Any], info: AgentInfo) -> ModelResponse:
        returned = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts
                    if isinstance(p, ToolReturnPart)]
        if not returned:
            return ModelResponse(parts=[ToolCallPart(f"{prefix}retrieve", {"question": QUESTION})])
        n = evidence_number(returned[-1].model_response_str(), DRUMMER)
        return ModelResponse(parts=[TextPart(f"Neil Peart played in Rush [{n}].")])

    return FunctionModel(reply)


def call_model_node() -> Callable[[dict[str, Any]], Awaitable[dict[str, list[BaseMessage]]]]:
    """A model node of the reader's own graph, as the citation_gate block assumes one."""
    model = scripted_model()

    async def call_model(state: dict[str, Any]) -> dict[str, list[BaseMessage]]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    return call_model


# ------------------------------------------------------------------------------------------------ the plans


@dataclass(frozen=True)
class Plan:
    """How one Python block runs (a block with no plan runs as it is, with nothing given)."""

    given: tuple[str, ...] = ()
    """Names the block's prose says the reader already has; see ``_given``."""
    setup: Callable[[Path, pytest.MonkeyPatch], None] | None = None
    check: Callable[[dict[str, Any], str], Awaitable[None] | None] | None = None
    """Asserts what the block's comments state, from its namespace and its printed output."""
    excerpt_of: str | None = None
    """The block quotes this file: each of its code lines must be a line of it."""
    model: Callable[[], Any] = scripted_model
    """What the given ``model`` is: a scripted LangChain chat model unless the block is for another framework."""
    serve_mcp: bool = False
    """Serve the shared graph over MCP (streamable HTTP, read-only) while the block runs; ``url`` is its endpoint."""
    mcp_token: str | None = None
    """The bearer token that server requires (``GRAPHRAG_MCP_TOKEN`` holds it while the block runs)."""


def _check_readme(ns: dict[str, Any], out: str) -> None:
    # numbered evidence: a passage's text is on the line under its number
    assert re.search(r"^\[\d+\] .*\n?.*Alice Smith works at Acme Corp", out, re.M), out
    assert out.splitlines()[-1] == "True []"  # the comment: True []


def _check_citations(ns: dict[str, Any], out: str) -> None:
    check = ns["check"]
    assert check.grounded is True and check.cited == [1] and check.invalid == [7]
    assert "[7]" not in check.answer
    assert check.uncited == ["Bob left."]
    [claim] = check.unsupported
    assert (claim.sentence, claim.cited, claim.missing_figures) == ("She joined in 2021 [1].", [1], ["2021"])
    assert check.suggested == []  # none here: no Bob
    assert "Removed invalid citations [7]" in out


def _check_ingestion(ns: dict[str, Any], out: str) -> None:
    report = ns["report"]
    assert [(d.document_id, d.status) for d in report.documents] == [
        ("reports/q1.pdf", "ingested"), ("notes/a.md", "ingested")]
    assert report.pruned.entity_types == {"Company": 1}  # the fake model's Bayer: a type the ontology lacks
    assert "Company" in json.dumps(report.pruned.set_ontology_call) and report.hint


def _check_retrieval(ns: dict[str, Any], out: str) -> None:
    hits = ns["hits"]
    assert {h.path for h in hits.entities} <= {"exact_names", "fuzzy_names"} and hits.entities
    assert {h.path for h in hits.facts} <= {"facts"} and hits.facts
    assert all(h.path == "links" and 1 <= h.hop <= 2 for h in hits.relations)
    assert hits.passages and all(isinstance(h, PassageHit) for h in hits.passages)
    everything = [*hits.entities, *hits.facts, *hits.relations, *hits.passages]
    assert hits.best_score == max(h.score for h in everything)


def _check_agent(ns: dict[str, Any], out: str) -> None:
    assert not ns["result"].abstained
    assert out.startswith("Neil Peart played in Rush [") and "Sources:" in out


async def _check_langgraph_client(ns: dict[str, Any], out: str) -> None:
    assert ns["answer"].startswith("Neil Peart played in Rush [") and ns["check"].grounded
    assert [t.name for t in ns["tools"]][:1] == ["kg_status"] and out.strip().endswith("True")


def _check_names(ns: dict[str, Any], out: str) -> None:
    refused, names = out.strip().splitlines()
    assert refused.startswith("Duplicate tool names in the tools for LangChain: retrieve. Fix: ")
    assert "prefix" in refused
    assert names.startswith("['retrieve', 'kg_status'") and names.endswith("'kg_check_citations']")


def _check_pydantic_ai_client(ns: dict[str, Any], out: str) -> None:
    assert ns["result"].output.startswith("Neil Peart played in Rush [") and ns["check"].grounded
    assert out.strip().endswith("True")


def _check_pydantic_ai_mcp(ns: dict[str, Any], out: str) -> None:
    assert out.startswith("Neil Peart played in Rush ["), out


async def _check_gate(ns: dict[str, Any], out: str) -> None:
    state = await ns["graph"].ainvoke({"messages": [HumanMessage(QUESTION)]})
    assert state["abstained"] is False and state["answer"].startswith("Neil Peart played in Rush [")
    assert state["sources"] and all(DRUMMER in s["content"] for s in state["sources"])


def _fake_extractor(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The files ingestion.md's block names, and a stand-in for the hosted model its llm extractor calls."""
    (tmp / "reports").mkdir()
    (tmp / "reports" / "q1.pdf").write_bytes(make_pdf(["Aspirin treats headache. Bayer makes Aspirin."]))
    (tmp / "notes").mkdir()
    (tmp / "notes" / "a.md").write_text("# Notes\n\nIbuprofen treats fever.\n", encoding="utf-8")

    async def complete(self: ChatModel, messages: Any, *, json_mode: bool = False) -> str:
        self.usage.calls += 1
        text = messages[-1]["content"]
        entities, relations = [], []
        for sentence in re.findall(r"[^.]+\.", text):
            if found := re.search(r"(\w+) (treats|makes) (\w+)", sentence):
                source, verb, target = found.groups()
                types = ("Drug", "Disease") if verb == "treats" else ("Company", "Drug")
                entities += [{"name": source, "type": types[0]}, {"name": target, "type": types[1]}]
                relations.append({"source": source, "target": target, "type": verb.upper(),
                                  "fact": sentence.strip()})
        return json.dumps({"entities": entities, "relations": relations})

    monkeypatch.setenv("GRAPHRAG_MODEL", "scripted/extractor")
    monkeypatch.setattr(ChatModel, "complete", complete)


# Blocks that cannot run offline, each with the reason (reviewed). None at present: a block that needs a hosted
# model gets a stand-in through its Plan instead (agent.md: a scripted chat model; ingestion.md: a scripted
# extractor behind ChatModel). Add a block here only when no stand-in can run it.
SKIPPED: dict[str, str] = {}

MCP_TOKEN = "docs-snippet-token-0123456789"  # the block must send it: the server answers 401 without it

PLANS: dict[str, Plan] = {
    "README.md#1": Plan(check=_check_readme),
    "docs/agent.md#1": Plan(given=("model",), check=_check_agent),
    "docs/agent.md#2": Plan(given=("kg", "call_model"), check=_check_gate),
    "docs/citations.md#1": Plan(check=_check_citations),
    "docs/ingestion.md#1": Plan(setup=_fake_extractor, check=_check_ingestion),
    "docs/retrieval.md#1": Plan(given=("kg",), check=_check_retrieval),
    "cookbook/README.md#1": Plan(excerpt_of="cookbook/langgraph_drop_in.py"),
    "docs/clients/langgraph.md#1": Plan(given=("kg", "model"), model=lambda: scripted_model("kg_"),
                                        check=_check_langgraph_client),
    "docs/clients/langgraph.md#2": Plan(given=("kg",), check=_check_names),
    "docs/clients/pydantic-ai.md#1": Plan(given=("kg", "model"), model=lambda: pydantic_ai_model("kg_"),
                                          check=_check_pydantic_ai_client),
    # langchain-mcp-adapters pins mcp<2: the quoted script runs in its own environment (test_mcp_per_call_sessions)
    "docs/clients/langchain-mcp-adapters.md#1": Plan(excerpt_of="cookbook/mcp/langchain_mcp_adapters_client.py"),
    "docs/clients/pydantic-ai-mcp.md#1": Plan(given=("url", "model"), model=pydantic_ai_model, serve_mcp=True,
                                              mcp_token=MCP_TOKEN, check=_check_pydantic_ai_mcp),
}


def _given(name: str, demo: KnowledgeGraph, plan: Plan, url: str | None = None) -> Any:
    if name == "url":
        assert url is not None, "a block given `url` needs serve_mcp=True"
        return url
    return {"kg": lambda: demo, "model": plan.model, "call_model": call_model_node}[name]()


def test_every_plan_names_a_block() -> None:
    ids = {b.id for b in python_blocks()}
    assert set(PLANS) | set(SKIPPED) <= ids, "a plan or skip names a block that no longer exists"
    assert not set(PLANS) & set(SKIPPED)
    assert len(ids) >= 7, ids  # README, agent.md x2, citations, ingestion, retrieval, cookbook: all found


def _code_lines(code: str) -> list[str]:
    lines = (line.split("#", 1)[0].strip() for line in code.splitlines())
    return [" ".join(line.split()) for line in lines if line]


SCRIPT_ENTRY = "asyncio.run(main())"
"""A block that ends so is a whole script; here it runs on the test's event loop (``await main()`` instead)."""


async def _run(block: Block, namespace: dict[str, Any]) -> None:
    source = block.code
    if source.rstrip().endswith(SCRIPT_ENTRY):
        compile(source, "script.py", "exec")  # as saved to a file: no top-level await (a SyntaxError there)
        source = source.rstrip()[:-len(SCRIPT_ENTRY)] + "await main()\n"
    # Padded so that a traceback names the doc's own line numbers.
    code = compile("\n" * (block.line - 1) + source, str(ROOT / block.doc), "exec",
                   flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(code, namespace)  # the doc's own code, top-level await allowed
    if inspect.iscoroutine(result):
        await result


async def _drop_graph(name: str, data_dir: Path, embedder: Any) -> None:
    kg = await KnowledgeGraph.open(graph=name, data_dir=str(data_dir), embedder=embedder)
    try:
        if await kg.store.exists():
            await kg.store.delete()
    finally:
        await kg.close()


@pytest.mark.parametrize("block", python_blocks(), ids=lambda b: b.id)
async def test_python_block_runs(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path,
                                 embedder: Any, demo_kg: KnowledgeGraph, capsys: pytest.CaptureFixture[str]) -> None:
    if block.id in SKIPPED:
        pytest.skip(SKIPPED[block.id])
    plan = PLANS.get(block.id, Plan())
    if plan.excerpt_of:
        source = set(_code_lines((ROOT / plan.excerpt_of).read_text(encoding="utf-8")))
        missing = [line for line in _code_lines(block.code) if line not in source]
        assert not missing, f"{block.id} quotes lines that {plan.excerpt_of} does not have: {missing}"
        return
    monkeypatch.chdir(tmp_path)  # ./.graphrag and relative paths stay in the test's folder
    monkeypatch.setenv("GRAPHRAG_HOME", str(data_dir))
    monkeypatch.setattr("graphrag_agents.kg.embedder_from_env", lambda: embedder)  # the default, loaded once
    if plan.setup:
        plan.setup(tmp_path, monkeypatch)
    if plan.mcp_token:
        monkeypatch.setenv("GRAPHRAG_MCP_TOKEN", plan.mcp_token)
    async with contextlib.AsyncExitStack() as stack:
        server = GraphRAGMCPServer(demo_kg, read_only=True, token=plan.mcp_token)
        url = await stack.enter_async_context(serving(server)) if plan.serve_mcp else None
        await _run_planned(block, plan, demo_kg, url, data_dir, embedder, capsys)


async def _run_planned(block: Block, plan: Plan, demo_kg: KnowledgeGraph, url: str | None, data_dir: Path,
                       embedder: Any, capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict[str, Any] = {"__name__": "__doc__"} | {n: _given(n, demo_kg, plan, url) for n in plan.given}
    capsys.readouterr()
    try:
        await _run(block, namespace)
        out = capsys.readouterr().out
        if plan.check and inspect.isawaitable(checked := plan.check(namespace, out)):
            await checked
    finally:
        for value in namespace.values():
            if isinstance(value, KnowledgeGraph) and value is not demo_kg:
                await value.close()
        for name in set(re.findall(r"graph=\"(\w+)\"", block.code)) - {DEMO_GRAPH}:
            await _drop_graph(name, data_dir, embedder)


# ------------------------------------------------------------------------------------------------ commands


class _Captured(Exception):
    """Raised instead of parsing, to hand the parser an entry point built."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def parsers() -> dict[str, argparse.ArgumentParser]:
    """The parser each ``[project.scripts]`` entry point builds, caught as it starts parsing."""

    def capture(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        raise _Captured(self)

    found = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(argparse.ArgumentParser, "parse_args", capture)
        for name, target in _pyproject()["project"]["scripts"].items():
            module, _, attr = target.partition(":")
            try:
                getattr(importlib.import_module(module), attr)([])
            except _Captured as caught:
                found[name] = caught.parser
    return found


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _script_flags(path: Path) -> set[str]:
    """The option strings of every ``add_argument`` call in a script."""
    flags = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument":
            flags |= {a.value for a in node.args if isinstance(a, ast.Constant) and str(a.value).startswith("-")}
    return flags


@dataclass
class Command:
    """One command a doc names: its program (``graphrag-agents ingest``, ``python x.py``) and arguments."""

    program: str
    args: list[str]
    options: dict[str, argparse.Action | None] = field(default_factory=dict)
    """Option string -> action (None: a script's flag, checked by name only)."""
    parser: argparse.ArgumentParser | None = None
    argv: list[str] = field(default_factory=list)
    """What to hand ``parser.parse_args`` for a full command line."""


PROGRAM = re.compile(r"^(?:[\w./-]*/)?(graphrag-agents|graphrag-mcp|python3?|pip)$")
ENV_ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")
FLAG = re.compile(r"^-{1,2}[A-Za-z][\w-]*")


def _tokens(text: str) -> list[list[str]]:
    """Shell words of ``text`` split into simple commands (``&&``, ``;``, ``|``), brackets of a synopsis dropped."""
    try:
        words = shlex.split(text.replace("\\|", "|"), comments=True)
    except ValueError:
        return []
    commands: list[list[str]] = [[]]
    for word in words:
        if word in {"&&", "||", ";", "|"}:
            commands.append([])
        elif word.strip("[]"):
            commands[-1].append(word.strip("[]"))
    return [c for c in commands if c]


class Checker:
    """Checks the commands of one doc and collects what is wrong."""

    def __init__(self, doc: str, parsers: dict[str, argparse.ArgumentParser]) -> None:
        self.doc, self.parsers, self.problems = doc, parsers, []
        self.extras = set(_pyproject()["project"]["optional-dependencies"])

    def problem(self, line: Line, text: str) -> None:
        self.problems.append(f"{self.doc}:{line.number}: {text}")

    def command(self, words: list[str], line: Line) -> Command | None:
        """The command ``words`` run, or None when it is not one the docs' checks know."""
        while words and ENV_ASSIGNMENT.match(words[0]):
            words = words[1:]
        program = PROGRAM.match(words[0]) if words else None
        if program is None:
            return None
        name, rest = program.group(1), words[1:]
        if name == "pip":
            self.check_extras(rest, line)
            return None
        if name.startswith("python"):
            if not rest or not rest[0].endswith(".py"):
                return None
            script = ROOT / rest[0]
            if not script.is_file():
                self.problem(line, f"no script {rest[0]}")
                return None
            return Command(f"python {rest[0]}", rest[1:], dict.fromkeys(_script_flags(script)))
        parser = self.parsers[name]
        subcommands = _subcommands(parser)
        top = {s for a in parser._actions for s in a.option_strings}
        if subcommands and rest and rest[0] in top:  # a program-level flag such as --version
            return Command(name, rest, {s: a for a in parser._actions for s in a.option_strings}, parser, words[1:])
        if subcommands:
            if not rest or rest[0] not in subcommands:
                self.problem(line, f"{name} has no command {rest[0] if rest else '(none given)'!r}")
                return None
            name, sub, rest = f"{name} {rest[0]}", subcommands[rest[0]], rest[1:]
        else:
            sub = parser
        options = {s: a for a in sub._actions for s in a.option_strings}
        return Command(name, rest, options, parser, words[1:])

    def check_extras(self, args: list[str], line: Line) -> None:
        for arg in args:
            if match := re.fullmatch(r"(?:\.|graphrag-agents)\[([\w,-]+)\]", arg):
                for extra in match.group(1).split(","):
                    if extra not in self.extras:
                        self.problem(line, f"pip extra {extra!r} is not in pyproject.toml")

    def check_flags(self, command: Command, args: list[str], line: Line) -> None:
        for i, word in enumerate(args):
            if not FLAG.match(word):
                continue
            flag, _, value = word.partition("=")
            if flag not in command.options:
                self.problem(line, f"{command.program} has no option {flag}")
                continue
            action = command.options[flag]
            if action is None or not action.choices or action.nargs == 0:
                continue
            value = value or (args[i + 1] if i + 1 < len(args) else "")
            wrong = [v for v in value.split("|") if value and not value.startswith("-") and v not in action.choices]
            if wrong:
                self.problem(line, f"{command.program} {flag} takes {sorted(action.choices)}, not {wrong}")

    def parse(self, command: Command, line: Line) -> None:
        """A full command line from a fenced block must parse (positionals and values included)."""
        if command.parser is None:
            return
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):
            command.parser.parse_args(command.argv)
            return  # parsed; argparse exits on an error, and that is reported below
        self.problem(line, f"{command.program} does not parse {command.argv}: {err.getvalue().strip()}")


def check_doc(doc: str, parsers: dict[str, argparse.ArgumentParser]) -> tuple[list[str], int]:
    """The problems of ``doc``'s commands, and how many flags were checked."""
    checker = Checker(doc, parsers)
    _, lines, title = read_doc(doc)
    title_line = Line(1, 0, title, False)
    title_commands = [c for span in SPAN.findall(title) for words in _tokens(span[1])
                      if (c := checker.command(words, title_line))]
    fenced: dict[int, Command] = {}
    inline: dict[int, Command] = {}
    flags = 0
    for line in lines:
        if line.fenced:
            for words in _tokens(line.text):
                if command := checker.command(words, line):
                    checker.check_flags(command, command.args, line)
                    checker.parse(command, line)
                    fenced[line.section] = command
                    flags += sum(bool(FLAG.match(w)) for w in command.args)
            continue
        on_line: Command | None = None
        for _, span in SPAN.findall(line.text):
            span_words = _tokens(span)
            words = span_words[0] if len(span_words) == 1 else []
            if not words:
                continue
            if FLAG.match(words[0]):
                context = (on_line or fenced.get(line.section) or inline.get(line.section)
                           or (title_commands[-1] if title_commands else None))
                if context is None:
                    checker.problem(line, f"{span!r}: a flag, but no command is named on its line, in its section "
                                          "or in the title")
                else:
                    checker.check_flags(context, words, line)
                    flags += sum(bool(FLAG.match(w)) for w in words)
                continue
            if on_line is not None and on_line.program.startswith("graphrag-agents "):
                words = ["graphrag-agents", *words]  # `status` after `graphrag-agents finalize` on one line
                if words[1] not in _subcommands(parsers["graphrag-agents"]):
                    continue
            command = checker.command(words, line)
            if command is not None:
                checker.check_flags(command, command.args, line)
                flags += sum(bool(FLAG.match(w)) for w in command.args)
                on_line = inline[line.section] = command
    return checker.problems, flags


@pytest.mark.parametrize("doc", DOCS)
def test_doc_commands_name_real_flags(doc: str, parsers: dict[str, argparse.ArgumentParser]) -> None:
    problems, _ = check_doc(doc, parsers)
    assert not problems, "\n".join(problems)


def test_command_check_catches_a_renamed_flag(parsers: dict[str, argparse.ArgumentParser]) -> None:
    line = Line(7, 1, "", True)
    checker = Checker("x.md", parsers)
    for words in (["graphrag-agents", "ask", "q", "--min-scor", "0.3"], ["graphrag-mcp", "--transport", "ws"],
                  ["graphrag-agents", "retrieve"], ["graphrag-agents", "serve"]):
        command = checker.command(words, line)
        if command is not None:
            checker.check_flags(command, command.args, line)
            checker.parse(command, line)
    checker.check_extras([".[langchain,nope]"], line)
    assert [p.split(": ", 1)[1].split(":")[0] for p in checker.problems] == [
        "graphrag-agents ask has no option --min-scor",  # argparse itself would take it as --min-score
        "graphrag-mcp --transport takes ['http', 'sse', 'stdio'], not ['ws']",
        "graphrag-mcp does not parse ['--transport', 'ws']",
        "graphrag-agents retrieve does not parse ['retrieve']",
        "graphrag-agents has no command 'serve'",
        "pip extra 'nope' is not in pyproject.toml",
    ]


def test_the_docs_name_flags_at_all(parsers: dict[str, argparse.ArgumentParser]) -> None:
    checked = {doc: check_doc(doc, parsers)[1] for doc in DOCS}
    assert sum(checked.values()) >= 50 and checked["docs/evaluation.md"] >= 15, checked  # a broken regex finds none
