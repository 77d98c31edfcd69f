"""What the answer-fit rules read and report: the evidence items the drafting turn showed, and one finding."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["FitProblem", "FitRule", "ShownItem"]

FitRule = Literal["echo", "choice", "anchor", "coverage", "kind", "order", "bridge"]


@dataclass(frozen=True)
class ShownItem:
    """An item of evidence the drafting turn showed: its number, its passage title ('' for a fact) and text."""

    n: int
    title: str
    text: str


@dataclass(frozen=True)
class FitProblem:
    """One rule the answer breaks, with the words the revision turn tells the model."""

    rule: FitRule
    detail: str
