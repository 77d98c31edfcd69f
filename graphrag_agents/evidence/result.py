"""The base of every tool result: its evidence numbers, the text a model reads, a hint naming the next step."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ToolResult", "llm_text"]


def llm_text(result: ToolResult, max_chars: int | None = None) -> str:
    """``result.to_llm_text(max_chars)``, or with the result's own default budget when ``max_chars`` is None
    (4,400 for ``retrieve``, 8,000 for the others)."""
    return result.to_llm_text() if max_chars is None else result.to_llm_text(max_chars)


class ToolResult(BaseModel):
    """Base of every tool result."""

    model_config = ConfigDict(extra="forbid")

    hint: str | None = Field(default=None, description="What to do next, when there is something to say.")

    def evidence_numbers(self) -> list[int]:
        """The evidence numbers this result issued (for citation and MCP truncation)."""
        return []

    def to_llm_text(self, max_chars: int = 8000) -> str:
        """Compact text for a model, at most ``max_chars`` characters."""
        text = self.model_dump_json(exclude_none=True)
        return text if len(text) <= max_chars else text[: max_chars - 1] + "…"

    def _footer(self) -> str:
        return f"Hint: {self.hint}" if self.hint else ""
