"""`tf.types`: the types a user's class implements to take part in tracing
(`tf.types.experimental.TraceType`, see runtime.trace_type)."""

import types as _types

from runtime import trace_type as _trace_type

experimental = _types.ModuleType(
    "autograph.tf.types.experimental",
    "tf.types.experimental: TraceType and the __tf_tracing_type__ protocol.")
experimental.TraceType = _trace_type.TraceType
experimental.SupportsTracingProtocol = _trace_type.SupportsTracingProtocol
