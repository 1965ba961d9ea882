"""Training checkpoints in TensorFlow's format (`tf.train.Checkpoint`): the variables of an
object graph written as a tensor bundle that TensorFlow reads, and TensorFlow's bundles read
back here.
"""
