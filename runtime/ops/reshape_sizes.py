"""How the sizes asked of a reshape resolve against its input's shape, by TensorFlow's rules,
and the words TensorFlow uses when they cannot.

TensorFlow's Reshape kernel reads the requested sizes in order: at most one may be -1 (the
size left to fill), no other may be negative. The product of the positive sizes must then
divide the input's element count, where an input dimension of size 0 is left out of that
count when a requested size is 0 too (so that `[0, -1]` of a `(0, 3)` tensor is `(0, 3)`,
where numpy refuses to guess), and the resolved shape must hold as many elements as the
input. Its shape function, which checks the same while a graph is built, words the
failures otherwise: both texts come with each refusal.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


class ReshapeRefused(Exception):
    """The sizes cannot reshape the input: `kernel_text` is what TensorFlow's kernel says
    (an eager call, a graph run), `graph_text` what its shape function says while a graph
    is built."""

    def __init__(self, kernel_text: str, graph_text: str) -> None:
        super().__init__(kernel_text)
        self.kernel_text = kernel_text
        self.graph_text = graph_text


def resolve(input_shape: Sequence[int], sizes: Sequence[int]) -> tuple[int, ...]:
    """The shape a reshape of a tensor of `input_shape` to `sizes` (ints, one may be -1)
    gives; raises ReshapeRefused with TensorFlow's words when there is none."""
    wildcard = None
    product = 1
    sizes_have_zero = False
    for position, size in enumerate(sizes):
        if size == -1:
            if wildcard is not None:
                text = "Only one input size may be -1, not both %d and %d" % (wildcard, position)
                raise ReshapeRefused(text, text)
            wildcard = position
        elif size < 0:
            raise ReshapeRefused("Size %d must be non-negative, not %d" % (position, size),
                                 "Invalid value in tensor used for shape: %d" % size)
        elif size == 0:
            sizes_have_zero = True
        else:
            product *= size
    total = math.prod(input_shape)
    resolved = list(sizes)
    if wildcard is not None:
        counted, skipped_zero = 1, False
        for d in input_shape:
            if d > 0 or not sizes_have_zero:
                counted *= d
            else:
                skipped_zero = True
        missing = counted // product
        if not skipped_zero and missing * product != counted:
            raise ReshapeRefused(
                "Input to reshape is a tensor with %d values, but the requested shape "
                "requires a multiple of %d" % (total, product),
                "Dimension size must be evenly divisible by %d but is %d" % (product, total))
        resolved[wildcard] = missing
    count = math.prod(resolved)
    if count != total:
        raise ReshapeRefused(
            "Input to reshape is a tensor with %d values, but the requested shape has %d"
            % (total, count),
            "Cannot reshape a tensor with %d elements to shape [%s] (%d elements)"
            % (total, ",".join("?" if s == -1 else str(s) for s in sizes), count))
    return tuple(resolved)


def sizes_not_a_vector(rank: int, shape_text: str) -> ReshapeRefused:
    """The refusal of sizes given as a tensor of rank `rank` (shape `shape_text`, as
    TensorFlow prints it: '[1,2]') other than 1."""
    return ReshapeRefused("sizes input must be 1-D, not %s" % shape_text,
                          "Shape must be rank 1 but is rank %d" % rank)
