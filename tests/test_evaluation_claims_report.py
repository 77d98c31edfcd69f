"""The eval's HTML report shows each sentence's citation verdict with its evidence span highlighted (issue 47 item 4).

The evidence is the shared HotpotQA row hotpotqa-d7e302fdc4df (Ann Beattie, CC BY-SA 4.0); the hostile item is
that row with markup put in its sentences.
"""

from __future__ import annotations

from typing import Any

from snapshot import assert_snapshot

from graphrag_agents.evaluation.html_claims import claims_html
from graphrag_agents.evaluation.html_report import render_report
from graphrag_agents.evidence import Evidence
from graphrag_agents.tools.citations import check_citations

# hotpotqa-d7e302fdc4df (Ann Beattie)
BEATTIE = ("Ann Beattie (born September 8, 1947) is an American novelist and short story writer. She has received an "
           "award for excellence from the American Academy and Institute of Arts and Letters and the PEN/Malamud Award "
           "for excellence in the short story form. Her work has been compared to that of Alice Adams, J.D. Salinger, "
           "John Cheever, and John Updike. She holds an undergraduate degree from American University and a master's "
           "degree from the University of Connecticut.")
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'
ANSWER = ("Ann Beattie is an American novelist and short story writer [1]. She was born on September 8, 1948 [1]. "
          "Her work has been compared to that of John Updike [2]. Alice Adams wrote about her in 1990.")


def _agent(answer: str, items: list[Evidence]) -> dict[str, Any]:
    """The record's agent part as the eval writes it, with the check's claims and sources."""
    check = check_citations(answer, items)
    data = check.model_dump(mode="json")
    return {"answer": check.answer, "abstained": False, "grounded": check.grounded, "cited": check.cited,
            "em": None, "f1": None, "llm_calls": 1, "tokens": 9, "ms": 3, "abstain_reason": None,
            "draft": check.answer, "uncited": check.uncited, "unsupported": data["unsupported"], "evidence": [],
            "claims": data["claims"], "sources": data["sources"]}


def test_each_claim_shows_its_verdict_and_its_span_highlighted() -> None:
    items = [Evidence(n=1, tool="retrieve", kind="passage", content=BEATTIE),
             Evidence(n=2, tool="retrieve", kind="passage", content=BEATTIE.replace("Her work", "Her work, 'ok' &"))]
    agent = _agent(ANSWER, items)
    assert [c["verdict"] for c in agent["claims"]] == ["verified", "unsupported", "verified", "uncited"]
    assert_snapshot("eval_report_claims.html", claims_html(agent["claims"], agent["sources"]) + "\n")


def test_hostile_evidence_and_answer_text_cannot_inject_markup() -> None:
    hostile = BEATTIE.replace("novelist", f"novelist {HOSTILE}").replace("She holds", f"{HOSTILE} She holds")
    items = [Evidence(n=1, tool="retrieve", kind="passage", content=hostile),
             Evidence(n=2, tool="retrieve", kind="passage", content=HOSTILE)]
    agent = _agent(f"Ann Beattie is an American novelist [1]. {HOSTILE} [2]. {HOSTILE} holds a degree [1].", items)
    # offsets a stored record may hold that point past the text, or before it
    agent["claims"].append({"text": HOSTILE, "verdict": "verified", "cited": [1], "support": [
        {"n": 1, "start": -5, "end": 10 ** 6}, {"n": 9, "start": 0, "end": 3}], "closest": None, "missing": [HOSTILE]})
    measurement = {"docs": [], "ms": 1.0, "items": 1, "chars": 5, "recall": {"5": 1.0}, "all_gold": {"5": True}}
    record = {"id": "q", "question": "Who is Ann Beattie?", "type": "bridge", "answers": ["a novelist"], "gold": [],
              "retrieve": measurement, "dense": measurement, "paths": {}, "evidence": [], "agent": agent}
    summary = {"ks": [5], "questions": 1, "corpus_paragraphs": 1, "notes": [], "answers": None,
               "methods": {"dense": {"recall": {"5": 1.0}, "all_gold": {"5": 1.0}, "ms_p50": 1, "ms_p95": 1,
                                     "items": 1, "chars": 1}}}
    page = render_report([record], summary)
    assert "<script" not in page.lower() and "<img" not in page.lower()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "<ol class=claims>" in page and page.count("<mark") >= 2


def test_the_eval_record_carries_the_claims_and_sources_the_report_reads() -> None:
    """``score_answer`` writes the check's claims and cited sources into the record, so a real eval run's report
    shows each sentence's verdict and span."""
    from graphrag_agents.evaluation.answer import score_answer
    from graphrag_agents.evaluation.dataset import Question

    items = [Evidence(n=1, tool="retrieve", kind="passage", content=BEATTIE)]
    answer = "Ann Beattie is an American novelist and short story writer [1]."
    check = check_citations(answer, items)
    question = Question(id="q", question="Who is Ann Beattie?", answer="novelist", supporting_paragraph_ids=("x",))
    record = score_answer(question, {"answer": answer, "citation_check": check.model_dump(mode="json")}, 1.0)
    assert record["claims"] == check.model_dump()["claims"] and record["claims"][0]["verdict"] == "verified"
    assert record["sources"] and record["sources"][0]["n"] == 1
    assert "<mark" in claims_html(record["claims"], record["sources"])
