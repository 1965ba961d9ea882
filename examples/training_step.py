"""A training step for `autograph explain` and `autograph graph`: a linear model fitted
with GradientTape, its variables updated in place, over a Python loop of steps.

    autograph explain examples/training_step.py:train --arg float32[None,3] --arg float32[None]
    autograph graph examples/training_step.py:train_step \\
        --arg float32[None,3] --arg float32[None] -o /tmp/train_step.png
"""

import autograph.tf as tf

w = tf.Variable(tf.zeros([3]), name="w")
b = tf.Variable(0.0, name="b")


@tf.function
def train_step(x, y, learning_rate=0.1):
    """One gradient-descent step on the mean squared error; returns the loss."""
    with tf.GradientTape() as tape:
        prediction = tf.reduce_sum(x * w, axis=1) + b
        loss = tf.reduce_mean(tf.square(prediction - y))
    grad_w, grad_b = tape.gradient(loss, [w, b])
    w.assign_sub(learning_rate * grad_w)
    b.assign_sub(learning_rate * grad_b)
    return loss


@tf.function
def train(x, y, steps=3):
    """`steps` training steps (a Python loop: unrolled), stopping early once the loss is
    small (a tensor condition: staged)."""
    loss = tf.constant(0.0)
    for _ in range(steps):  # unrolled on purpose  # autograph: noqa[AG301]
        loss = train_step(x, y)
        if loss < 0.01:
            tf.print("converged")
    return loss


if __name__ == "__main__":
    x = tf.constant([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]])
    y = tf.constant([1.0, 2.0])
    print(train(x, y).numpy())
