"""`tf.config`: global switches, devices and threads."""

import types as _types

import autograph as _autograph
from runtime import devices as _devices

run_functions_eagerly = _autograph.run_functions_eagerly
experimental_run_functions_eagerly = _autograph.run_functions_eagerly  # TF's older name
functions_run_eagerly = _autograph.functions_run_eagerly
experimental_functions_run_eagerly = _autograph.functions_run_eagerly

PhysicalDevice = _devices.PhysicalDevice
LogicalDevice = _devices.LogicalDevice
list_physical_devices = _devices.list_physical_devices
list_logical_devices = _devices.list_logical_devices
get_visible_devices = _devices.get_visible_devices
set_visible_devices = _devices.set_visible_devices

experimental = _types.ModuleType("autograph.tf.config.experimental",
                                 "Experimental device settings.")
experimental.list_physical_devices = _devices.list_physical_devices
experimental.list_logical_devices = _devices.list_logical_devices
experimental.get_visible_devices = _devices.get_visible_devices
experimental.set_visible_devices = _devices.set_visible_devices
experimental.set_memory_growth = _devices.set_memory_growth
experimental.get_memory_growth = _devices.get_memory_growth

threading = _types.ModuleType("autograph.tf.config.threading", "Thread pool settings.")
threading.get_inter_op_parallelism_threads = _devices.get_inter_op_parallelism_threads
threading.set_inter_op_parallelism_threads = _devices.set_inter_op_parallelism_threads
threading.get_intra_op_parallelism_threads = _devices.get_intra_op_parallelism_threads
threading.set_intra_op_parallelism_threads = _devices.set_intra_op_parallelism_threads
