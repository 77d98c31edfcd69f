"""Values bound to their subject (issue 47 item 2): a claim pairing a subject with the value a cited passage gives
for another subject is a finding, read from the passage's structure.

The passages are rows of the shared ``techdocs_a`` corpus (npm CLI 11.19.1's docs) copied to
``tests/data/npm_bound_sections.jsonl`` (license in ``tests/data/NOTICE.md``); each test names its row. Each claim
restates a sentence or list item of its row, so every word and value is in the passage: no rule before this one
flags the swapped claims.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from graphrag_agents.citations import _bound, _moved
from graphrag_agents.evidence import Evidence
from graphrag_agents.tools.citations import CitationCheck, check_citations

_ROWS = Path(__file__).parent / "data" / "npm_bound_sections.jsonl"


@cache
def _sections() -> dict[str, str]:
    return {row["id"]: row["text"] for row in map(json.loads, _ROWS.open(encoding="utf-8"))}


def check(answer: str, row_id: str) -> CitationCheck:
    return check_citations(answer, [Evidence(n=1, tool="retrieve", kind="passage", content=_sections()[row_id])])


def subject_findings(result: CitationCheck) -> list[str]:
    return [c.detail for u in result.unsupported for c in u.conflicts if c.rule == "subject"]


@pytest.mark.parametrize(("row_id", "swapped", "kept", "detail"), [
    # using-npm/scripts.md › Exiting: "... to `/bin/sh` on POSIX systems or `cmd.exe` on Windows."
    ("techdocs_a-5a082605a8fe",
     "Scripts are run by passing the line as a script argument to `cmd.exe` on POSIX systems [1].",
     "Scripts are run by passing the line as a script argument to `/bin/sh` on POSIX systems [1].",
     "the claim pairs posix with cmd.exe; the passage gives that for windows and /bin/sh for posix"),
    # commands/npm-bugs.md › `browser`: "* Default: macOS: `"open"`, Windows: `"start"`, Others: `"xdg-open"`"
    ("techdocs_a-b5b9f5e37a54", 'On Windows, the default browser is `"xdg-open"` [1].',
     'On Windows, the default browser is `"start"` [1].',
     'the claim pairs windows with "xdg-open"; the passage gives that for others and "start" for windows'),
    # commands/npm-config.md › `editor`: "'%SYSTEMROOT%\notepad.exe' on Windows, or 'vi' on Unix systems"
    ("techdocs_a-7ea00fda3dd8", "The default editor is 'vi' on Windows [1].",
     "The default editor is 'vi' on Unix systems [1].",
     "the claim pairs windows with vi; the passage gives that for unix and %SYSTEMROOT%\\notepad.exe for windows"),
    # commands/npm-access.md › `json`: the list "* Default: false" / "* Type: Boolean"
    ("techdocs_a-6a1c62b21882", "* Default: Boolean [1]", "* Default: false [1]",
     "the claim pairs default with Boolean; the passage gives that for type and false for default"),
])
def test_a_value_the_passage_gives_for_another_subject(row_id: str, swapped: str, kept: str, detail: str) -> None:
    result = check(swapped, row_id)
    assert subject_findings(result) == [detail], result.unsupported
    assert check(kept, row_id).verified, check(kept, row_id).unsupported


def test_the_rule_is_what_flags_the_swap(monkeypatch: pytest.MonkeyPatch) -> None:
    # with the rule off, the swapped claim passes every other rule but the moved-name rule (which reads the same
    # swap as `cmd.exe` put in the place of `/bin/sh`): each of its words and values is in the row
    monkeypatch.setattr(_bound, "ENABLED", False)
    monkeypatch.setattr(_moved, "ENABLED", False)
    assert check("Scripts are run by passing the line as a script argument to `cmd.exe` on POSIX systems [1].",
                 "techdocs_a-5a082605a8fe").verified


def test_a_clause_naming_both_subjects_or_none_binds_nothing() -> None:
    # the sentence of techdocs_a-5a082605a8fe as written, with its pairs in another order, and a clause naming no
    # subject: none pairs a subject with another's value
    row_id = "techdocs_a-5a082605a8fe"
    assert check("Scripts are run with `cmd.exe` on Windows or `/bin/sh` on POSIX systems [1].", row_id).verified
    assert check("Scripts are run by passing the line as a script argument to `/bin/sh` on POSIX systems or "
                 "`cmd.exe` on Windows [1].", row_id).verified
    assert not subject_findings(check("A script may be run by `cmd.exe` [1].", row_id))
