"""A short tour of the guide's basics, runnable as `python examples/guide_tour.py`."""

import autograph.tf as tf


@tf.function
def add(a, b):
    return a + b


@tf.function
def dense_layer(x, w, b):
    return add(tf.matmul(x, w), b)


@tf.function
def double(a):
    print("Tracing with", a)
    return a + a


def main():
    print(add(tf.ones([2, 2]), tf.ones([2, 2])))
    print(dense_layer(tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2])))
    print(double(tf.constant(1)))
    print(double(tf.constant(1.1)))
    print(double(tf.constant("a")))
    print(double(tf.constant("b")))  # no retrace: same signature
    print(double.pretty_printed_concrete_signatures())
    graph = double.get_concrete_function(tf.constant("a")).graph
    for node in graph.as_graph_def().node:
        print(f"{node.input} -> {node.name}")


if __name__ == "__main__":
    main()
