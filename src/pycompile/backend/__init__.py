"""Devices, the C toolchain, and the compile caches. Owns every file, process and cache."""
