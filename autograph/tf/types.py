"""`tf.types`: the types a user's class implements to take part in tracing
(`tf.types.experimental.TraceType`, see runtime.trace_type)."""

from autograph.tf._namespaces import namespace as _namespace
from runtime import trace_type as _trace_type

experimental = _namespace(
    "autograph.tf.types.experimental",
    "tf.types.experimental: TraceType and the __tf_tracing_type__ protocol.",
    TraceType=_trace_type.TraceType,
    SupportsTracingProtocol=_trace_type.SupportsTracingProtocol)
