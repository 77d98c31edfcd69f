"""The MCP client pages show the configs the suite launches: the JSON block of ``docs/clients/claude-code.md`` and
``docs/clients/cursor.md`` is the cookbook file that ``tests/test_mcp_client_configs.py`` starts entry by entry as
Claude Code and Cursor start them (stdio: command, args, env; HTTP: url and bearer header against a server started
with a token). A page whose block drifts from the file would show a config nothing runs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = {"claude_code": "docs/clients/claude-code.md", "cursor": "docs/clients/cursor.md"}
JSON_BLOCK = re.compile(r"^```json\n(?P<body>.*?)^```$", re.S | re.M)


def page_configs(text: str) -> list[object]:
    """Every ```json block of a page, parsed."""
    return [json.loads(m.group("body")) for m in JSON_BLOCK.finditer(text)]


def drift(page_text: str, config: object) -> list[str]:
    """What keeps the page from showing exactly ``config`` (one block, equal once parsed)."""
    blocks = page_configs(page_text)
    if len(blocks) != 1:
        return [f"{len(blocks)} json blocks; the page shows one config"]
    return [] if blocks[0] == config else ["the json block differs from the cookbook file; paste the file again"]


@pytest.mark.parametrize("client", list(PAGES))
def test_the_page_shows_the_config_the_suite_launches(client: str) -> None:
    pytest.importorskip("mcp")
    from test_mcp_client_configs import CONFIGS  # the files test_mcp_client_configs starts

    config = json.loads(CONFIGS[client].read_text(encoding="utf-8"))
    assert drift((ROOT / PAGES[client]).read_text(encoding="utf-8"), config) == []
    assert set(config["mcpServers"]) >= {"graphrag", "graphrag-write", "graphrag-http"}


def test_a_page_that_drifts_is_caught() -> None:
    config = json.loads((ROOT / "cookbook/mcp/cursor.mcp.json").read_text(encoding="utf-8"))
    page = (ROOT / PAGES["cursor"]).read_text(encoding="utf-8")
    assert drift(page, config) == []
    assert drift(page.replace('"--read-only"', '"--write"', 1), config) == [
        "the json block differs from the cookbook file; paste the file again"]
    assert drift(page + "\n```json\n{}\n```\n", config) == ["2 json blocks; the page shows one config"]
