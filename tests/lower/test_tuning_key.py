"""Tuning keys: the same region at other shapes of one bucket shares a key; another op, another
form or another bucket does not."""

from __future__ import annotations

from akg_rag.lower.assemble import lower_task
from akg_rag.lower.tuning_key import canonical_sketch, device_name, shape_bucket, signature
from akg_rag.lower.tuned import key_of
from akg_rag.sketch import check_sketch

SOFTMAX = """
class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)

def get_inputs():
    return [torch.randn({rows}, {cols})]

def get_init_inputs():
    return []
"""
LOG_SOFTMAX = SOFTMAX.replace("torch.softmax", "torch.log_softmax")


def _key(write_task, body: str, name: str):
    _, report = lower_task(write_task(body, name), "cpp", "cpu")   # C++ text only: nothing is built
    (k,) = report.kernels
    return key_of(k.sketch, check_sketch(k.sketch), k.sizes, "cpp", "cpu", "test-cpu"), k


def test_shapes_in_one_bucket_share_a_key_and_other_buckets_do_not(write_task):
    a, ka = _key(write_task, SOFTMAX.format(rows=4, cols=33), "a")
    b, kb = _key(write_task, SOFTMAX.format(rows=3, cols=50), "b")
    c, _ = _key(write_task, SOFTMAX.format(rows=4, cols=100), "c")
    assert ka.sizes == {"D0": 4, "D1": 33} and kb.sizes == {"D0": 3, "D1": 50}
    assert a == b and a.bucket == "D0=4,D1=64"
    assert c.signature == a.signature and c.bucket == "D0=4,D1=128"


def test_another_op_or_target_has_another_signature(write_task):
    a, ka = _key(write_task, SOFTMAX.format(rows=4, cols=33), "a")
    b, _ = _key(write_task, LOG_SOFTMAX.format(rows=4, cols=33), "b")
    assert a.signature != b.signature and a.bucket == b.bucket
    assert signature(ka.sketch, {"KBLOCK"}, "triton", "cuda") != a.signature


def test_canonical_form_ignores_names_and_tunable_values_but_not_literals():
    one = ("sketch k0 {\n  symbols: N\n  tensors: x[N]: f32 in; y[N]: f32 out\n  params: BLOCK = 64\n\n"
           '  @llm_hint("parallel", "grid")\n  for pid in range(((N + BLOCK - 1) // BLOCK)):\n'
           "    i = pid * BLOCK + iota(BLOCK)\n    load(x[i] -> v)\n    store(mul(v, 2.0) -> y[i])\n}\n")
    renamed = one.replace("k0", "k7").replace("x[", "inp[").replace("y[", "out0[").replace("BLOCK = 64", "BLOCK = 256")
    other = one.replace("2.0", "3.0")
    assert canonical_sketch(one, {"BLOCK"}) == canonical_sketch(renamed, {"BLOCK"})
    assert canonical_sketch(one, {"BLOCK"}) != canonical_sketch(other, {"BLOCK"})
    assert "exp" not in canonical_sketch(one, {"BLOCK"})
    assert canonical_sketch(one.replace("mul(", "exp(mul("). replace("2.0)", "2.0))"), {"BLOCK"}).count("exp(") == 1


def test_bucket_rounds_up_to_powers_of_two_and_device_is_named():
    assert shape_bucket({"M": 1, "N": 1000, "K": 1024}) == "M=1,N=1024,K=1024"
    assert device_name("cpu").strip()
