"""Guide section "AutoGraph transformations": the simple loop, conditionals (fizzbuzz), loops,
looping over Python data, `range` versus `tf.range` (older guide versions) and accumulating
values in a loop.

`tf.print` writes to stderr when the graph runs; Python's `print` writes to stdout while
tracing. Both are captured with capsys.
"""

import numpy as np

import autograph.tf as tf


def make_simple_loop():
    # A simple loop
    @tf.function
    def f(x):
        while tf.reduce_sum(x) > 1:
            tf.print(x)
            x = tf.tanh(x)
        return x
    return f


def make_fizzbuzz():
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
    return fizzbuzz


def measure_graph_size(f, *args):
    g = f.get_concrete_function(*args).graph
    print("{}({}) contains {} nodes in its graph".format(
        f.__name__, ', '.join(map(str, args)), len(g.as_graph_def().node)))


def graph_size(f, *args):
    return len(f.get_concrete_function(*args).graph.as_graph_def().node)


def op_types(f, *args):
    return [node.op for node in f.get_concrete_function(*args).graph.as_graph_def().node]


def count_staged(ops, kind):
    return ops.count(kind) + ops.count("Stateless" + kind)


# -- A simple loop ---------------------------------------------------------------------------------

# The guide's run: the input drawn by tf.random.uniform([5]), every tf.print line, the result.
GUIDE_INPUT = [0.134340048, 0.12084043, 0.899008512, 0.317973018, 0.984562874]
GUIDE_PRINTED = [
    [0.134340048, 0.12084043, 0.899008512, 0.317973018, 0.984562874],
    [0.133537665, 0.120255642, 0.715814829, 0.307672977, 0.755034447],
    [0.132749513, 0.119679272, 0.614310205, 0.298318624, 0.638142884],
    [0.131975174, 0.119111128, 0.547154069, 0.289773166, 0.56363374],
    [0.131214246, 0.118551008, 0.498384237, 0.281926, 0.510668516],
    [0.130466327, 0.117998719, 0.46084547, 0.274686694, 0.470465899],
    [0.129731074, 0.117454082, 0.43077302, 0.267980397, 0.438575685],
    [0.129008129, 0.116916925, 0.405967116, 0.261744559, 0.412463129],
    [0.12829715, 0.116387077, 0.385043025, 0.255926549, 0.390562057],
    [0.127597824, 0.115864381, 0.367079, 0.250481546, 0.371844649],
    [0.126909807, 0.115348652, 0.351434082, 0.245371237, 0.355604142],
    [0.126232818, 0.11483977, 0.337646723, 0.240562648, 0.341336131],
    [0.125566557, 0.114337578, 0.325374842, 0.236027122, 0.328669697],
    [0.124910742, 0.113841921, 0.314358741, 0.231739685, 0.317324936],
    [0.124265119, 0.113352649, 0.304397196, 0.227678493, 0.30708608],
    [0.123629414, 0.112869643, 0.295331478, 0.223824292, 0.297783881],
    [0.123003371, 0.112392753, 0.287034482, 0.220160022, 0.289283246],
    [0.122386754, 0.111921862, 0.279403061, 0.216670573, 0.281474978],
]
GUIDE_RESULT = [0.12177932, 0.11145685, 0.2723525, 0.21334243, 0.27426964]


def parse_printed(err):
    return [[float(v) for v in line.strip("[]").split()] for line in err.splitlines()]


def test_simple_loop_reproduces_the_guides_printed_values(capsys):
    f = make_simple_loop()
    result = f(tf.constant(GUIDE_INPUT))
    printed = capsys.readouterr().err
    assert printed.splitlines()[0] == "[0.134340048 0.12084043 0.899008512 0.317973018 0.984562874]"
    np.testing.assert_allclose(parse_printed(printed), GUIDE_PRINTED, rtol=1e-5)
    assert result.dtype == tf.float32 and tuple(result.shape) == (5,)
    np.testing.assert_allclose(result.numpy(), GUIDE_RESULT, rtol=1e-5)


def test_simple_loop_on_random_input_matches_a_numpy_loop(capsys):
    f = make_simple_loop()
    x = tf.random.uniform([5])
    expected = x.numpy()
    steps = []
    while expected.sum() > 1:
        steps.append(expected)
        expected = np.tanh(expected)
    result = f(x)
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-5)
    assert tf.reduce_sum(result).numpy() <= 1
    printed = parse_printed(capsys.readouterr().err)
    assert len(printed) == len(steps)
    np.testing.assert_allclose(printed, steps, rtol=1e-5)


