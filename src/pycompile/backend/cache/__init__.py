"""The on-disk compile cache: a second process compiling the same program loads the shared object
built by the first one and skips the frontend, the passes and the C compiler.

Enabling it (the context wins over the environment, as MindSpore's spec says):

    set_context(enable_compile_cache=True, compile_cache_path="my_compile_cache")
    MS_COMPILER_CACHE_ENABLE=1 MS_COMPILER_CACHE_PATH=my_compile_cache python train.py

The path defaults to $XDG_CACHE_HOME/pycompile (~/.cache/pycompile without it). PYCOMPILE_CACHE_EXPLAIN=1 prints to stderr why each
compile missed the cache (which part of the key changed versus the closest entry of the same
function); PYCOMPILE_CACHE_EXPLAIN=2 also reports hits. Every report carries the same text in
`report.cache_reason` and `report.cache` is "disk" on a hit, "miss" otherwise.

Key: two levels, as in Triton
-----------------------------
"Skips the frontend" means the key cannot come from the traced graph. The *lookup key* is
computed before tracing, from what is at hand when a call arrives:

  pycompile   package version, Python and NumPy versions, and a fingerprint (path, size, mtime)
              of pycompile's own files and C headers: editing the compiler invalidates entries
  compiler    the C compiler's resolved path and version line (memoized in the cache directory
              by the binary's path, size and mtime, so a hit does not run `cc --version`)
  flags       the compiler flags (toolchain.BASE_FLAGS)
  cpu         machine and CPU features (/proc/cpuinfo model name + flags): -march=native
  options     pipeline.options() (MS_DEV_SIDE_EFFECT_LOAD_ELIM level, opt level, float status,
              fast paths, the device's passes and the rows it does not render) and the device
              target
  function    the entry function's module:qualname and the graph name
  source      the entry function's source text and first line
  closure     fingerprints of the entry function's closure values and default arguments
  signature   the call signature: (dtype, shape) of each Tensor argument, the value of each
              Python scalar / string / tuple, name + shape of each Parameter argument
  self        the fingerprint of the root Cell (or bound object): classes, every attribute of
              every sub-Cell (constants by value, Tensors by content hash, Parameters by name,
              dtype and shape, `training`), recursively

An entry then records the *dependencies* the frontend discovered while tracing (through the
`frontend.DEPS` recorder hooks): the source text of every user function parsed and of every user
class whose instances or attributes were used (file, first line, hash of the block, plus a hash
of each whole file as a fast path), and every global, module attribute and class attribute read,
with a fingerprint of its value. Code that runs as plain Python while tracing - the __init__ of a
class created in graph code, a property getter, a user __getitem__ - is not seen by the frontend:
every module global its functions name (and the attributes they name of user modules) is
recorded, following the user functions and classes found there; such code that reads the
environment, files, the clock or a random generator makes the call uncacheable (the reason says
which). A hit is valid only if every recorded dependency still matches
in the new process. Values are fingerprinted structurally (numbers by value, Tensors / arrays by
content hash, functions by module, qualname, line and closure values, objects by class and
attributes); a value that cannot be fingerprinted stably (an object whose repr is its address)
makes the call uncacheable: it always compiles, and the reason says why.

Layout (all under <path>/pycompile-v1, created 0700):

  <qualname>-<hash>/<lookup key>/<entry id>.entry   one entry per dependency set
  blobs/<sha256>.so | .npy | .json                  content-addressed payloads
  toolchain.json                                    memo of `cc --version` by binary stat

An entry file is one header line `pycompile-cache-entry <sha256 of body> <body size>` followed by
a JSON body: the key components, the dependencies, the calling layout (input paths, output tree,
output dtypes / shapes and which are Python scalars, arena size, runtime error messages), where
each Parameter the executable reads is found again (its path in the root Cell's
parameters_and_names(), in a module-level Cell or Parameter, or in the arguments), and the blobs:
the shared object, the large constants (.npy) and the report texts (IR before / after, C source:
read on first use by `pycompile.inspect` / `report.ir_before`). A Parameter that cannot be found
again (say, a jit function that builds a Cell inside itself) makes the call uncacheable.

Safety: every file is written to a temp file in its directory, fsynced, and `os.replace`d, so a
reader only sees complete files; payloads are named by their hash, so two processes compiling
the same program at once both succeed (the last entry written wins, and it only names blobs that
exist). Before anything is loaded the entry's body hash and size and every blob's hash and size
are verified; a corrupt, truncated or stale entry (another pycompile version, a different key)
is reported with a CompileCacheWarning naming the entry and the reason, deleted, and rebuilt. The
cache directory must belong to the user: one that belongs to someone else (or a world-writable
parent owned by someone else, without the sticky bit) is refused with a warning, one of ours that
other users can read or write is set back to 0700 with a warning.

Cost of a hit: computing the lookup key (stats of pycompile's files, the entry function's source
lines, fingerprints), reading and verifying the entry and its payloads, checking the recorded
dependencies, dlopen: 1-3 ms for the spec's sample, against 60-300 ms for a cold compile. The
cache code is imported when the cache is switched on (runtime.prefetch_compile_cache, on
set_context or at import with MS_COMPILER_CACHE_ENABLE=1), not inside the first call. On a hit
report.times holds key / check / load instead of trace / passes / codegen / cc, and
report.graph_before / graph_after are rebuilt by tracing again if someone asks for them.

A lookup key keeps its 8 newest entries. When older ones are evicted, the payloads no entry names
any more are deleted if they are more than an hour old (a process between writing its payloads
and its entry keeps them; a payload reused by a new compile has its time refreshed);
`cache.collect(path)` does the same at once, with no age limit.
"""
from pycompile.backend.cache.common import (GC_GRACE_SECONDS, MAGIC, SUBDIR, CompileCacheWarning,  # noqa: F401
                                            Uncacheable, _sha)
from pycompile.backend.cache.entry import compile_cached  # noqa: F401
from pycompile.backend.cache.store import CorruptEntry, Store, collect, open_store  # noqa: F401
