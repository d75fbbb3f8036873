"""Pulling code out of model answers, and packing retrieved context within a token budget."""

from __future__ import annotations

from akg_rag.graph.extract import extract_candidate, extract_sketch
from akg_rag.graph.prompts import count_tokens, feedback_section, pack_context


def test_extract_candidate_takes_the_last_block_defining_modelnew():
    answer = ("Here is a helper:\n```python\ndef f():\n    pass\n```\nand the file:\n"
              "```python\nimport torch\nclass ModelNew(torch.nn.Module):\n    pass\n```\nDone.")
    assert extract_candidate(answer) == "import torch\nclass ModelNew(torch.nn.Module):\n    pass\n"


def test_extract_candidate_unclosed_fence_and_bare_code():
    assert extract_candidate("```py\nclass ModelNew:\n    x = 1") == "class ModelNew:\n    x = 1\n"
    assert extract_candidate("class ModelNew:\n    pass") == "class ModelNew:\n    pass\n"
    assert extract_candidate("I cannot do that.") is None
    assert extract_candidate("```python\nprint(1)\n```") is None


def test_extract_sketch():
    assert extract_sketch("x\n```sketch\nsketch a {\n}\n```") == "sketch a {\n}\n"
    assert extract_sketch("```\nsketch b {\n}\n```") == "sketch b {\n}\n"
    assert extract_sketch("no sketch here") is None


def test_pack_context_respects_budget_and_records_ids():
    kernels = [{"id": f"k{i}", "op_name": "softmax", "score": 0.9, "computation": "c", "code": "x" * 400}
               for i in range(3)]
    docs = [{"id": "d0", "heading": "H", "text": "y" * 200}]
    one_kernel = count_tokens(pack_context(kernels[:1], [], 10_000).text)
    packed = pack_context(kernels, docs, budget_tokens=2 * one_kernel + 10)
    assert packed.kernel_ids == ["k0", "k1"] and packed.doc_ids == []
    assert packed.tokens <= 2 * one_kernel + 10 and "x" * 400 in packed.text
    roomy = pack_context(kernels, docs, 100_000)
    assert roomy.kernel_ids == ["k0", "k1", "k2"] and roomy.doc_ids == ["d0"]
    no_code = pack_context(kernels, [], 100_000, with_code=False)
    assert "x" * 400 not in no_code.text


def test_feedback_section_only_for_its_addressee():
    fb = {"to": "coder", "kind": "compile_error", "text": "error: boom"}
    assert "error: boom" in feedback_section(fb, "coder")
    assert feedback_section(fb, "designer") == "" and feedback_section(None, "coder") == ""
