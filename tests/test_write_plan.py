"""Ingest plans: CHEAP_PLAN_LIMITS, limits merged over it, first matching rule wins, choices clamped with a reason."""

from __future__ import annotations

from typing import Any

import pytest

from graphrag_agents.errors import ToolError
from graphrag_agents.ingest.chunkers import CHUNKERS
from graphrag_agents.ingest.plan import EXTRACTORS, RESOLVERS
from graphrag_agents.tools.write.plan import (
    CHEAP_PLAN_LIMITS,
    ChunkParams,
    PlanLimits,
    PlanRule,
    RuleBasedIngestionPlanner,
    ingest_description,
    merge_plan_limits,
)


def test_cheap_limits_are_offline() -> None:
    cheap = CHEAP_PLAN_LIMITS
    assert cheap.chunkers == ("sentence", "fixed", "structural")
    assert cheap.extractors == ("ner",) and cheap.resolvers == ("exact",)
    assert cheap.max_chunks == 1000 and cheap.max_llm_pairs == 0 and cheap.tune_params is False
    assert merge_plan_limits(None) is CHEAP_PLAN_LIMITS


def test_rule_literals_match_the_pipeline_names() -> None:
    schema = PlanRule.model_json_schema()["properties"]
    assert set(schema["chunker"]["anyOf"][0]["enum"]) == set(CHUNKERS)
    assert tuple(schema["extractor"]["anyOf"][0]["enum"]) == EXTRACTORS
    assert tuple(schema["resolver"]["anyOf"][0]["enum"]) == RESOLVERS


def test_user_limits_merge_over_cheap() -> None:
    limits = merge_plan_limits({"extractors": ["ner", "llm"]})
    assert limits.extractors == ("ner", "llm")
    assert limits.chunkers == CHEAP_PLAN_LIMITS.chunkers and limits.max_chunks == 1000  # left out: cheap
    verified = merge_plan_limits({"resolvers": ["exact", "llm_verified"]})
    assert verified.max_llm_pairs == 500  # llm_verified allowed without a budget
    assert merge_plan_limits({"resolvers": ["llm_verified"], "max_llm_pairs": 20}).max_llm_pairs == 20
    assert merge_plan_limits({"max_chunks": None}).max_chunks is None


@pytest.mark.parametrize("limits", [
    {"chunker": ["sentence"]}, {"chunkers": ["contextual"]}, {"chunkers": "sentence"}, {"chunkers": []},
    {"extractors": ["gliner"]}, {"max_llm_pairs": -1}, {"max_chunks": 0}, {"max_chunks": True},
    {"tune_params": "yes"}, ["extractors"],
])
def test_bad_limits_name_the_valid_values(limits: Any) -> None:
    with pytest.raises(ValueError, match="valid|must be"):
        merge_plan_limits(limits)


def test_first_matching_rule_wins() -> None:
    rules = [PlanRule(match="reports/*.pdf", chunker="fixed"), PlanRule(match="*.md", chunker="structural"),
             PlanRule(match="*", chunker="sentence", extractor="none")]
    planner = RuleBasedIngestionPlanner(rules, CHEAP_PLAN_LIMITS)
    assert planner.plan_for("reports/q1.pdf").plan.chunker == "fixed"
    assert planner.plan_for("reports/deep/q2.pdf").plan.chunker == "sentence"  # '*' stays in one folder
    md = planner.plan_for("notes/deep/a.md")  # no '/' in the glob: matched against the file name
    assert md.plan.chunker == "structural" and md.match == "*.md" and md.reason.startswith("rule 2")
    assert planner.plan_for("b.txt").plan.extractor == "none"
    deep = RuleBasedIngestionPlanner([PlanRule(match="notes/**/*.md", extractor="none")])
    assert deep.plan_for("notes/a/b/c.md").plan.extractor == "none"
    assert deep.plan_for("other/c.md").reason.startswith("no rule matched")


