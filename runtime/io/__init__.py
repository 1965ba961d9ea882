"""Byte-level formats shared by the files TensorFlow writes: the protocol-buffer wire format
(`protowire`) and the CRC-32C checksum (`crc32c`), masked as TensorFlow's tables, tensor
bundles and record files store it."""
