"""FarmHash's Fingerprint64, against the bucket ids TensorFlow 2.21 gave for the same bytes
(`tf.strings.to_hash_bucket_fast(s, 2**63 - 1)` and `(s, 1000)`), for every length branch."""

import numpy as np
import pytest

from runtime import dtypes
from runtime.composite import ragged
from runtime.function import function
from runtime.ops import array_ops, string_ops
from runtime.ops.farmhash import fingerprint64

# (i, n): the bytes (i*7 + j*13) % 256 for j < n; TensorFlow's bucket among 2**63 - 1.
TF_BUCKETS = {
    (0, 0): 1936946117179621456, (1, 1): 6305636504242451570, (3, 3): 2051527045279022880,
    (4, 4): 2718641642552064224, (7, 7): 764457165375642483, (8, 8): 1695866316848129920,
    (15, 15): 9177274985191460835, (16, 16): 880286662133690020,
    (17, 17): 8182271319169275469, (31, 31): 6801888243473599812,
    (32, 32): 6903550707466926812, (33, 33): 6398851967807511122,
    (63, 63): 6093794153784983520, (64, 64): 9090965917876325991,
    (65, 65): 3237992872057361651, (127, 127): 1407915056189956957,
    (128, 128): 2247676925889027243, (129, 129): 8706036563478387824,
    (140, 200): 9025298152728299419, (142, 256): 4864949620536465428,
    (144, 1000): 2189964193370808158,
}
WORDS = {"Who": 785, "Dan": 957, "#+Who": 627, "Smith+#": 560, "hello world": 11,
         "ünïcode": 954}


@pytest.mark.parametrize("i, n", sorted(TF_BUCKETS))
def test_fingerprint_matches_tensorflows_bucket(i, n):
    data = bytes((i * 7 + j * 13) % 256 for j in range(n))
    assert fingerprint64(data) % (2**63 - 1) == TF_BUCKETS[i, n]


@pytest.mark.parametrize("traced", [False, True])
def test_to_hash_bucket_fast_gives_tensorflows_buckets(traced):
    def buckets(words):
        return string_ops.to_hash_bucket_fast(words, 1000)
    run = function(buckets) if traced else buckets
    out = run(array_ops.constant(list(WORDS)))
    assert out.dtype is dtypes.int64
    np.testing.assert_array_equal(out.numpy(), list(WORDS.values()))


def test_to_hash_bucket_fast_of_a_ragged_tensor_keeps_its_rows():
    out = string_ops.to_hash_bucket_fast(ragged.constant([["Who", "Dan"], [], ["Who"]]), 1000)
    assert out.to_list() == [[785, 957], [], [785]]
