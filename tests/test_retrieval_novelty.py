"""The passages' final order by new coverage (``retrieval/novelty.py``)."""

from __future__ import annotations

from graphrag_agents.retrieval.chain import CHAINS
from graphrag_agents.retrieval.novelty import WINDOW, by_new_coverage

# MuSiQue dev_160 (the sample in docs/retrieval.md): "What was the show named after the character featured in
# the video game Mickey's Safari in Letterland?" Three paragraphs titled "Mickey Mouse" and the game's led the
# top five; the one on the show, "The Mickey Mouse Club", was eighth.
QUESTION_IDF = {"show": 1.0, "named": 1.0, "character": 1.0, "video": 1.0, "game": 1.0, "mickey": 1.0,
                "safari": 1.0, "letterland": 1.0}
GAME = frozenset({"mickey", "safari", "letterland", "video", "game", "character"})
MOUSE = frozenset({"mickey", "character"})
CLUB = frozenset({"show", "named", "mickey"})
WORDS = {"game": GAME, "mouse-1": MOUSE, "mouse-2": MOUSE, "mouse-3": MOUSE, "club": CLUB}
SCORE = {"game": 0.62, "mouse-1": 0.58, "mouse-2": 0.575, "mouse-3": 0.57, "club": 0.50}
RANKED = ["game", "mouse-1", "mouse-2", "mouse-3", "club"]


def test_a_passage_covering_the_rest_of_the_question_passes_repeats() -> None:
    order = by_new_coverage(RANKED, SCORE, WORDS, QUESTION_IDF, CHAINS.novelty)
    assert order[0] == "game"  # the best by score leads
    assert order.index("club") == 1  # it adds "show" and "named"; the Mickey Mouse paragraphs add nothing new
    assert order[2:] == ["mouse-1", "mouse-2", "mouse-3"]


def test_no_weight_or_no_question_words_keep_the_score_order() -> None:
    assert by_new_coverage(RANKED, SCORE, WORDS, QUESTION_IDF, 0.0) == RANKED
    assert by_new_coverage(RANKED, SCORE, WORDS, {}, CHAINS.novelty) == RANKED


def test_only_the_window_is_reordered_and_unread_words_add_nothing() -> None:
    ranked = [f"c{i}" for i in range(WINDOW + 5)]
    score = {cid: 1.0 - i / 1000 for i, cid in enumerate(ranked)}
    words = {ranked[-1]: frozenset(QUESTION_IDF)}  # beyond the window: stays last however much it would add
    words[ranked[WINDOW - 1]] = frozenset({"show"})  # the window's last: moves up to second
    order = by_new_coverage(ranked, score, words, QUESTION_IDF, CHAINS.novelty)
    assert order[:2] == ["c0", ranked[WINDOW - 1]]
    assert order[WINDOW:] == ranked[WINDOW:]
    assert sorted(order) == sorted(ranked)
