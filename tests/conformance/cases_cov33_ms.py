"""The conformance table: issue 33's coverage of top-level ``mindspore.*`` names pycompile had without
a recorded case (tools/name_coverage.py): dtypes and type objects, modes and contexts, seeds and
generators, streams and memory queries, conversions, decorators. Ids start with ``cov33_ms_``. They
are "surface" cases: what a user observes (str(), a returned value, an attribute), recorded from the
wheel; they act on the host (graph=False). A case that sets a context restores it."""
group("cov33_ms")

_c33_SURFACE = dict(graph=False, reason="a host-side API (types, contexts, seeds, streams): Python values")


def _c33_surface(name, fn, cid=None, **kw):
    add(f"cov33_ms_{cid or name}", f"ms.{name}", fn, **{**_c33_SURFACE, **kw})


# dtypes and type objects: their names as MindSpore prints them
for _n in ("bool_", "byte", "double", "float16", "float32", "float64", "float_", "half", "int16", "int32", "int64", "int8",
           "int_", "intc", "intp", "long", "short", "single", "ubyte", "uint", "uint16", "uint32", "uint64", "uint8", "uintc",
           "uintp", "ushort", "number", "list_", "tuple_", "type_none", "string", "tensor_type"):
    _c33_surface(_n, (lambda n: lambda: str(getattr(ms, n)))(_n), cid=f"dt_{_n}")

_c33_surface("dtype", lambda: (str(ms.dtype.float32), str(ms.dtype.int8), ms.dtype.float32 == ms.float32))
_c33_surface("Int", lambda: (isinstance(ms.int32, ms.Int), isinstance(ms.uint8, ms.Int), isinstance(ms.float32, ms.Int)))
_c33_surface("Type", lambda: (isinstance(ms.float32, ms.Type), isinstance(ms.int64, ms.Type)))
_c33_surface("TensorType", lambda: str(ms.TensorType(ms.float32)))
_c33_surface("QuantDtype", lambda: sorted(m.name for m in ms.QuantDtype)[:4])
_c33_surface("dtype_to_pytype", lambda: (ms.dtype_to_pytype(ms.float32).__name__, ms.dtype_to_pytype(ms.int8).__name__,
                                     ms.dtype_to_pytype(ms.bool_).__name__))
_c33_surface("pytype_to_dtype", lambda: (str(ms.pytype_to_dtype(int)), str(ms.pytype_to_dtype(float)),
                                     str(ms.pytype_to_dtype(bool)), str(ms.pytype_to_dtype(np.float16))))
_c33_surface("get_py_obj_dtype", lambda: (str(ms.get_py_obj_dtype(Tensor(np.ones(2, np.float16)))), str(ms.get_py_obj_dtype(3)),
                                      str(ms.get_py_obj_dtype(2.5))))
_c33_surface("is_tensor", lambda: (ms.is_tensor(Tensor(np.ones(2, np.float32))), ms.is_tensor(np.ones(2)), ms.is_tensor(3)))
_c33_surface("from_numpy", lambda: ms.from_numpy(np.arange(6, dtype=np.int16).reshape(2, 3)))
_c33_surface("frombuffer", lambda: ms.frombuffer(np.arange(4, dtype=np.float32).tobytes(), ms.float32))
_c33_surface("SparseTensor", lambda: ms.SparseTensor is not None)

# modes and contexts
_c33_surface("GRAPH_MODE", lambda: ms.GRAPH_MODE)
_c33_surface("PYNATIVE_MODE", lambda: ms.PYNATIVE_MODE)


def _c33_context():
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    g = ms.get_context("mode")
    ms.set_context(mode=old)
    return g, ms.get_context("mode"), ms.get_context("device_target")


_c33_surface("set_context", _c33_context)
_c33_surface("get_context", lambda: (ms.get_context("mode"), ms.get_context("device_target")))


def _c33_auto_parallel():
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    got = (ms.get_auto_parallel_context("parallel_mode"), ms.get_auto_parallel_context("gradients_mean"))
    ms.reset_auto_parallel_context()
    return got + (ms.get_auto_parallel_context("parallel_mode"), ms.get_auto_parallel_context("gradients_mean"))


