"""Document structure kept: front matter is metadata, and a broken code fence or block keeps the heading trail.

The Markdown cases come from npm 11.19.1's ``docs/content/commands/npm-install.md`` (the source of the shared
``techdocs_a`` corpus; excerpt and license in ``tests/data/NOTICE.md``): its front matter was a passage of its own,
and a fence opened at 4 spaces in a list item and closed at 3 made every fence after it swap sides, so the
sections from ``### Configuration`` on lost their heading trail and ran into each other. The reST cases are
constructed: a literal block and a directive whose indented content holds a Markdown-looking line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_agents.ingest._front_matter import read_front_matter
from graphrag_agents.ingest.chunkers import Chunk, get_chunker
from graphrag_agents.ingest.loaders import DocumentLoadError, load_bytes
from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.kg import KnowledgeGraph

NPM_INSTALL = Path(__file__).parent / "data" / "npm_install_excerpt.md"
CONFIGURATION = ["`save`", "`save-exact`", "`global`", "`install-strategy`", "`legacy-bundling`", "`global-style`"]


def _trails(chunks: list[Chunk]) -> list[list[str]]:
    trails: list[list[str]] = []
    for chunk in chunks:
        if not trails or trails[-1] != chunk.metadata["heading_path"]:
            trails.append(chunk.metadata["heading_path"])
    return trails


def _holding(chunks: list[Chunk], words: str) -> Chunk:
    return next(c for c in chunks if words in c.text)


# ------------------------------------------------------------------------------------------- front matter

def test_npm_front_matter_is_metadata_not_text() -> None:
    """npm-install.md opens with ``title: npm-install``, ``section: 1``, ``description: Install a package``."""
    doc = load_bytes(NPM_INSTALL.read_bytes(), "commands/npm-install.md")
    assert doc.title == "npm-install"
    assert doc.metadata["description"] == "Install a package"
    assert doc.metadata["front_matter_section"] == 1
    assert doc.text.startswith("\n### Synopsis") and "description:" not in doc.text


def test_front_matter_is_in_no_chunk() -> None:
    """Chunked as it stands (the chunker's own ``auto`` syntax too), the block was the first chunk, under no heading."""
    text = NPM_INSTALL.read_text(encoding="utf-8")
    for syntax in ("auto", "markdown"):
        chunks = get_chunker("structural", syntax=syntax).chunk(text)
        assert chunks[0].metadata["heading_path"] == ["Synopsis"], syntax
        assert not any("title: npm-install" in c.text or "section: 1" in c.text for c in chunks)
        assert all(text[c.metadata["start"]:c.metadata["end"]] == c.text for c in chunks)


async def test_front_matter_lands_on_the_document_node(kg: KnowledgeGraph, tmp_path: Path) -> None:
    """Ingested as a file: the fields are Document properties and no passage holds the block."""
    path = tmp_path / "npm-install.md"
    path.write_bytes(NPM_INSTALL.read_bytes())
    report = await kg.ingest(paths=[str(path)], plan=IngestPlan(extractor="none"), progress=False)
    assert [d.status for d in report.documents] == ["ingested"]
    rows = await kg.store.ro_query("MATCH (d:Document {id: $id}) RETURN d.title, d.description, "
                                   "d.front_matter_section, d.path", {"id": str(path)})
    assert rows == [["npm-install", "Install a package", 1, str(path)]]
    texts = await kg.store.ro_query("MATCH (:Document {id: $id})-[:HAS_CHUNK]->(c:Chunk) RETURN c.text, c.heading "
                                    "ORDER BY c.index", {"id": str(path)})
    assert texts[0][1] == "Synopsis"
    assert not any("description: Install" in str(t) for t, _ in texts)


def test_toml_front_matter_and_what_is_not_front_matter() -> None:
    """Hugo's ``+++`` TOML block reads the same way; a page opening with a ``---`` rule keeps it as text."""
    toml = load_bytes(b'+++\ntitle = "Deploy"\nweight = 3\ntags = ["ops", "ci"]\n[params]\nx = 1\n+++\n'
                      b"## Steps\n\nPush the tag.\n", "deploy.md")
    assert (toml.title, toml.text) == ("Deploy", "## Steps\n\nPush the tag.\n")
    assert toml.metadata["front_matter_weight"] == 3 and toml.metadata["front_matter_tags"] == "ops, ci"
    assert "front_matter_x" not in toml.metadata  # a table's key is not the document's
    rule = "---\n\nThe release notes.\n\n---\n"
    assert read_front_matter(rule) is None and load_bytes(rule.encode(), "notes.md").text == rule
    assert read_front_matter("---\ntitle: never closed\n\n## Body\n") is None
    with pytest.raises(DocumentLoadError, match="front matter only"):
        load_bytes(b"---\ntitle: Draft\n---\n\n", "draft.md")


# ------------------------------------------------------------------------------------------- broken fences

def test_npm_list_item_fence_closed_one_space_short_keeps_the_trail() -> None:
    """npm-install.md: ``    ```bash`` (4 spaces, in a ``*`` item) closed by three backticks at 3 spaces."""
    text = NPM_INSTALL.read_text(encoding="utf-8").split("---\n", 2)[2]  # the page without its front matter
    chunks = get_chunker("structural", syntax="markdown").chunk(text)
    how = ["Description", "How `npm install` uses `package-lock.json`"]
    assert _trails(chunks) == [["Synopsis"], ["Description"], how, ["Configuration"],
                               *[["Configuration", name] for name in CONFIGURATION]]
    assert _holding(chunks, "npm install github:mygithubuser/myproject").metadata["heading_path"] == how
    assert _holding(chunks, "npm install sax --force").metadata["heading_path"] == how
    for name in CONFIGURATION:  # each option its own section, none run into its neighbour
        section = [c for c in chunks if c.metadata["heading_path"] == ["Configuration", name]]
        assert section[0].text.startswith(f"#### {name}\n")
        assert all(c.text.count("#### ") <= 1 for c in section)


@pytest.mark.parametrize(("opener", "closer"), [("````markdown", "```"), ("~~~", "```")])
def test_a_fence_never_closed_ends_at_the_next_column0_heading(opener: str, closer: str) -> None:
    """A fence of 4 backticks "closed" by 3, or ~~~ by ```: no line closes it (CommonMark), so it ends before the
    next ATX heading at column 0 instead of hiding every heading after it."""
    text = (f"# Guide\n\nAn example:\n\n{opener}\n## Shown, not a heading\n{closer}\n\n"
            "## Install\n\nRun the installer.\n\n## Usage\n\nRun the tool.\n")
    chunks = get_chunker("structural").chunk(text)
    # the fallback's cost: a column-0 "#" line inside the broken fence counts as a heading
    assert _trails(chunks) == [["Guide"], ["Guide", "Shown, not a heading"], ["Guide", "Install"],
                               ["Guide", "Usage"]]
    assert _holding(chunks, "Run the tool.").metadata["heading_path"] == ["Guide", "Usage"]


def test_an_info_string_after_a_run_does_not_close_a_fence() -> None:
    """```` ```bash ```` inside an open fence is code (CommonMark), so the ``# comment`` after it is no heading."""
    text = "# Guide\n\n```\nmake\n```bash\n# a shell comment\n```\n\n## Next\n\nMore.\n"
    chunks = get_chunker("structural").chunk(text)
    assert _trails(chunks) == [["Guide"], ["Guide", "Next"]]


@pytest.mark.parametrize(("opener", "close"), [("    ```bash", "```"), ("  ```bash", "")])
def test_a_list_item_fence_ends_with_its_item(opener: str, close: str) -> None:
    """Opened under ``* Build:`` at 4 spaces and closed at column 0, or at 2 spaces and never closed: the
    ``## Install`` after it at column 0 ends the item and the fence with it."""
    text = f"# Guide\n\n* Build:\n\n{opener}\n    make\n{close}\n\n## Install\n\nRun the installer.\n"
    chunks = get_chunker("structural").chunk(text)
    assert _trails(chunks) == [["Guide"], ["Guide", "Install"]]
    assert _holding(chunks, "Run the installer.").metadata["heading_path"] == ["Guide", "Install"]


# ------------------------------------------------------------------------------------------- reST blocks

LITERAL = """Testing
=======

Run the suite from a Markdown cell::

  ```
  pytest -q
 the fence above is literal text

Fixtures
--------

Fixtures live in ``conftest.py``.

Markers
-------

Slow tests carry ``@pytest.mark.slow``.
"""

DIRECTIVE = """Deploying
=========

Build the site first.

.. code-block:: bash

   # build the static files
   make html

Configuration
~~~~~~~~~~~~~

Set the output folder in ``conf.py``.

Publishing
~~~~~~~~~~

Copy the folder to the server.
"""


def test_rst_literal_block_that_never_dedents_keeps_the_trail() -> None:
    """A ``::`` literal block indented 2 spaces holding a ```` ``` ```` line, its last line dedented to 1 space
    only: ``auto`` (the chunker's default) read the text as Markdown, opened a fence there and lost every later
    title. Read as reST, any line at column 0 ends the block, so the titles after it count however it ends."""
    for syntax in ("auto", "rst"):
        chunks = get_chunker("structural", syntax=syntax).chunk(LITERAL)
        assert _trails(chunks) == [["Testing"], ["Testing", "Fixtures"], ["Testing", "Markers"]], syntax
        assert _holding(chunks, "pytest -q").metadata["heading_path"] == ["Testing"]


def test_rst_directive_block_keeps_the_trail() -> None:
    """``.. code-block:: bash`` with a ``# build the static files`` line (Sphinx's 3-space indent): ``auto`` read
    it as a Markdown heading and dropped the ``~~~`` titles after it."""
    for syntax in ("auto", "rst"):
        chunks = get_chunker("structural", syntax=syntax).chunk(DIRECTIVE)
        assert _trails(chunks) == [["Deploying"], ["Deploying", "Configuration"], ["Deploying", "Publishing"]]
        assert _holding(chunks, "make html").metadata["heading_path"] == ["Deploying"]


async def test_rst_text_ingested_with_section_chunks_keeps_the_trail(kg: KnowledgeGraph) -> None:
    """Text (not a file) ingested with ``chunker="structural"`` reads its syntax as ``auto`` does."""
    await kg.ingest(text=DIRECTIVE, document_id="deploying", plan=IngestPlan(chunker="structural", extractor="none"),
                    progress=False)
    rows = await kg.store.ro_query("MATCH (:Document {id: 'deploying'})-[:HAS_CHUNK]->(c:Chunk) RETURN c.heading "
                                   "ORDER BY c.index")
    assert [r[0] for r in rows] == ["Deploying", "Deploying > Configuration", "Deploying > Publishing"]
