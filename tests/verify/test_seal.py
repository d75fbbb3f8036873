"""Verdict sealing: only the holder of the key can produce an accepted verdict."""

from __future__ import annotations

import json
import os

from akg_rag.verify.seal import make_sealer, new_key, read_key, unseal


def test_roundtrip_and_tampering():
    key = new_key()
    sealed = make_sealer(key)({"status": "incorrect", "feedback": "x"})
    assert unseal(sealed, key) == {"status": "incorrect", "feedback": "x"}
    forged = dict(sealed, payload=sealed["payload"].replace("incorrect", "correct"))
    assert unseal(forged, key) is None
    assert unseal(sealed, new_key()) is None
    assert unseal({"payload": json.dumps({"status": "correct"}), "mac": "0" * 64}, key) is None
    assert unseal("not a dict", key) is None


def test_key_travels_through_a_pipe_once():
    key = new_key()
    r, w = os.pipe()
    os.write(w, key)
    os.close(w)
    assert read_key(r) == key
    try:
        os.fstat(r)
        closed = False
    except OSError:
        closed = True
    assert closed