_c33_surface("set_auto_parallel_context", _c33_auto_parallel)
_c33_surface("get_auto_parallel_context", lambda: (ms.get_auto_parallel_context("parallel_mode"),
                                               ms.get_auto_parallel_context("device_num")))
_c33_surface("reset_auto_parallel_context", lambda: (ms.reset_auto_parallel_context(),
                                                 ms.get_auto_parallel_context("gradients_mean")))
_c33_surface("ParallelMode", lambda: (ms.ParallelMode.STAND_ALONE, ms.ParallelMode.DATA_PARALLEL,
                                  ms.ParallelMode.SEMI_AUTO_PARALLEL, ms.ParallelMode.AUTO_PARALLEL))


def _c33_algo():
    ms.set_algo_parameters(fully_use_devices=False)
    got = ms.get_algo_parameters("fully_use_devices")
    ms.reset_algo_parameters()
    return got, ms.get_algo_parameters("fully_use_devices")


_c33_surface("set_algo_parameters", _c33_algo)
_c33_surface("get_algo_parameters", lambda: ms.get_algo_parameters("elementwise_op_strategy_follow"))
_c33_surface("reset_algo_parameters", lambda: (ms.reset_algo_parameters(), ms.get_algo_parameters("fully_use_devices")))
_c33_surface("set_ps_context", lambda: ms.set_ps_context(enable_ps=False))
_c33_surface("get_ps_context", lambda: ms.get_ps_context("enable_ps"))
_c33_surface("get_level", lambda: ms.get_level() == __import__("os").environ.get("GLOG_v", "2"))
_c33_surface("get_log_config", lambda: sorted(ms.get_log_config()))
_c33_surface("set_deterministic", lambda: ms.set_deterministic(False))
_c33_surface("set_recursion_limit", lambda: ms.set_recursion_limit(1000))
_c33_surface("set_device", lambda: (ms.set_device("CPU"), ms.get_context("device_target")))
_c33_surface("get_current_device", lambda: (ms.get_current_device().device_target, ms.get_current_device().device_id))
_c33_surface("set_cpu_affinity", lambda: ms.set_cpu_affinity(False))


def _c33_set_dump():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # "CPU is not supported by set_dump" (both frameworks)
        return ms.set_dump(nn.Dense(2, 2), enabled=False)


_c33_surface("set_dump", _c33_set_dump)
_c33_surface("set_memory", lambda: ms.set_memory(max_size="1GB"))
_c33_surface("dispatch_threads_num", lambda: ms.runtime.dispatch_threads_num(4) if hasattr(ms, "runtime") else None)
_c33_surface("launch_blocking", lambda: ms.launch_blocking())
_c33_surface("set_device_limit", lambda: ms.set_device_limit(1, 1))
_c33_surface("run_check", lambda: ms.run_check())
_c33_surface("enable_dynamic", lambda: callable(ms.enable_dynamic(x=Tensor(shape=[None, 3], dtype=ms.float32))(lambda x: x)))
_c33_surface("Symbol", lambda: type(ms.Symbol(max=8, divisor=2)).__name__)

# seeds and generators
_c33_surface("set_seed", lambda: (ms.set_seed(7), ms.get_seed()))
_c33_surface("get_seed", lambda: (ms.set_seed(11), ms.get_seed(), ms.set_seed(0))[1])
_c33_surface("manual_seed", lambda: (ms.manual_seed(5), ms.initial_seed())[1])
_c33_surface("initial_seed", lambda: (ms.manual_seed(6), ms.initial_seed())[1])
_c33_surface("seed", lambda: isinstance(ms.seed(), int))
_c33_surface("get_rng_state", lambda: type(ms.get_rng_state()).__name__)
_c33_surface("set_rng_state", lambda: ms.set_rng_state(ms.get_rng_state()))


def _c33_generator():
    g = ms.Generator()
    g.manual_seed(3)
    return g.initial_seed(), type(g.get_state()).__name__, ms.default_generator.initial_seed() == ms.initial_seed()


_c33_surface("Generator", _c33_generator)
_c33_surface("default_generator", lambda: isinstance(ms.default_generator, ms.Generator))

