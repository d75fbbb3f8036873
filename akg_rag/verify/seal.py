"""Authenticating the child's verdict so that candidate code cannot forge it.

The parent draws a fresh 32-byte key per verification and hands it to the child through an
inherited pipe -- never argv or the environment, which candidate code can read. The child reads the
key before it imports anything of the candidate, keeps only an HMAC-SHA256 state derived from it,
and seals its verdict with that state. The parent accepts a verdict only with a valid MAC; stdout is
never read for results. A candidate would have to reach into the verifier's frames or memory to
forge one, which the introspection guards refuse.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from typing import Any, Callable

KEY_BYTES = 32
# Bound at import, before any candidate code runs: a replaced json.dumps cannot rewrite the payload.
_dumps = json.dumps
_hmac_new = hmac.new


def new_key() -> bytes:
    """A fresh random key for one verification."""
    return os.urandom(KEY_BYTES)


def read_key(fd: int) -> bytes:
    """Read the key from the pipe ``fd`` and close it (the key can be read only once)."""
    chunks = b""
    while len(chunks) < KEY_BYTES:
        part = os.read(fd, KEY_BYTES - len(chunks))
        if not part:
            break
        chunks += part
    os.close(fd)
    if len(chunks) != KEY_BYTES:
        raise RuntimeError(f"verification key pipe gave {len(chunks)} bytes, expected {KEY_BYTES}")
    return chunks


def make_sealer(key: bytes) -> Callable[[dict[str, Any]], dict[str, str]]:
    """A function that seals a verdict dict into ``{payload, mac}``; the key itself is not kept."""
    state = _hmac_new(key, digestmod=hashlib.sha256)

    def seal(verdict: dict[str, Any]) -> dict[str, str]:
        payload = _dumps(verdict, sort_keys=True, default=str)
        mac = state.copy()
        mac.update(payload.encode("utf-8"))
        return {"payload": payload, "mac": mac.hexdigest()}

    return seal


def unseal(sealed: Any, key: bytes) -> dict[str, Any] | None:
    """The verdict inside ``sealed`` when its MAC is valid for ``key``; None otherwise."""
    if not isinstance(sealed, dict) or not isinstance(sealed.get("payload"), str) \
            or not isinstance(sealed.get("mac"), str):
        return None
    expected = hmac.new(key, sealed["payload"].encode("utf-8"), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, sealed["mac"]):
        return None
    try:
        verdict = json.loads(sealed["payload"])
    except ValueError:
        return None
    return verdict if isinstance(verdict, dict) else None