def test_simple_loop_is_one_while_op_for_any_trip_count(capsys):
    f = make_simple_loop()
    f(tf.constant(GUIDE_INPUT))
    assert len(capsys.readouterr().err.splitlines()) == len(GUIDE_PRINTED)
    small = f(tf.constant([0.1, 0.2, 0.3, 0.1, 0.1]))  # sum <= 1: the body never runs
    assert capsys.readouterr().err == ""
    np.testing.assert_allclose(small.numpy(), [0.1, 0.2, 0.3, 0.1, 0.1])
    assert f.experimental_get_tracing_count() == 1
    assert count_staged(op_types(f, tf.constant(GUIDE_INPUT)), "While") == 1


def test_simple_loop_generated_code_is_a_while_stmt():
    f = make_simple_loop()
    code = tf.autograph.to_code(f.python_function)
    assert "def get_state():" in code and "def set_state(vars_):" in code
    assert "def loop_test():" in code and "def loop_body():" in code
    assert "ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('x',)" in code
    assert "ag__.converted_call(tf.tanh, (x,), None, fscope)" in code
    assert "ag__.converted_call(tf.print, (x,), None, fscope)" in code


# -- Conditionals ------------------------------------------------------------------------------

FIZZBUZZ_5 = ["1", "2", "fizz", "4", "buzz"]
FIZZBUZZ_20 = ["1", "2", "fizz", "4", "buzz", "fizz", "7", "8", "fizz", "buzz", "11", "fizz",
               "13", "14", "fizzbuzz", "16", "17", "fizz", "19", "buzz"]


def test_fizzbuzz_prints_the_guides_sequence_and_traces_each_branch_once(capsys):
    fizzbuzz = make_fizzbuzz()
    fizzbuzz(tf.constant(5))
    fizzbuzz(tf.constant(20))
    captured = capsys.readouterr()
    assert captured.out == ("Tracing for loop\n"
                            "Tracing fizzbuzz branch\n"
                            "Tracing fizz branch\n"
                            "Tracing buzz branch\n"
                            "Tracing default branch\n")
    assert captured.err.splitlines() == FIZZBUZZ_5 + FIZZBUZZ_20
    assert fizzbuzz.experimental_get_tracing_count() == 1


def test_fizzbuzz_later_calls_run_the_graph_without_python_prints(capsys):
    fizzbuzz = make_fizzbuzz()
    fizzbuzz(tf.constant(20))
    capsys.readouterr()
    fizzbuzz(tf.constant(15))
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == FIZZBUZZ_20[:15]


def test_fizzbuzz_graph_is_one_loop_holding_the_conditionals():
    fizzbuzz = make_fizzbuzz()
    ops = op_types(fizzbuzz, tf.constant(5))
    assert count_staged(ops, "While") == 1
    assert count_staged(ops, "If") == 0  # the if/elif chain lives inside the loop body
    assert "PrintV2" not in ops
    assert graph_size(fizzbuzz, tf.constant(5)) == graph_size(fizzbuzz, tf.constant(500))


def test_fizzbuzz_generated_code_has_for_and_if_statements():
    code = tf.autograph.to_code(make_fizzbuzz().python_function)
    assert code.count("ag__.for_stmt(") == 1
    assert code.count("ag__.if_stmt(") == 3  # if, and the two elifs nested in the else
    assert "print('Tracing fizzbuzz branch')" in code


def test_python_conditional_adds_only_one_branch_to_the_graph(capsys):
    @tf.function
    def f(x, use_square):
        if use_square:
            print("Tracing square branch")
            return tf.square(x)
        else:
            print("Tracing negate branch")
            return tf.negative(x)

    assert f(tf.constant(3), True).numpy() == 9
    assert capsys.readouterr().out == "Tracing square branch\n"
    ops = op_types(f, tf.constant(3), True)
    assert "Square" in ops and "Neg" not in ops
    assert count_staged(ops, "If") == 0


def test_tensor_conditional_adds_both_branches_and_chooses_at_run_time(capsys):
    @tf.function
    def f(x):
        if x > 0:
            print("Tracing square branch")
            y = tf.square(x)
        else:
            print("Tracing negate branch")
            y = tf.negative(x)
        return y

    assert [int(f(tf.constant(v)).numpy()) for v in (3, -3)] == [9, 3]
    assert capsys.readouterr().out == "Tracing square branch\nTracing negate branch\n"
    assert count_staged(op_types(f, tf.constant(3)), "If") == 1


# -- Loops -------------------------------------------------------------------------------------


