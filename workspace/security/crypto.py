"""AES-256-GCM sealing of secrets at rest (docs/security.md#secrets-at-rest).

A sealed value is ``v1:`` + base64(nonce || ciphertext+tag). The record's id is the
associated data, so a ciphertext copied onto another row does not open.
"""

from __future__ import annotations

import base64
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from flask import current_app

_VERSION = "v1:"


class SecretUnreadable(Exception):
    """The sealed value does not open with this key and record (key rotated, tampered)."""


def _key() -> bytes:
    key = base64.b64decode(current_app.config["ENCRYPTION_KEY"])
    if len(key) != 32:
        raise RuntimeError("ENCRYPTION_KEY must be 32 bytes, base64-encoded")
    return key


def seal(plaintext: str, record_id: object) -> str:
    nonce = os.urandom(12)
    ciphertext = AESGCM(_key()).encrypt(nonce, plaintext.encode(), str(record_id).encode())
    return _VERSION + base64.b64encode(nonce + ciphertext).decode()


def unseal(sealed: str, record_id: object) -> str:
    if not sealed.startswith(_VERSION):
        raise SecretUnreadable("unknown sealing format")
    raw = base64.b64decode(sealed[len(_VERSION) :])
    try:
        plain = AESGCM(_key()).decrypt(raw[:12], raw[12:], str(record_id).encode())
    except InvalidTag as exc:
        raise SecretUnreadable("secret does not open with the configured key") from exc
    return plain.decode()
