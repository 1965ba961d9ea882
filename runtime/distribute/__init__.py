"""`tf.distribute`'s runtime: strategies that run one step on several replicas.

One module per concept: `reduce_op` (how replica values combine), `values` (per-replica and
mirrored values, mirrored variables), `replica_context` (what code running on one replica
sees), `strategy` (the strategies and the default one), `input` (datasets split over
replicas), `cluster_resolver` and `multi_worker` (several processes on `jax.distributed`),
`unsupported` (the strategies refused by name).
"""