def test_for_over_a_tensor_and_while_on_a_tensor_become_one_loop_op():
    @tf.function
    def total(xs):
        s = tf.constant(0)
        for x in xs:
            s += x
        return s

    @tf.function
    def countdown(n):
        steps = 0
        while n > 0:
            n -= 3
            steps += 1
        return steps

    assert total(tf.constant([1, 2, 3, 4])).numpy() == 10
    assert count_staged(op_types(total, tf.constant([1, 2, 3, 4])), "While") == 1
    assert [int(countdown(tf.constant(v)).numpy()) for v in (0, 1, 9, 10)] == [0, 1, 3, 4]
    assert count_staged(op_types(countdown, tf.constant(1)), "While") == 1
    assert countdown.experimental_get_tracing_count() == 1


def test_python_loop_adds_ops_for_every_iteration():
    @tf.function
    def f(x, steps):
        for _ in range(steps):
            x = tf.tanh(x)
        return x

    assert op_types(f, tf.constant(1.0), 3).count("Tanh") == 3
    assert op_types(f, tf.constant(1.0), 7).count("Tanh") == 7
    assert count_staged(op_types(f, tf.constant(1.0), 7), "While") == 0


# -- Looping over Python data ------------------------------------------------------------------


def make_train():
    @tf.function
    def train(dataset):
        loss = tf.constant(0)
        for x, y in dataset:
            loss += tf.abs(y - x)  # Some dummy computation.
        return loss
    return train


def test_looping_over_python_data_grows_the_graph_like_the_guide(capsys):
    train = make_train()
    small_data = [(1, 1)] * 3
    big_data = [(1, 1)] * 10
    measure_graph_size(train, small_data)
    measure_graph_size(train, big_data)
    assert capsys.readouterr().out == (
        "train([(1, 1), (1, 1), (1, 1)]) contains 11 nodes in its graph\n"
        "train([(1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1)])"
        " contains 32 nodes in its graph\n")
    assert count_staged(op_types(train, small_data), "While") == 0
    assert train(big_data).numpy() == 0
    assert train([(1, 4), (6, 2)]).numpy() == 7


def test_looping_over_a_tensor_keeps_the_graph_size():
    train = make_train()
    small = tf.constant([[1, 1]] * 3)
    big = tf.constant([[1, 1]] * 10)
    assert graph_size(train, small) == graph_size(train, big)
    assert train(tf.constant([[1, 4], [6, 2], [0, 0]])).numpy() == 7


def test_looping_over_a_dataset_keeps_the_graph_size():
    train = make_train()
    small_data = [(1, 1)] * 3
    big_data = [(1, 1)] * 10
    small = tf.data.Dataset.from_generator(lambda: small_data, (tf.int32, tf.int32))
    big = tf.data.Dataset.from_generator(lambda: big_data, (tf.int32, tf.int32))
    assert graph_size(train, small) == graph_size(train, big)
    assert count_staged(op_types(train, big), "While") == 1
    assert train(big).numpy() == 0


# -- range versus tf.range (older versions of the guide) ------------------------------------------


def make_range_train():
    @tf.function
    def train(n):
        for i in range(n):
            tf.print(i)
    return train


def make_tf_range_train():
    @tf.function
    def train(n):
        for i in tf.range(n):
            tf.print(i)
    return train


def test_range_of_a_python_int_unrolls_into_the_graph():
    train = make_range_train()
    small, big = graph_size(train, 10), graph_size(train, 100)
    assert big - small == 90  # one PrintV2 per iteration
    assert op_types(train, 100).count("PrintV2") == 100
    assert count_staged(op_types(train, 100), "While") == 0


def test_tf_range_stays_one_while_op(capsys):
    train = make_tf_range_train()
    assert graph_size(train, 10) == graph_size(train, 100)
    ops = op_types(train, 100)
    assert count_staged(ops, "While") == 1 and "PrintV2" not in ops
    capsys.readouterr()
    train(4)
    assert capsys.readouterr().err == "0\n1\n2\n3\n"


def test_range_of_a_tensor_is_a_loop_like_tf_range(capsys):
    train = make_range_train()
    n = tf.constant(3)
    assert count_staged(op_types(train, n), "While") == 1
    train(n)
    train(tf.constant(2))
    assert capsys.readouterr().err == "0\n1\n2\n0\n1\n"
    assert train.experimental_get_tracing_count() == 1


# -- Accumulating values in a loop -----------------------------------------------------------------


def test_dynamic_rnn_accumulates_states_in_a_tensor_array():
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

    data = tf.random.uniform([batch_size, seq_len, feature_size])
    result = dynamic_rnn(rnn_step, data, tf.zeros([batch_size, feature_size]))
    assert tuple(result.shape) == (2, 3, 4)
    np.testing.assert_allclose(result.numpy(), np.cumsum(data.numpy(), axis=1), rtol=1e-6)
