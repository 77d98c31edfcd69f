"""The passages' final order by new coverage (``retrieval/novelty.py``)."""

from __future__ import annotations

import random

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


def _plain_greedy(ranked: list[str], score: dict[str, float], words: dict[str, frozenset[str]],
                  idf: dict[str, float], weight: float) -> list[str]:
    """The re-ordering written plainly: every step scores every candidate left."""
    total = sum(idf.values())
    left = list(ranked[:WINDOW])
    held = {cid: words.get(cid, frozenset()) & idf.keys() for cid in left}
    out, left = left[:1], left[1:]
    covered = set(held[out[0]])
    while left:
        pick = max(left, key=lambda cid: score[cid] + weight * sum(idf[w] for w in held[cid] - covered) / total)
        left.remove(pick)
        out.append(pick)
        covered |= held[pick]
    return out + ranked[WINDOW:]


def test_the_order_is_the_plain_greedy_one_ties_included() -> None:
    rng = random.Random(7)
    for _ in range(300):
        vocabulary = [f"w{i}" for i in range(rng.randint(1, 12))]
        idf = {w: rng.choice([0.5, 1.0, 1.0, 2.0, 3.25]) for w in vocabulary}
        ranked = [f"c{i}" for i in range(rng.randint(1, WINDOW + 5))]
        score = {cid: rng.choice([0.1, 0.2, 0.2, 0.3, 0.45]) for cid in ranked}  # many ties
        ranked.sort(key=lambda cid: -score[cid])
        words = {cid: frozenset(rng.sample([*vocabulary, "other"], rng.randint(0, len(vocabulary))))
                 for cid in ranked if rng.random() < 0.9}
        weight = rng.choice([0.35, 1.0, 5.0])
        assert by_new_coverage(ranked, score, words, idf, weight) == _plain_greedy(ranked, score, words, idf, weight)
