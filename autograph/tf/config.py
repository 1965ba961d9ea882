"""`tf.config`: global switches, devices and threads."""

import autograph as _autograph
from autograph.tf._namespaces import namespace as _namespace
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
LogicalDeviceConfiguration = _devices.LogicalDeviceConfiguration
set_logical_device_configuration = _devices.set_logical_device_configuration
get_logical_device_configuration = _devices.get_logical_device_configuration

experimental = _namespace(
    "autograph.tf.config.experimental", "Experimental device settings.",
    list_physical_devices=_devices.list_physical_devices,
    list_logical_devices=_devices.list_logical_devices,
    get_visible_devices=_devices.get_visible_devices,
    set_visible_devices=_devices.set_visible_devices,
    set_memory_growth=_devices.set_memory_growth,
    get_memory_growth=_devices.get_memory_growth,
    VirtualDeviceConfiguration=_devices.LogicalDeviceConfiguration,
    set_virtual_device_configuration=_devices.set_logical_device_configuration,
    get_virtual_device_configuration=_devices.get_logical_device_configuration,
    set_logical_device_configuration=_devices.set_logical_device_configuration,
    get_logical_device_configuration=_devices.get_logical_device_configuration)

threading = _namespace(
    "autograph.tf.config.threading", "Thread pool settings.",
    get_inter_op_parallelism_threads=_devices.get_inter_op_parallelism_threads,
    set_inter_op_parallelism_threads=_devices.set_inter_op_parallelism_threads,
    get_intra_op_parallelism_threads=_devices.get_intra_op_parallelism_threads,
    set_intra_op_parallelism_threads=_devices.set_intra_op_parallelism_threads)