# streams and memory (the CPU build: what it answers)
for _n, _f in [("Stream", lambda: type(ms.Stream()).__name__), ("Event", lambda: type(ms.Event()).__name__),
               ("current_stream", lambda: type(ms.current_stream()).__name__),
               ("default_stream", lambda: type(ms.default_stream()).__name__),
               ("communication_stream", lambda: type(ms.communication_stream()).__name__),
               ("synchronize", lambda: ms.synchronize()), ("set_cur_stream", lambda: ms.set_cur_stream(ms.default_stream())),
               ("StreamCtx", lambda: type(ms.StreamCtx(ms.default_stream())).__name__),
               ("StreamLimitCtx", lambda: type(ms.StreamLimitCtx(ms.default_stream(), 1, 1)).__name__),
               ("set_stream_limit", lambda: ms.set_stream_limit(ms.default_stream(), 1, 1)),
               ("reset_stream_limit", lambda: ms.reset_stream_limit(ms.default_stream())),
               ("empty_cache", lambda: ms.empty_cache()), ("memory_allocated", lambda: ms.memory_allocated()),
               ("max_memory_allocated", lambda: ms.max_memory_allocated()), ("memory_reserved", lambda: ms.memory_reserved()),
               ("max_memory_reserved", lambda: ms.max_memory_reserved()), ("memory_stats", lambda: type(ms.memory_stats()).__name__),
               ("memory_summary", lambda: type(ms.memory_summary()).__name__),
               ("reset_max_memory_allocated", lambda: ms.reset_max_memory_allocated()),
               ("reset_max_memory_reserved", lambda: ms.reset_max_memory_reserved()),
               ("reset_peak_memory_stats", lambda: ms.reset_peak_memory_stats()),
               ("ms_memory_recycle", lambda: ms.ms_memory_recycle()),
               ("UntypedStorage", lambda: ms.UntypedStorage is not None)]:
    _c33_surface(_n, _f)


# decorators and graph-build helpers (the decorated function still gives its value eagerly)
def _c33_deco(name, make):
    def f(x):
        return make()(x)
    add(f"cov33_ms_{name}", f"ms.{name}", f, [rnd(2, 3)], **_c33_SURFACE)


def _c33_plus_one(x):
    return x + 1


_c33_deco("jit", lambda: ms.jit(_c33_plus_one))
_c33_deco("no_inline", lambda: ms.no_inline(_c33_plus_one))


class _c33_Lazy(nn.Cell):
    @ms.lazy_inline
    def __init__(self, k):
        super().__init__()
        self.k = k

    def construct(self, x):
        return x * self.k


_c33_deco("lazy_inline", lambda: _c33_Lazy(3.0))


@case("ms.jit_class", **_c33_SURFACE)
def cov33_ms_jit_class():
    @ms.jit_class
    class Scale:
        def __init__(self):
            self.k = 2.0
    return Scale().k


@case("ms.recompute", inputs=[rnd(2, 3)], **_c33_SURFACE)
def cov33_ms_recompute(x):
    return ms.recompute(nn.ReLU(), x)


@case("ms.swap_tensors", **_c33_SURFACE)
def cov33_ms_swap_tensors():
    a, b = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([3.0, 4.0], np.float32))
    ms.swap_tensors(a, b)
    return a, b


# files
@case("ms.save_mindir", "ms.load_mindir", **_c33_SURFACE)
def cov33_ms_mindir():
    import os
    import tempfile
    net = nn.Dense(3, 2, weight_init=Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 10),
                   bias_init=Tensor(np.zeros(2, np.float32)))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "net")
        ms.export(net, Tensor(np.ones((1, 3), np.float32)), file_name=path, file_format="MINDIR")
        g = ms.load_mindir(path + ".mindir")
        ms.save_mindir(g, os.path.join(d, "again.mindir"))
        return sorted(f for f in os.listdir(d)), type(g).__name__


@case("ms.load_segmented_checkpoints", **_c33_SURFACE)
def cov33_ms_segmented():
    import os
    import tempfile
    net = nn.Dense(3, 2, weight_init=Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)),
                   bias_init=Tensor(np.ones(2, np.float32)))
    with tempfile.TemporaryDirectory() as d:
        ms.save_checkpoint(net, os.path.join(d, "a.ckpt"))
        got = ms.load_segmented_checkpoints(d)
        return sorted(got), got["weight"].asnumpy()
