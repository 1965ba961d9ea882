"""`autograph check` over the examples of the guide "Better performance with tf.function"
(../shared/seeds, all versions): the examples the guide presents as right give no finding,
and each pitfall it shows gives the finding for it.

Each snippet is one example as the guide writes it (with `import autograph.tf as tf`), and
the calls around it that the pitfall needs (the guide spreads some over several cells).
"""

import pytest

from autograph import lint

HEADER = "import autograph.tf as tf\n\n"

GOOD = {
    "basics: add and dense_layer": '''
@tf.function
def add(a, b):
    return a + b

@tf.function
def dense_layer(x, w, b):
    return add(tf.matmul(x, w), b)

dense_layer(tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2]))
''',
    "basics: a convolution layer": '''
conv_layer = tf.keras.layers.Conv2D(100, 3)

@tf.function
def conv_fn(image):
    return conv_layer(image)
''',
    # The guide's prints that say "Tracing ..." show when tracing happens, on purpose.
    "tracing: double prints while tracing": '''
@tf.function
def double(a):
    print("Tracing with", a)
    return a + a

print(double(tf.constant(1)))
print(double(tf.constant(1.1)))
print(double(tf.constant("a")))
''',
    "retracing: input_signature": '''
@tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
def next_collatz(x):
    print("Tracing with", x)
    return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

print(next_collatz(tf.constant([1, 2])))
''',
    "retracing: a None dimension": '''
@tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
def g(x):
    print('Tracing with', x)
    return x

print(g(tf.constant([1, 2, 3])))
print(g(tf.constant([1, 2, 3, 4, 5])))
''',
    "retracing: Python arguments cast to tensors": '''
def train_one_step():
    pass

@tf.function
def train(num_steps):
    print("Tracing with num_steps = ", num_steps)
    tf.print("Executing with num_steps = ", num_steps)
    for _ in tf.range(num_steps):
        train_one_step()

train(num_steps=tf.constant(10))
train(num_steps=tf.constant(20))
''',
    "retracing: a new Function forces a trace": '''
def f():
    print('Tracing!')
    tf.print('Executing')

tf.function(f)()
tf.function(f)()
''',
    "concrete functions: pow with a Python argument": '''
@tf.function
def pow(a, b):
    return a ** b

square = pow.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
''',
    "autograph: a simple loop": '''
@tf.function
def f(x):
    while tf.reduce_sum(x) > 1:
        tf.print(x)
        x = tf.tanh(x)
    return x

f(tf.random.uniform([5]))
''',
    "autograph: fizzbuzz": '''
@tf.function
def fizzbuzz(n):
    for i in tf.range(1, n + 1):
        print('Tracing for loop')
        if i % 15 == 0:
            print('Tracing fizzbuzz branch')
            tf.print('fizzbuzz')
        elif i % 3 == 0:
            print('Tracing fizz branch')
            tf.print('fizz')
        elif i % 5 == 0:
            print('Tracing buzz branch')
            tf.print('buzz')
        else:
            print('Tracing default branch')
            tf.print(i)

fizzbuzz(tf.constant(5))
fizzbuzz(tf.constant(20))
''',
    "loops: train over a dataset": '''
def measure_graph_size(f, *args):
    g = f.get_concrete_function(*args).graph
    print("{}({}) contains {} nodes in its graph".format(
        f.__name__, ', '.join(map(str, args)), len(g.as_graph_def().node)))

@tf.function
def train(dataset):
    loss = tf.constant(0)
    for x, y in dataset:
        loss += tf.abs(y - x)
    return loss

small_data = [(1, 1)] * 3
measure_graph_size(train, tf.data.Dataset.from_generator(
    lambda: small_data, (tf.int32, tf.int32)))
''',
    "loops: tf.range instead of range (older guide)": '''
@tf.function
def train(n):
    for i in tf.range(n):
        tf.print(i)
''',
    "accumulating: dynamic_rnn with a TensorArray": '''
batch_size = 2
seq_len = 3
feature_size = 4

def rnn_step(inp, state):
    return inp + state

@tf.function
def dynamic_rnn(rnn_step, input_data, initial_state):
    # [batch, time, features] -> [time, batch, features]
    input_data = tf.transpose(input_data, [1, 0, 2])
    max_seq_len = input_data.shape[0]

    states = tf.TensorArray(tf.float32, size=max_seq_len)
    state = initial_state
    for i in tf.range(max_seq_len):
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
    return tf.transpose(states.stack(), [1, 0, 2])

dynamic_rnn(rnn_step,
            tf.random.uniform([batch_size, seq_len, feature_size]),
            tf.zeros([batch_size, feature_size]))
''',
    # "Traced with" says the print reports tracing; the guide contrasts it with tf.print.
    "side effects: print while tracing, tf.print on every call": '''
@tf.function
def f(x):
    print("Traced with", x)
    tf.print("Executed with", x)

f(1)
f(1)
''',
    "side effects: py_function runs Python on every call (older guide)": '''
external_list = []

def side_effect(x):
    print('Python side effect')
    external_list.append(x)

@tf.function
def f(x):
    tf.py_function(side_effect, inp=[x], Tout=[])

f(1)
f(1)
''',
    "iterators: a tf.data iterator": '''
@tf.function
def good_consume_next(iterator):
    # This is ok, iterator is a tf.data.Iterator
    tf.print("Value:", next(iterator))

ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
iterator = iter(ds)
good_consume_next(iterator)
good_consume_next(iterator)
''',
    "known issues: recommended_add takes the value as an argument": '''
@tf.function
def recommended_add(foo):
    return 1 + foo

foo = 1
print("Correct:", recommended_add(foo))
foo = 100
print("Correct:", recommended_add(foo))
''',
    "known issues: a new Function after changing the object": '''
class SimpleModel(tf.Module):
    def __init__(self):
        self.bias = 0.
        self.weight = 2.

def evaluate(model, x):
    return model.weight * x + model.bias

x = tf.constant(10.)
new_model = SimpleModel()
evaluate_no_bias = tf.function(evaluate).get_concrete_function(new_model, x)
print(evaluate_no_bias(x))
new_model.bias += 5.0
evaluate_with_bias = tf.function(evaluate).get_concrete_function(new_model, x)
print(evaluate_with_bias(x))
''',
    "known issues: tf.Variables as object attributes": '''
class BetterModel:
    def __init__(self):
        self.bias = tf.Variable(0.)
        self.weight = tf.Variable(2.)

@tf.function
def evaluate(model, x):
    return model.weight * x + model.bias

x = tf.constant(10.)
better_model = BetterModel()
print(evaluate(better_model, x))
better_model.bias.assign_add(5.0)  # Note: instead of better_model.bias += 5
print(evaluate(better_model, x))
''',
    "variables: created once under `if self.count is None`": '''
class Count(tf.Module):
    def __init__(self):
        self.count = None

    @tf.function
    def __call__(self):
        if self.count is None:
            self.count = tf.Variable(0)
        return self.count.assign_add(1)

c = Count()
print(c())
print(c())
''',
    "variables: created outside, assigned inside (older guide)": '''
v = tf.Variable(1.0)

@tf.function
def f(x):
    return v.assign_add(x)

print(f(1.0))
print(f(2.0))
''',
    "variables: created once on an object (older guide)": '''
class C:
    pass

obj = C()
obj.v = None

@tf.function
def g(x):
    if obj.v is None:
        obj.v = tf.Variable(1.0)
    return obj.v.assign_add(x)

print(g(1.0))
print(g(2.0))
''',
    "variables: initialisation order (older guide)": '''
state = []

@tf.function
def fn(x):
    if not state:
        state.append(tf.Variable(2.0 * x))
        state.append(tf.Variable(state[0] * 3.0))
    return state[0] * x * state[1]

fn(tf.constant(1.0))
fn(tf.constant(3.0))
''',
    "optimizers: a new Function per optimizer": '''
opt1 = tf.keras.optimizers.Adam(learning_rate = 1e-2)
opt2 = tf.keras.optimizers.Adam(learning_rate = 1e-3)

def train_step(w, x, y, optimizer):
    with tf.GradientTape() as tape:
        L = tf.reduce_sum(tf.square(w*x - y))
    gradients = tape.gradient(L, [w])
    optimizer.apply_gradients(zip(gradients, [w]))

w = tf.Variable(2.)
x = tf.constant([-1.])
y = tf.constant([2.])
train_step_1 = tf.function(train_step).get_concrete_function(w, x, y, opt1)
train_step_2 = tf.function(train_step).get_concrete_function(w, x, y, opt2)
for i in range(10):
    if i % 2 == 0:
        train_step_1(w, x, y)
    else:
        train_step_2(w, x, y)
''',
}

