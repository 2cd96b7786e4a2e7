"""Devices, the C toolchain, and the compile caches. Owns every file, process and cache.

Importing the package registers every device (one module each)."""
from pycompile.backend import ascend, cpu, eager  # noqa: F401

eager.install()     # PyNative runs the ops whose row says `eager_kernel` on compiled kernels
