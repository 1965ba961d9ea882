"""TensorBoard summaries (`tf.summary`): event files (`events`), their protocol-buffer
messages (`protos`), PNG images (`png`), the writers and the recording state that summary
ops read when they run (`writers`), and graph tracing for TensorBoard's graph view
(`trace`). The summary ops themselves are in runtime/ops/summary_ops.py."""
