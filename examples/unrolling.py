"""Loops that unroll and loops that stage, for `autograph explain`:

    autograph explain examples/unrolling.py:accumulate --arg "float32[None]" --arg 4
"""

import autograph.tf as tf


@tf.function
def accumulate(x, n):
    total = tf.zeros_like(x)
    for i in range(n):  # unrolled on purpose (n is a Python int)  # autograph: noqa[AG301]
        total += x * i
    squares = []
    for i in tf.range(tf.shape(x)[0]):  # a tensor range: one While op
        squares.append(x[i] * x[i])
    for _ in range(1000):               # range of a constant: always plain Python
        total = total * 0.5
    return total, tf.stack(squares)
