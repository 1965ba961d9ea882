"""`tf.distribute`: run a training step on several replicas (devices or processes).

See docs/distribute.md and runtime.distribute for what runs where.
"""

from autograph.tf._namespaces import namespace as _namespace
from runtime.distribute import cluster_resolver as _resolvers
from runtime.distribute import input as _input
from runtime.distribute import multi_worker as _multi_worker
from runtime.distribute import reduce_op as _reduce_op
from runtime.distribute import replica_context as _replica_context
from runtime.distribute import strategy as _strategy
from runtime.distribute import unsupported as _unsupported
from runtime.distribute import values as _values

Strategy = _strategy.Strategy
StrategyExtended = _strategy.StrategyExtended
MirroredStrategy = _strategy.MirroredStrategy
OneDeviceStrategy = _strategy.OneDeviceStrategy
MultiWorkerMirroredStrategy = _multi_worker.MultiWorkerMirroredStrategy
TPUStrategy = _unsupported.TPUStrategy
ReduceOp = _reduce_op.ReduceOp
ReplicaContext = _replica_context.ReplicaContext
InputContext = _input.InputContext
DistributedDataset = _input.DistributedDataset
DistributedIterator = _input.DistributedIterator
DistributedValues = _values.DistributedValues
get_strategy = _strategy.get_strategy
has_strategy = _strategy.has_strategy
get_replica_context = _strategy.get_replica_context
get_cross_replica_context = _strategy.get_cross_replica_context
in_cross_replica_context = _strategy.in_cross_replica_context

cluster_resolver = _namespace(
    "autograph.tf.distribute.cluster_resolver", "Where the processes of a multi-worker job are.",
    ClusterResolver=_resolvers.ClusterResolver,
    SimpleClusterResolver=_resolvers.SimpleClusterResolver,
    TFConfigClusterResolver=_resolvers.TFConfigClusterResolver)

experimental = _namespace(
    "autograph.tf.distribute.experimental", "Experimental strategies and helpers.",
    MultiWorkerMirroredStrategy=_multi_worker.MultiWorkerMirroredStrategy,
    ParameterServerStrategy=_unsupported.ParameterServerStrategy,
    CentralStorageStrategy=_unsupported.CentralStorageStrategy,
    TPUStrategy=_unsupported.TPUStrategy,
    ValueContext=_input.ValueContext)