PITFALLS = {
    "retracing: Python arguments retrace": ('''
@tf.function
def train(num_steps):
    print("Tracing with num_steps = ", num_steps)
    tf.print("Executing with num_steps = ", num_steps)
    for _ in tf.range(num_steps):
        pass

train(num_steps=10)
train(num_steps=20)
''', {"AG701"}),
    "loops: range unrolls (older guide)": ('''
@tf.function
def train(n):
    for i in range(n):
        tf.print(i)

train(100)
''', {"AG301"}),
    "side effects: appending to an external list": ('''
external_list = []

@tf.function
def side_effect(x):
    print('Python side effect')
    external_list.append(x)

side_effect(1)
side_effect(1)
''', {"AG102"}),
    "iterators: a Python iterator": ('''
@tf.function
def buggy_consume_next(iterator):
    tf.print("Value:", next(iterator))

iterator = iter([1, 2, 3])
buggy_consume_next(iterator)
buggy_consume_next(iterator)
''', {"AG104"}),
    "variables: a Variable replaced after tracing": ('''
external_var = tf.Variable(3)

@tf.function
def f(x):
    return x * external_var

traced_f = f.get_concrete_function(4)
print(traced_f(4))
external_var = tf.Variable(4)
''', {"AG501"}),
    "outputs: leaking a tensor through a global": ('''
x = None

@tf.function
def leaky_function(a):
    global x
    x = a + 1  # Bad - leaks local tensor
    return a + 2
''', {"AG103"}),
    "outputs: leaking a tensor that is also returned": ('''
x = None

@tf.function
def leaky_function(a):
    global x
    x = a + 1  # Bad - leaks local tensor
    return x  # Good - uses local tensor
''', {"AG103"}),
    "outputs: a Function that reads the leaked tensor": ('''
x = None

@tf.function
def leaky_function(a):
    global x
    x = a + 1
    return x

@tf.function
def captures_leaked_tensor(b):
    b += x  # Bad - `x` is leaked from `leaky_function`
    return b
''', {"AG103", "AG501"}),
    # The guide shows this body without its decorator, as what to avoid inside one.
    "outputs: leaking through a collection and an object": ('''
class MyClass:
    def __init__(self):
        self.field = None

external_list = []
external_object = MyClass()

@tf.function
def leaky_function():
    a = tf.constant(1)
    external_list.append(a)  # Bad - leaks tensor
    external_object.field = a  # Bad - leaks tensor
''', {"AG102"}),
    "known issues: buggy_add reads a global that changes": ('''
@tf.function
def buggy_add():
    return 1 + foo

foo = 1
print("Buggy:", buggy_add())
foo = 100
print("Buggy:", buggy_add())  # Did not change!
''', {"AG501"}),
    "known issues: changing an attribute of the same object": ('''
class SimpleModel(tf.Module):
    def __init__(self):
        # These values are *not* tf.Variables.
        self.bias = 0.
        self.weight = 2.

@tf.function
def evaluate(model, x):
    return model.weight * x + model.bias

simple_model = SimpleModel()
x = tf.constant(10.)
print(evaluate(simple_model, x))
simple_model.bias += 5.0
print(evaluate(simple_model, x))  # Didn't change :(
''', {"AG502"}),
    "variables: a Variable created on every call": ('''
@tf.function
def f(x):
    v = tf.Variable(1.0)
    return v

f(1.0)
''', {"AG201"}),
}


def _codes(source):
    return {f.code for f in lint.check_source(HEADER + source, "snippet.py")}


@pytest.mark.parametrize("name", sorted(GOOD))
def test_guide_example_presented_as_right_gives_no_finding(name):
    assert lint.check_source(HEADER + GOOD[name], "snippet.py") == []


@pytest.mark.parametrize("name", sorted(PITFALLS))
def test_guide_pitfall_gives_its_finding(name):
    source, expected = PITFALLS[name]
    assert _codes(source) == expected


def test_the_side_effect_example_with_a_print_of_its_value_is_reported():
    # The same function as the guide's "Traced with" example, printing the value instead.
    source = '''
@tf.function
def f(x):
    print("Value:", x)
    tf.print("Executed with", x)
'''
    assert _codes(source) == {"AG101"}
