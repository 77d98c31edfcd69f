"""An eval graph reused from the cache is measured whole: a cached graph whose vector indexes hold stale copies (a
graph an earlier release wrote, doubled by a restart) has them rebuilt before any question is asked."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from earlier_release import without_log_rewrite

from graphrag_agents.evaluation.build import ensure_built, open_eval_graph
from graphrag_agents.evaluation.dataset import Paragraph
from graphrag_agents.store.stale_vectors import stale_vector_indexes

CORPUS = [Paragraph(id=f"p{i}", title=f"Harbour {i}", text=f"Harbour {i} of the coast ships salt and timber in year "
                                                            f"{1900 + i}.") for i in range(8)]


async def test_a_cached_graph_with_stale_vectors_is_rebuilt_when_reused(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with without_log_rewrite():  # as graphs written before the rewrite at index creation were
        kg = await open_eval_graph(CORPUS, extractor="ner", data_dir=tmp_path)
        built = await ensure_built(kg, CORPUS, extractor="ner", data_dir=tmp_path, progress=False)
        assert not built.reused
        await kg.close()  # stops the server: the next start replays the index's creation, then its vectors

    kg = await open_eval_graph(CORPUS, extractor="ner", data_dir=tmp_path)
    try:
        assert ("Chunk", "node") in await stale_vector_indexes(kg.store)
        with caplog.at_level(logging.WARNING, logger="graphrag_agents.evaluation"):
            again = await ensure_built(kg, CORPUS, extractor="ner", data_dir=tmp_path, progress=False)
        assert again.reused
        assert await stale_vector_indexes(kg.store) == []
        assert "eval rebuilt the vector indexes of Chunk" in caplog.text
    finally:
        await kg.close()
