"""The strategies this runtime refuses, each by name: parameter servers and TPU embeddings
have no counterpart on JAX's runtime here (see docs/distribute.md)."""


class _Refused:
    """A strategy whose construction raises NotImplementedError naming it."""

    _what = ""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            "tf.distribute.%s is not supported: %s. Use MirroredStrategy (one machine) or "
            "MultiWorkerMirroredStrategy (several processes on jax.distributed); see "
            "docs/distribute.md" % (type(self).__name__, self._what))


class ParameterServerStrategy(_Refused):
    """`tf.distribute.experimental.ParameterServerStrategy`: refused (no parameter servers)."""

    _what = "parameter servers (variables on ps tasks updated asynchronously by workers) " \
            "have no counterpart on JAX's runtime"


class CentralStorageStrategy(_Refused):
    """`tf.distribute.experimental.CentralStorageStrategy`: refused (variables on one
    parameter device)."""

    _what = "keeping variables on one central device, as a parameter server does, has no " \
            "counterpart on JAX's runtime"


class TPUStrategy(_Refused):
    """`tf.distribute.TPUStrategy`: refused (TPU embeddings and TPU cluster setup are
    TensorFlow's own); JAX's TPUs run under MirroredStrategy."""

    _what = "TPU embeddings and TensorFlow's TPU cluster setup are TensorFlow's own; JAX's " \
            "TPU devices are listed by tf.config and mirrored over by MirroredStrategy"
