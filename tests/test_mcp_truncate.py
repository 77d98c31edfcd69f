"""Shortening results to the MCP size limit: valid JSON, structure kept, longest lists first, damage reported."""

from __future__ import annotations

import json
from typing import Any

import pytest

from graphrag_agents.adapters.mcp._truncate import ResultTooLarge, json_size, truncate_json
from graphrag_agents.tools.results import OntologyResult, RelationItem, RetrieveResult

LIMIT = 40_000


def _retrieve(passages: int, entities: int = 0, text_chars: int = 2000) -> dict[str, Any]:
    return {
        "hint": None, "question": "q", "paths": ["passages", "exact_names"],
        "entities": [{"n": i, "name": f"E{i}", "label": "Person", "description": "d" * 200, "score": 0.5,
                      "path": "exact_names"} for i in range(1, entities + 1)],
        "relations": [], "facts": [],
        "passages": [{"n": 100 + i, "document_id": "doc", "file": "f.md", "heading": "",
                      "text": "w " * (text_chars // 2), "score": 0.5} for i in range(passages)],
    }



def test_small_results_are_untouched() -> None:
    data = _retrieve(3)
    out = truncate_json(data, LIMIT)
    assert out.data is data and not out.truncated and not out.damaged


def test_longest_list_is_cut_first_and_the_json_stays_valid_under_the_limit() -> None:
    data = _retrieve(passages=60, entities=20)
    out = truncate_json(data, LIMIT, issued={*range(1, 21), *range(100, 160)})
    wire = json.dumps(out.data, ensure_ascii=False, separators=(",", ":"))
    assert len(wire) <= LIMIT and json_size(out.data) == len(wire)
    assert out.data["truncated"] is True
    assert len(out.data["entities"]) == 20, "the short list is left alone while the long one can give"
    kept = [p["n"] for p in out.data["passages"]]
    assert kept == list(range(100, 100 + len(kept))), "trailing (lowest-ranked) items go first"
    assert out.damaged == set(range(100 + len(kept), 160))
    assert "passages (60 → " in out.data["hint"] and f"{len(out.damaged)} evidence items" in out.data["hint"]
    RetrieveResult.model_validate({k: v for k, v in out.data.items() if k != "truncated"})
    assert data["passages"][-1]["n"] == 159, "the input is not modified"


def test_an_existing_hint_is_kept() -> None:
    data = _retrieve(60)
    data["hint"] = "Run finalize."
    assert truncate_json(data, LIMIT).data["hint"].startswith("Run finalize. Result shortened")


def test_a_huge_loose_string_is_cut_before_the_lists_are_emptied() -> None:
    data = {"answer": "x" * 2_000_000, "grounded": True, "cited": [1],
            "sources": [{"n": i, "tool": "retrieve", "kind": "passage", "content": "c" * 300} for i in range(40)],
            "uncited": ["A sentence."] * 10, "unsupported": []}
    out = truncate_json(data, LIMIT, issued=set())
    assert json_size(out.data) <= LIMIT
    assert out.data["answer"].endswith("…") and len(out.data["answer"]) < 20_000
    assert out.data["uncited"] == data["uncited"] and len(out.data["sources"]) >= 20
    assert "dropped" not in out.data["hint"], "sources only repeat evidence; nothing issued was damaged"


def test_shortening_a_numbered_result_damages_its_number() -> None:
    data = {"hint": None, "n": 7, "summary": "é\n" * 60_000, "items": [{"n": 8, "text": "short"}]}
    out = truncate_json(data, LIMIT, issued={7, 8})
    assert json_size(out.data) <= LIMIT and out.data["summary"].endswith("…")
    assert out.data["items"] == data["items"] and out.damaged == {7}


def test_an_item_too_big_alone_is_removed_with_its_list_first() -> None:
    data = {"hint": None, "items": [{"n": 7, "text": "x" * 60_000}], "other": ["y" * 100]}
    out = truncate_json(data, LIMIT, issued={7})
    assert out.data["items"] == [] and out.data["other"] == data["other"] and out.damaged == {7}


def test_cutting_a_list_inside_a_numbered_result_damages_the_result() -> None:
    data = {"hint": None, "n": 3,
            "entities": [{"label": f"Type{i}", "description": "d" * 300, "properties": []} for i in range(300)],
            "relations": [{"label": "R", "description": "", "patterns": [("Type1", "Type2")] * 40}
                          for _ in range(30)]}
    out = truncate_json(data, LIMIT, issued={3})
    assert out.damaged == {3} and json_size(out.data) <= LIMIT
    patterns = [p for r in out.data["relations"] for p in r["patterns"]]
    assert all(isinstance(p, tuple) and len(p) == 2 for p in patterns), "tuples are never cut"
    OntologyResult.model_validate({k: v for k, v in out.data.items() if k != "truncated"})


def test_big_label_maps_are_collections() -> None:
    data = {"hint": None, "n": 1, "graph": "g", "entity_labels": {f"Label{i}": i for i in range(6000)},
            "relation_types": {"WORKS_AT": 3}}
    out = truncate_json(data, LIMIT, issued={1})
    assert json_size(out.data) <= LIMIT and 0 < len(out.data["entity_labels"]) < 6000
    assert out.data["relation_types"] == {"WORKS_AT": 3} and out.damaged == {1}


def test_a_result_that_cannot_fit_is_refused() -> None:
    data = {f"field{i}": i for i in range(20)} | {"nested": {f"k{i}": {"v": True} for i in range(31)}}
    with pytest.raises(ResultTooLarge):
        truncate_json(data, 300)


def test_a_co_mention_fact_is_cut_as_one_item_with_its_entity_list() -> None:
    facts = [RelationItem(n=200 + i, type="RELATED_TO", entities=[f"Place {i}-{j}" for j in range(6)],
                          fact="s " * 400, score=0.5).model_dump() for i in range(40)]
    data = {**_retrieve(passages=5), "facts": facts}
    out = truncate_json(data, 20_000, issued={*range(100, 105), *range(200, 240)})
    kept = out.data["facts"]
    assert json_size(out.data) <= 20_000 and 0 < len(kept) < 40
    assert all(len(f["entities"]) == 6 for f in kept), "a fact keeps every entity it links, or goes whole"
    assert out.damaged >= {f["n"] for f in facts[len(kept):]}
    RetrieveResult.model_validate({k: v for k, v in out.data.items() if k != "truncated"})
