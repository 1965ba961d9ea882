"""Writes complex_ops_tf.npz, what TensorFlow computes for the complex-number cases of
tests/autograph/complex_op_cases.py. NOT run by the test suite, and not project code: it needs
real TensorFlow (2.21), which the project never imports. Run once, from the repository root:

    /tmp/tfenv/bin/python tests/autograph/data/make_complex_fixture.py

For each case it records the value (`<name>:value`), the gradient with respect to each input
it names, under the output gradient `complex_op_cases.upstream(value)` (`<name>:grad<i>`; a
gradient TensorFlow leaves None is not recorded), or the message of the error TensorFlow
raises (`<name>:error`).
"""

import importlib.util
import os

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "complex_op_cases", os.path.join(HERE, "..", "complex_op_cases.py"))
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
        grad = tape.gradient(value, tensors[i], output_gradients=weights)
        if grad is not None:
            out["%s:grad%d" % (name, i)] = tf.convert_to_tensor(grad).numpy()
    return out


def main():
    results = {}
    for name, (func, inputs, wrt) in cases.CASES.items():
        try:
            results.update(run(name, func, inputs, wrt))
        except Exception as error:  # noqa: BLE001 - the message is the record
            results[name + ":error"] = np.array("%s: %s" % (type(error).__name__, error))
    np.savez(os.path.join(HERE, "complex_ops_tf.npz"), **results)
    for key in sorted(results):
        print(key, results[key] if key.endswith("error") else results[key].dtype)


if __name__ == "__main__":
    main()
