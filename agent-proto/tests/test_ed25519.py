"""ed25519.py, the plain-Python check of an AP without cryptography or usign, on RFC 8032's vectors."""

from __future__ import annotations

import pytest

from wislice_agent_proto import ed25519

# RFC 8032 section 7.1, tests 1 and 2: (public key, message, signature).
RFC8032 = [
    ("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24"
     "655141438e7a100b"),
    ("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aee"
     "b00d291612bb0c00"),
]


@pytest.mark.parametrize("public, message, signature", RFC8032)
def test_plain_python_ed25519_on_the_rfc_vectors(public, message, signature):
    pub, msg, sig = bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature)
    assert ed25519.verify(pub, sig, msg)
    assert not ed25519.verify(pub, sig, msg + b"\0")
    assert not ed25519.verify(pub, sig[:32] + (int.from_bytes(sig[32:], "little") + ed25519.L).to_bytes(32, "little"),
                              msg)  # S not reduced: malleable, refused
    assert not ed25519.verify(bytes(32), sig, msg) and not ed25519.verify(pub, sig[:63], msg)
