"""Ed25519 signature verification (RFC 8032, 5.1.7) in plain Python, for an AP that has neither python's
``cryptography`` nor OpenWrt's ``usign`` (the AP VM's Debian-built image): firmware upgrades there are checked
all the same. Verification only: it handles no secret, so its timing leaks nothing. A few tens of milliseconds per
signature with Python's integers, plus SHA-512 over the artifact.
"""

from __future__ import annotations

import hashlib

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493  # the order of the base point
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)  # a square root of -1 mod P

Point = tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z, x*y = T/Z


def _add(a: Point, b: Point) -> Point:
    """a + b on the twisted Edwards curve -x^2 + y^2 = 1 + d x^2 y^2 (complete: also for a == b)."""
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % P
    bb = (y1 + x1) * (y2 + x2) % P
    cc = 2 * D * t1 * t2 % P
    dd = 2 * z1 * z2 % P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return e * f % P, g * h % P, f * g % P, e * h % P


def _mul(k: int, point: Point) -> Point:
    result: Point = (0, 1, 1, 0)  # the neutral element
    while k:
        if k & 1:
            result = _add(result, point)
        point = _add(point, point)
        k >>= 1
    return result


def _encode(point: Point) -> bytes:
    x, y, z, _ = point
    zi = pow(z, P - 2, P)
    x, y = x * zi % P, y * zi % P
    return (y | (x & 1) << 255).to_bytes(32, "little")


def _decode(s: bytes) -> Point | None:
    """The point of a 32-byte encoding, or None if it is not one."""
    if len(s) != 32:
        return None
    n = int.from_bytes(s, "little")
    sign, y = n >> 255, n & ((1 << 255) - 1)
    if y >= P:
        return None
    u, v = (y * y - 1) % P, (D * y * y + 1) % P
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P  # a candidate square root of u/v
    if v * x * x % P == (-u) % P:
        x = x * SQRT_M1 % P
    elif v * x * x % P != u:
        return None
    if x == 0 and sign:
        return None
    if x & 1 != sign:
        x = P - x
    return x, y, 1, x * y % P


_BY = 4 * pow(5, P - 2, P) % P
BASE = _decode(_BY.to_bytes(32, "little"))


def verify(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """Whether signature (64 bytes) is the Ed25519 signature of message by public_key (32 bytes)."""
    if len(signature) != 64 or BASE is None:
        return False
    a = _decode(public_key)
    r_bytes, s = signature[:32], int.from_bytes(signature[32:], "little")
    if a is None or s >= L or _decode(r_bytes) is None:
        return False
    k = int.from_bytes(hashlib.sha512(r_bytes + public_key + message).digest(), "little") % L
    # [S]B = R + [k]A, checked as [S]B - [k]A encoding to R (negating a point negates x: -X and -T).
    kx, ky, kz, kt = _mul(k, a)
    check = _add(_mul(s, BASE), (-kx % P, ky, kz, -kt % P))
    return _encode(check) == r_bytes
