"""Writes image_ops_tf.npz, what TensorFlow computes for the tf.image cases of
tests/autograph/image_op_cases.py. NOT run by the test suite, and not project code: it needs
real TensorFlow (2.21), which the project never imports. Run once, from the repository root:

    /tmp/tfenv/bin/python tests/autograph/data/make_image_fixture.py

For each case it records the value (`<name>:value`) and the gradient with respect to each
input it names, under the output gradient `image_op_cases.upstream(value)` (`<name>:grad<i>`).
"""

import importlib.util
import os

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "image_op_cases", os.path.join(HERE, "..", "image_op_cases.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)


def run(name, func, inputs, wrt):
    tensors = [tf.constant(x) for x in inputs]
    with tf.GradientTape(persistent=True) as tape:
        for t in tensors:
            tape.watch(t)
        value = func(tf, *tensors)
    out = {name + ":value": value.numpy()}
    weights = tf.constant(cases.upstream(value.numpy()))
    for i in wrt:
        out["%s:grad%d" % (name, i)] = tape.gradient(value, tensors[i],
                                                     output_gradients=weights).numpy()
    return out


def main():
    results = {}
    for name, (func, inputs, wrt) in sorted(cases.CASES.items()):
        results.update(run(name, func, inputs, wrt))
    np.savez_compressed(os.path.join(HERE, "image_ops_tf.npz"), **results)


if __name__ == "__main__":
    main()
