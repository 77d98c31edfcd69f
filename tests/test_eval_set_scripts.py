"""``benchmarks/claim_sets.py`` and ``benchmarks/sphinx_docs_set.py`` write sets the eval loader reads.

The rows are real: a HealthVer pair (its dev file), a CLIMATE-FEVER claim with two of its five sentences, COVID-Fact's
first line and one of its refuted versions (``COVIDFACT_dataset.jsonl`` lines 1-2, each sentence cut short, the second
line given only the second sentence of the two the lines share), and a piece of Sphinx 8.1.3's
``usage/configuration.rst`` layout (a label line, a title, a sub-title).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from script_module import load_script

from graphrag_agents.evaluation.dataset import load_dataset

BENCHMARKS = Path(__file__).parent.parent / "benchmarks"
HEALTHVER = """id,evidence,claim,label,topic_ip,question
4081,"In Europe, there were no correlations for both recovery (r= 0.040) and mortality rate (r= -0.035).",\
Vitamin D may improve odds of survival from COVID-19.,Refutes,42,Does Vitamin D impact COVID-19 prevention?
3495,Vitamin D deficiency that is not sufficiently treated is associated with COVID-19 risk.,\
Can Vitamin C Protect You from COVID-19?,Neutral,42,Does Vitamin D impact COVID-19 prevention and treatment?
"""
CLIMATE = {"claim_id": "0", "claim": "Global warming is driving polar bears toward extinction", "evidences": [
    {"evidence_label": "NOT_ENOUGH_INFO", "article": "Global warming", "evidence": "Rising temperatures push bees to "
     "their physiological limits, and could cause the extinction of bee populations."},
    {"evidence_label": "SUPPORTS", "article": "Habitat destruction", "evidence": "Rising global temperatures, caused "
     "by the greenhouse effect, contribute to habitat destruction, endangering various species, such as the polar "
     "bear."}]}


@pytest.fixture(scope="module")
def claims() -> ModuleType:
    return load_script(BENCHMARKS / "claim_sets.py")


def test_a_claim_is_asked_against_the_evidence_that_supports_or_refutes_it(claims: ModuleType,
                                                                          tmp_path: Path) -> None:
    (tmp_path / "healthver_dev.csv").write_text(HEALTHVER, encoding="utf-8")
    (tmp_path / "climate.jsonl").write_text(json.dumps(CLIMATE) + "\n", encoding="utf-8")
    healthver, climate = claims.ClaimSet("healthver"), claims.ClaimSet("climate-fever")
    for pair in claims.healthver_pairs(tmp_path / "healthver_dev.csv"):
        healthver.add(pair)
    for pair in claims.climate_fever_pairs(tmp_path / "climate.jsonl"):
        climate.add(pair)
    (question,) = healthver.questions()  # the Neutral pair's claim has no gold: not a question
    assert question["type"] == "dev" and question["answer"] == "Refutes"
    assert len(healthver.rows()) == 2  # its evidence stays in the corpus
    (question,) = climate.questions()
    gold = {r["id"]: r for r in climate.rows()}[question["supporting_paragraph_ids"][0]]
    assert gold["title"] == "Habitat destruction" and len(climate.rows()) == 2
    for name, kind in (("q", climate.questions()), ("c", climate.rows())):
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in kind), encoding="utf-8")
    questions, corpus = load_dataset(tmp_path / "q.jsonl", tmp_path / "c.jsonl")
    assert list(questions[0].supporting_paragraph_ids) == [gold["id"]] and len(corpus) == 2


COVIDFACT_SOURCE = "https://rupress.org/jem/article/217/11/e20201181/151961/Measuring-SARS-CoV-2-neutralizing-antibody"
COVIDFACT = [
    {"claim": "Measuring sars-cov-2 neutralizing antibody activity using pseudotyped and chimeric viruses",
     "label": "SUPPORTED", "gold_source": COVIDFACT_SOURCE,
     "evidence": ["While each surrogate virus exhibited subtle differences in the sensitivity with which "
                  "neutralizing activity was detected,", "Here, we describe a collection of approaches based on "
                  "SARS-CoV-2 spike-pseudotyped, single-cycle, replication-defective human immunodeficiency virus"]},
    {"claim": "Measuring chs-cov-2 neutralizing antibody activity using pseudotyped and chimeric viruses",
     "label": "REFUTED", "gold_source": COVIDFACT_SOURCE,
     "evidence": ["Here, we describe a collection of approaches based on SARS-CoV-2 spike-pseudotyped, single-cycle, "
                  "replication-defective human immunodeficiency virus"]},
]


def test_a_covidfact_claim_is_asked_against_its_whole_source_excerpt(claims: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "covidfact.jsonl").write_text("".join(json.dumps(r) + "\n" for r in COVIDFACT), encoding="utf-8")
    covidfact = claims.ClaimSet("covidfact")
    for pair in claims.covidfact_pairs(tmp_path / "covidfact.jsonl"):
        covidfact.add(pair)
    (passage,) = covidfact.rows()  # one source, its sentences once each, in the order first met
    assert passage["text"].startswith("While each surrogate") and passage["text"].count("Here, we describe") == 1
    supported, refuted = covidfact.questions()
    assert (supported["type"], refuted["type"]) == ("supported", "refuted")
    assert supported["paragraph_ids"] == refuted["paragraph_ids"] == [passage["id"]]
    assert refuted["answer"] == "Refutes"


RST = """.. _config:

=============
Configuration
=============

The :term:`configuration directory` must contain a file named :file:`conf.py`.

Project information
-------------------

.. confval:: project

   The documented project's name.
"""


def test_a_manual_is_split_at_its_headings_with_the_trail_as_title() -> None:
    sphinx = load_script(BENCHMARKS / "sphinx_docs_set.py")
    rows = sphinx.split_sections("usage/configuration.rst", RST)
    assert [r.title for r in rows] == ["usage/configuration.rst › Configuration",
                                       "usage/configuration.rst › Configuration › Project information"]
    assert rows[0].text.startswith("The :term:") and ".. _config:" not in rows[0].text
    assert "The documented project's name." in rows[1].text