def test_choices_outside_limits_are_replaced_with_a_reason() -> None:
    limits = PlanLimits(chunkers=("sentence",), resolvers=("exact", "llm_verified"), max_llm_pairs=10)
    planner = RuleBasedIngestionPlanner([PlanRule(chunker="structural", extractor="llm",
                                                  resolver="llm_verified", max_llm_pairs=999)], limits)
    planned = planner.plan_for("a.md")
    plan = planned.plan
    assert (plan.chunker, plan.extractor, plan.resolver, plan.max_llm_pairs) == ("sentence", "ner",
                                                                                 "llm_verified", 10)
    assert "chunker 'structural' is outside plan_limits" in planned.reason
    assert "extractor 'llm' is outside plan_limits" in planned.reason
    assert "max_llm_pairs 999 is over the limit" in planned.reason
    assert plan.max_chunks == 1000
    shown = planned.to_dict()
    assert shown["max_llm_pairs"] == 10 and shown["match"] == "*" and "reason" in shown


def test_none_extractor_is_always_allowed_and_defaults_come_first() -> None:
    planner = RuleBasedIngestionPlanner([PlanRule(extractor="none")], PlanLimits(extractors=("llm",)))
    assert planner.plan_for("a.txt").plan.extractor == "none"
    default = RuleBasedIngestionPlanner([], PlanLimits(chunkers=("structural", "sentence"))).plan_for("a.md")
    assert default.plan.chunker == "structural" and default.reason.startswith("no plan given")
    assert "max_llm_pairs" not in default.to_dict() and "chunk_params" not in default.to_dict()


def test_a_markdown_file_with_no_chunker_chosen_is_cut_at_its_sections() -> None:
    planned = RuleBasedIngestionPlanner([]).plan_for("docs/guide.md")
    # Before: "sentence", so the agent's ingest ran a heading into the text, unlike kg.ingest's default.
    assert planned.plan.chunker == "auto"
    assert RuleBasedIngestionPlanner([PlanRule(match="*.md", chunker="sentence")]).plan_for("a.md").plan.chunker \
        == "sentence"
    assert RuleBasedIngestionPlanner([], PlanLimits(chunkers=("sentence",))).plan_for("a.md").plan.chunker \
        == "sentence"


def test_chunk_params_need_tune_params_and_must_fit_the_chunker() -> None:
    rule = PlanRule(chunker="fixed", chunk_params=ChunkParams(size=400, overlap=50))
    cheap = RuleBasedIngestionPlanner([rule]).plan_for("a.txt")
    assert cheap.plan.chunk_params == {} and "tune_params" in cheap.reason
    tuned = RuleBasedIngestionPlanner([rule], PlanLimits(tune_params=True)).plan_for("a.txt")
    assert tuned.plan.chunk_params == {"size": 400, "overlap": 50}
    wrong = PlanRule(chunker="sentence", chunk_params=ChunkParams(size=400))
    with pytest.raises(ToolError) as err:
        RuleBasedIngestionPlanner([wrong], PlanLimits(tune_params=True)).plan_for("a.txt")
    assert "size / overlap" in err.value.hint


def test_description_lists_allowed_options_and_costs() -> None:
    cheap = ingest_description(CHEAP_PLAN_LIMITS, True, "manual")
    assert "sentence (default; .md/.rst files: structural)" in cheap and "ner (default)" in cheap
    assert "exact (default)" in cheap
    assert "llm_verified" not in cheap and "1,000 chunks" in cheap and "at most 50 files" in cheap
    rich = ingest_description(merge_plan_limits({"extractors": ["llm"], "resolvers": ["exact", "llm_verified"]}),
                              True, "on_write")
    assert "one LLM call per chunk" in rich and "max_llm_pairs (500)" in rich and "finalized after every" in rich
    text_only = ingest_description(CHEAP_PLAN_LIMITS, False, "manual")
    assert "files" not in text_only and "plan" not in text_only.replace("explain", "")
