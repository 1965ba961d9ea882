"""Functions with `if`/`while`/`for` over tensors, for `autograph convert`.

    autograph convert examples/cli_demo.py -o /tmp/cli_demo_converted.py
    python /tmp/cli_demo_converted.py

Run as it is, `tf.function` converts each function when it is first traced; the converted
file holds the already-converted functions and runs the same way.
"""

import autograph.tf as tf


@tf.function
def tanh_until_small(x):
    """Applies tanh until the elements sum to at most 1: one While op in the graph."""
    while tf.reduce_sum(x) > 1:
        x = tf.tanh(x)
    return x


@tf.function
def fizzbuzz(n):
    """The guide's fizzbuzz: a loop over a tensor range with a tensor if/elif chain."""
    for i in tf.range(1, n + 1):
        if i % 15 == 0:
            tf.print("fizzbuzz")
        elif i % 3 == 0:
            tf.print("fizz")
        elif i % 5 == 0:
            tf.print("buzz")
        else:
            tf.print(i)


def clipped_sum(values, limit):
    """Sums `values`, stopping before the total would pass `limit` (works on plain Python
    numbers and on tensors alike)."""
    total = 0.0
    for v in values:
        if total + v > limit:
            break
        total += v
    return total


class Collatz:
    """A method whose loop runs on a tensor: the number of Collatz steps from `n` to 1."""

    def steps(self, n):
        count = 0
        while n > 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            count += 1
        return count


if __name__ == "__main__":
    print("tanh_until_small:", tanh_until_small(tf.constant([0.9, 0.8, 0.7, 0.6, 0.5])))
    print("fizzbuzz(15), printed by tf.print in the graph:", flush=True)
    fizzbuzz(tf.constant(15))
    print("clipped_sum (Python):", clipped_sum([1.0, 2.0, 3.0, 4.0], 6.5))
    print("clipped_sum (graph):",
          tf.function(clipped_sum)(tf.constant([1.0, 2.0, 3.0, 4.0]), tf.constant(6.5)))
    print("Collatz steps from 27 (graph):", tf.function(Collatz().steps)(tf.constant(27)))
