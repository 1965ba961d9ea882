"""FarmHash's 64-bit fingerprint (farmhashna::Hash64), the hash behind TensorFlow's
`tf.strings.to_hash_bucket_fast`: the same bytes give the same number as there, so that
bucket ids (and the embeddings they look up) agree with TensorFlow's.

Written from the published algorithm (Google's FarmHash, MIT licence); arithmetic is on
unsigned 64-bit integers, every product and sum taken modulo 2**64.
"""

_MASK = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F


def _fetch64(data, at):
    return int.from_bytes(data[at:at + 8], "little")


def _fetch32(data, at):
    return int.from_bytes(data[at:at + 4], "little")


def _rotate(value, shift):
    return ((value >> shift) | (value << (64 - shift))) & _MASK if shift else value


def _shift_mix(value):
    return value ^ (value >> 47)


def _hash16(u, v, mul):
    a = ((u ^ v) * mul) & _MASK
    a ^= a >> 47
    b = ((v ^ a) * mul) & _MASK
    b ^= b >> 47
    return (b * mul) & _MASK


def _hash0to16(data, n):
    if n >= 8:
        mul = _K2 + n * 2
        a = (_fetch64(data, 0) + _K2) & _MASK
        b = _fetch64(data, n - 8)
        c = (_rotate(b, 37) * mul + a) & _MASK
        d = ((_rotate(a, 25) + b) * mul) & _MASK
        return _hash16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        return _hash16(n + (_fetch32(data, 0) << 3), _fetch32(data, n - 4), mul)
    if n > 0:
        y = (data[0] + (data[n >> 1] << 8)) & 0xFFFFFFFF
        z = (n + (data[n - 1] << 2)) & 0xFFFFFFFF
        return (_shift_mix((y * _K2 ^ z * _K0) & _MASK) * _K2) & _MASK
    return _K2


def _hash17to32(data, n):
    mul = _K2 + n * 2
    a = (_fetch64(data, 0) * _K1) & _MASK
    b = _fetch64(data, 8)
    c = (_fetch64(data, n - 8) * mul) & _MASK
    d = (_fetch64(data, n - 16) * _K2) & _MASK
    return _hash16((_rotate((a + b) & _MASK, 43) + _rotate(c, 30) + d) & _MASK,
                   (a + _rotate((b + _K2) & _MASK, 18) + c) & _MASK, mul)


def _hash33to64(data, n):
    mul = _K2 + n * 2
    a = (_fetch64(data, 0) * _K2) & _MASK
    b = _fetch64(data, 8)
    c = (_fetch64(data, n - 8) * mul) & _MASK
    d = (_fetch64(data, n - 16) * _K2) & _MASK
    y = (_rotate((a + b) & _MASK, 43) + _rotate(c, 30) + d) & _MASK
    z = _hash16(y, (a + _rotate((b + _K2) & _MASK, 18) + c) & _MASK, mul)
    e = (_fetch64(data, 16) * mul) & _MASK
    f = _fetch64(data, 24)
    g = ((y + _fetch64(data, n - 32)) * mul) & _MASK
    h = ((z + _fetch64(data, n - 24)) * mul) & _MASK
    return _hash16((_rotate((e + f) & _MASK, 43) + _rotate(g, 30) + h) & _MASK,
                   (e + _rotate((f + a) & _MASK, 18) + g) & _MASK, mul)


def _weak32(data, at, a, b):
    """WeakHashLen32WithSeeds over the 32 bytes at `at`, as a pair."""
    w, x, y, z = (_fetch64(data, at + 8 * i) for i in range(4))
    a = (a + w) & _MASK
    b = _rotate((b + a + z) & _MASK, 21)
    c = a
    a = (a + x + y) & _MASK
    b = (b + _rotate(a, 44)) & _MASK
    return (a + z) & _MASK, (b + c) & _MASK


def fingerprint64(data: bytes) -> int:
    """FarmHash Fingerprint64 of `data`, an unsigned 64-bit int."""
    n = len(data)
    if n <= 16:
        return _hash0to16(data, n)
    if n <= 32:
        return _hash17to32(data, n)
    if n <= 64:
        return _hash33to64(data, n)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _MASK
    z = (_shift_mix((y * _K2 + 113) & _MASK) * _K2) & _MASK
    v, w = (0, 0), (0, 0)
    x = (x * _K2 + _fetch64(data, 0)) & _MASK
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    at = 0
    while True:
        x = (_rotate((x + y + v[0] + _fetch64(data, at + 8)) & _MASK, 37) * _K1) & _MASK
        y = (_rotate((y + v[1] + _fetch64(data, at + 48)) & _MASK, 42) * _K1) & _MASK
        x ^= w[1]
        y = (y + v[0] + _fetch64(data, at + 40)) & _MASK
        z = (_rotate((z + w[0]) & _MASK, 33) * _K1) & _MASK
        v = _weak32(data, at, (v[1] * _K1) & _MASK, (x + w[0]) & _MASK)
        w = _weak32(data, at + 32, (z + w[1]) & _MASK, (y + _fetch64(data, at + 16)) & _MASK)
        z, x = x, z
        at += 64
        if at == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    at = last64
    w0 = (w[0] + ((n - 1) & 63)) & _MASK
    v0 = (v[0] + w0) & _MASK
    w0 = (w0 + v0) & _MASK
    v, w = (v0, v[1]), (w0, w[1])
    x = (_rotate((x + y + v[0] + _fetch64(data, at + 8)) & _MASK, 37) * mul) & _MASK
    y = (_rotate((y + v[1] + _fetch64(data, at + 48)) & _MASK, 42) * mul) & _MASK
    x ^= (w[1] * 9) & _MASK
    y = (y + v[0] * 9 + _fetch64(data, at + 40)) & _MASK
    z = (_rotate((z + w[0]) & _MASK, 33) * mul) & _MASK
    v = _weak32(data, at, (v[1] * mul) & _MASK, (x + w[0]) & _MASK)
    w = _weak32(data, at + 32, (z + w[1]) & _MASK, (y + _fetch64(data, at + 16)) & _MASK)
    z, x = x, z
    return _hash16((_hash16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _MASK,
                   (_hash16(v[1], w[1], mul) + x) & _MASK, mul)
