"""Variables under threads: updates from several threads at once are never lost, eagerly and
in Functions on every backend (each update holds the variable's lock from its read to its
write, as TensorFlow's resource variable updates do), a variable read during updates is
always one of the values it held, and a variable created lazily by a first call that several
threads make at once is created and initialised once, before any of them reads it."""

import importlib.util
import sys
import threading

import numpy as np
import pytest

import autograph.tf as tf

BACKENDS = ["numpy"] + [name for name in ("numba", "jax")
                        if importlib.util.find_spec(name) is not None]
THREADS, UPDATES = 8, 300


@pytest.fixture(autouse=True)
def frequent_thread_switches():
    """Threads switch every microsecond (the default is every 5 ms), so that a read and a
    write of one update that are not held together do interleave with other threads'."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def _in_threads(step, updates=UPDATES):
    errors = []
    start = threading.Barrier(THREADS)

    def work():
        start.wait()
        try:
            for _ in range(updates):
                step()
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def _function(f, backend):
    if backend == "numpy":
        return tf.function(f)
    return tf.function(f, backend=backend, strict=True)


def test_eager_updates_from_threads_are_all_kept():
    v = tf.Variable(0)
    w = tf.Variable(0.0, dtype=tf.float64)

    def step():
        v.assign_add(1)
        w.assign_sub(0.5)

    _in_threads(step)
    assert v.numpy() == THREADS * UPDATES
    assert w.numpy() == -0.5 * THREADS * UPDATES


@pytest.mark.parametrize("backend", BACKENDS)
def test_function_updates_from_threads_are_all_kept(backend):
    v = tf.Variable(0)
    step = _function(lambda: v.assign_add(1), backend)
    step()
    v.assign(0)
    _in_threads(step)
    assert v.numpy() == THREADS * UPDATES


@pytest.mark.parametrize("backend", BACKENDS)
def test_updates_of_a_variable_argument_from_threads_are_all_kept(backend):
    v = tf.Variable(np.zeros(3, np.float32))
    step = _function(lambda var: var.assign_add(tf.ones([3])), backend)
    step(v)
    v.assign(np.zeros(3, np.float32))
    _in_threads(lambda: step(v))
    np.testing.assert_array_equal(v.numpy(), np.full(3, THREADS * UPDATES, np.float32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_read_during_assignments_sees_a_value_the_variable_held(backend):
    v = tf.Variable(0)
    write = _function(lambda: v.assign(v + 1), backend)
    reads = []
    write()
    _in_threads(lambda: (write(), reads.append(int(v.numpy()))))
    assert all(1 <= r <= THREADS * UPDATES + 1 for r in reads)


@pytest.mark.parametrize("backend", BACKENDS)
def test_threads_updating_overlapping_variables_in_other_orders_finish(backend):
    a, b = tf.Variable(0), tf.Variable(0)
    ab = _function(lambda: (a.assign_add(1), b.assign_add(1))[0], backend)
    ba = _function(lambda: (b.assign_add(2), a.assign_add(2))[0], backend)
    ab()
    ba()
    a.assign(0)
    b.assign(0)
    turn = iter(range(10 ** 9))
    _in_threads(lambda: ab() if next(turn) % 2 else ba())
    assert a.numpy() == b.numpy() == THREADS * UPDATES * 3 // 2


def test_a_variable_created_lazily_by_a_first_call_from_threads_is_created_once():
    class Scaler(tf.Module):
        def __init__(self):
            super().__init__()
            self.scale = None

        @tf.function
        def __call__(self, x):
            if self.scale is None:  # its initial value depends on the argument
                self.scale = tf.Variable(x * 2.0)
            return self.scale * x

    scaler = Scaler()
    results = []
    _in_threads(lambda: results.append(float(scaler(tf.constant(3.0)))), updates=1)
    assert results == [18.0] * THREADS
    assert len(scaler.variables) == 1
