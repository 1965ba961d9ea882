"""Writes this folder's TensorFlow checkpoints. NOT run by the test suite, and not project code:
it needs real TensorFlow (2.21.0, `pip install tensorflow-cpu==2.21.0` in a throwaway virtual
environment), which the project never imports. Run once, from this folder:

    /tmp/tfenv/bin/python make_tf_fixture.py

It saves a tf.Module holding variables of several dtypes and shapes, a nested module and a
list of modules, (1) with `Checkpoint.write` to `tf_module_ckpt` and (2) three times through a
`CheckpointManager(max_to_keep=2)` in `tf_manager/`; (3) writes `tf_dtypes_ckpt`, one variable
of each remaining dtype; then records in `tf_expected.json` what TensorFlow reads back: every
key with its dtype, shape and values (complex numbers as [real, imaginary] pairs).
"""

import json
import os

import numpy as np
import tensorflow as tf


class Dense(tf.Module):
    def __init__(self, inputs, outputs, seed):
        super().__init__()
        values = np.arange(inputs * outputs, dtype=np.float32).reshape(inputs, outputs)
        self.kernel = tf.Variable(values / (seed + 10.0), name="kernel")
        self.bias = tf.Variable(np.full([outputs], seed, np.float32), name="bias")


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.matrix = tf.Variable([[1.5, -2.0, 3.25], [0.0, 1e-3, -7.5]], name="matrix")
        self.counts = tf.Variable(np.array([1, -2, 2**40], np.int64), name="counts")
        self.label = tf.Variable(b"hello \xff checkpoint", name="label")
        self.flag = tf.Variable(True, name="flag")
        self.steps = tf.Variable(np.int32(7), name="steps")
        self.precise = tf.Variable(np.float64(np.pi), name="precise")
        self.encoder = Dense(2, 3, seed=1)
        self.layers = [Dense(3, 2, seed=2), Dense(2, 1, seed=3)]


def dtype_variables():
    module = tf.Module()
    module.u8 = tf.Variable(np.array([0, 7, 255], np.uint8))
    module.i8 = tf.Variable(np.array([-128, 5, 127], np.int8))
    module.i16 = tf.Variable(np.array([[-30000, 2], [3, 30000]], np.int16))
    module.u16 = tf.Variable(np.array([65535, 1], np.uint16))
    module.u32 = tf.Variable(np.array([2**32 - 1], np.uint32))
    module.u64 = tf.Variable(np.array([2**64 - 1, 3], np.uint64))
    module.f16 = tf.Variable(np.array([0.5, -65504.0, 1e-4], np.float16))
    module.bf16 = tf.Variable(tf.constant([1.5, -3.0, 1e10], tf.bfloat16))
    module.c64 = tf.Variable(np.array([1 + 2j, -3.5j], np.complex64))
    module.c128 = tf.Variable(np.array([[1e300 + 1j]], np.complex128))
    module.texts = tf.Variable([[b"", b"a"], [b"\x00\xff" * 40, "\u00e9t\u00e9".encode()]])
    module.empty = tf.Variable(np.zeros([0, 3], np.float32))
    return module


def records(reader):
    found = {}
    for name, shape in sorted(reader.get_variable_to_shape_map().items()):
        if name == "_CHECKPOINTABLE_OBJECT_GRAPH":
            continue
        dtype = reader.get_variable_to_dtype_map()[name]
        value = np.asarray(reader.get_tensor(name))
        if dtype == tf.string:
            value = {"bytes_hex": [bytes(v).hex() for v in value.reshape(-1)]}
        elif dtype.is_complex:
            value = np.stack([value.real, value.imag], axis=-1).tolist()
        else:
            value = value.astype(np.float64 if dtype == tf.bfloat16 else value.dtype).tolist()
        found[name] = {"dtype": dtype.name, "shape": shape, "value": value}
    return found


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    model = Model()
    ckpt = tf.train.Checkpoint(model=model, step=tf.Variable(42, dtype=tf.int64))
    prefix = ckpt.write(os.path.join(here, "tf_module_ckpt"))

    manager_dir = os.path.join(here, "tf_manager")
    manager = tf.train.CheckpointManager(
        tf.train.Checkpoint(model=model), manager_dir, max_to_keep=2)
    for step in range(3):
        model.steps.assign(100 + step)
        manager.save()

    dtypes_prefix = tf.train.Checkpoint(module=dtype_variables()).write(
        os.path.join(here, "tf_dtypes_ckpt"))

    expected = {"prefix": "tf_module_ckpt", "tensorflow": tf.__version__,
                "tensors": records(tf.train.load_checkpoint(prefix)),
                "dtypes": records(tf.train.load_checkpoint(dtypes_prefix)),
                "manager_latest": os.path.basename(manager.latest_checkpoint),
                "manager_checkpoints": [os.path.basename(p) for p in manager.checkpoints]}
    with open(os.path.join(here, "tf_expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
