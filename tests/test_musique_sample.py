"""``benchmarks/musique_sample.py``: MuSiQue records of every accepted shape become one evaluation set."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from types import ModuleType

import pytest
from script_module import load_script

from graphrag_agents.evaluation.dataset import load_dataset

SCRIPT = Path(__file__).parent.parent / "benchmarks" / "musique_sample.py"

CASA_LOMA = ("Casa Loma", "Casa Loma is a Gothic Revival style mansion and garden in midtown Toronto.")
REDUCED = {"id": "dev_1378", "question": "What is the name of the castle in the birthplace of the performer of "
           "Bound by the Beauty?", "answers": ["Casa Loma"], "hops": [
               {"question": "Bound by the Beauty >> performer", "answer": "Jane Siberry", "title":
                "Bound by the Beauty", "text": "Bound By the Beauty is a 1989 album by Jane Siberry."},
               {"question": "#1 >> place of birth", "answer": "Toronto", "title": "Gavin Bradley",
                "text": "Gavin Bradley is a singer based in Toronto who has worked with Jane Siberry."},
               {"question": "what is the name of the castle in #2", "answer": "Casa Loma",
                "title": CASA_LOMA[0], "text": CASA_LOMA[1]}]}
PUBLISHED = {"id": "2hop__1_2", "question": "Where is the castle of Toronto?", "answer": "Toronto",
             "answer_aliases": ["midtown Toronto"], "paragraphs": [
                 {"idx": 0, "title": "Kevin Drew", "paragraph_text": "Kevin Drew is a Canadian musician.",
                  "is_supporting": True},
                 {"idx": 1, "title": "Elsewhere", "paragraph_text": "An unrelated paragraph.", "is_supporting": False},
                 {"idx": 2, "title": CASA_LOMA[0], "paragraph_text": CASA_LOMA[1], "is_supporting": True}],
             "question_decomposition": [{"id": 1, "question": "q1", "answer": "a1", "paragraph_support_idx": 0},
                                        {"id": 2, "question": "q2", "answer": "a2", "paragraph_support_idx": 2}]}


@pytest.fixture(scope="module")
def musique() -> ModuleType:
    return load_script(SCRIPT)


def test_both_shapes_share_a_paragraph_and_load_as_a_set(musique: ModuleType, tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps(REDUCED) + "\n" + json.dumps(PUBLISHED) + "\n")
    distractors = tmp_path / "other.corpus.jsonl"
    distractors.write_text(json.dumps({"id": "x", "title": "Rush (band)", "text": "Rush was a rock band."}) + "\n")

    built = musique.convert([records], [distractors])
    built.write(tmp_path / "out")
    questions, corpus = load_dataset(tmp_path / "out" / "musique.questions.jsonl",
                                     tmp_path / "out" / "musique.corpus.jsonl")

    assert [q.type for q in questions] == ["3hop", "2hop"]
    assert questions[1].answers == ["Toronto", "midtown Toronto"]
    # Casa Loma is one paragraph, gold for both questions; the published distractor and the other file's join
    assert questions[0].supporting_paragraph_ids[-1] == questions[1].supporting_paragraph_ids[-1]
    assert sorted(p.title for p in corpus) == sorted(["Bound by the Beauty", "Gavin Bradley", "Casa Loma",
                                                      "Kevin Drew", "Elsewhere", "Rush (band)"])


def test_a_record_of_one_hop_is_refused(musique: ModuleType) -> None:
    with pytest.raises(ValueError, match="1 hops"):
        musique.MusiqueSet().add({**REDUCED, "hops": REDUCED["hops"][:1]})


def test_a_gzipped_array_with_an_unanswerable_record_keeps_it_as_distractors(musique: ModuleType,
                                                                           tmp_path: Path) -> None:
    unanswerable = {**PUBLISHED, "id": "2hop__3_4", "answerable": False, "paragraphs": [
        {"idx": 0, "title": "Lone", "paragraph_text": "A paragraph of the unanswerable variant.",
         "is_supporting": False}],
        "question_decomposition": [{"id": 3, "question": "q", "answer": "a", "paragraph_support_idx": None},
                                   {"id": 4, "question": "q", "answer": "a", "paragraph_support_idx": None}]}
    records = tmp_path / "records.json.gz"
    records.write_bytes(gzip.compress(json.dumps([PUBLISHED, unanswerable]).encode()))

    built = musique.convert([records], [])

    assert [q["id"] for q in built.questions] == ["2hop__1_2"]
    assert built.unanswerable == 1
    assert ("Lone", "A paragraph of the unanswerable variant.") in built.corpus


def test_a_record_without_its_decomposition_has_its_supporting_paragraphs_as_hops(musique: ModuleType) -> None:
    built = musique.MusiqueSet()
    built.add({key: value for key, value in PUBLISHED.items() if key != "question_decomposition"})

    assert built.questions[0]["supporting_titles"] == ["Kevin Drew", "Casa Loma"]
    assert built.questions[0]["type"] == "2hop"
