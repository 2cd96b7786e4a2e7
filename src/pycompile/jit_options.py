"""`jit`'s keyword arguments as MindSpore 2.10 has them:

    jit(function=None, *, capture_mode="ast", jit_level="O0", dynamic=0, fullgraph=False,
        backend="", **options)

Each is checked with the exception class and message the 2.10 wheel raises (recorded in
tests/compiler/test_jit_options.py). What pycompile does with them: `dynamic=1` compiles a
leading batch dimension once for every size (see api.py); the others name MindSpore's compiler
stages and are accepted without changing pycompile's output (one C compiler, one optimizer).
Options MindSpore knows (`disable_format_transform`, `exec_order`, `ge_options`, `infer_boost`,
`auto_offload`) have their values checked; an option it does not know gets its warning, and its
deprecated keywords (`mode`, `jit_config`, `hash_args`, `compile_once`) too. `input_signature`
(deprecated in 2.10 in favour of `dynamic`) still works here: its Tensors declare the inputs
ahead of the first call (the `pycompile` command reads them) and a None dimension is dynamic.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycompile.common import log

_DOCS = "https://www.mindspore.cn/docs/en/master/api_python/mindspore/mindspore.jit.html"
_DEPRECATED = {"mode": "capture_mode", "hash_args": "", "jit_config": "jit_level, fullgraph or options",
               "compile_once": ""}


@dataclass(frozen=True)
class JitOptions:
    capture_mode: str = "ast"
    jit_level: str = "O0"
    dynamic: int = 0
    fullgraph: bool = False
    backend: str = ""
    input_signature: object = None


def _check_string(value, valid, name):
    if not isinstance(value, str) or value not in valid:
        raise ValueError(f"For 'jit', the '{name}' must be str and must be in '{list(valid)}', but got '{value}'.")
    return value


def validate(capture_mode="ast", jit_level="O0", dynamic=0, fullgraph=False, backend="",
             options=None) -> JitOptions:
    options = dict(options or {})
    _check_string(capture_mode, ("ast", "bytecode", "trace"), "capture_mode")
    _check_string(jit_level, ("O0", "O1"), "jit_level")
    if isinstance(dynamic, bool) or not isinstance(dynamic, int):
        raise TypeError(f"For 'jit', the 'dynamic' must be 'int',  but got '{type(dynamic).__name__}'.")
    if not 0 <= dynamic <= 1:
        raise ValueError(f"For 'jit', the 'dynamic' must be in range of [0, 1], but got {dynamic} with type 'int'.")
    if not isinstance(fullgraph, bool):
        raise TypeError(f"For 'jit', the 'fullgraph' must be a bool, but got {type(fullgraph).__name__}.")
    if not isinstance(backend, str):
        raise RuntimeError(f"Unable to cast Python instance of type {type(backend)} to C++ type 'std::string'")
    if backend not in ("", "ms_backend", "GE"):
        raise RuntimeError(f"Invalid backend name: {backend}, you should register custom backend first")
    input_signature = options.pop("input_signature", None)
    for key, instead in _DEPRECATED.items():
        if key in options:
            msg = f"For 'jit', the parameter '{key}' has been deprecated."
            if instead:
                msg += f" Please use the parameter '{instead}' instead. For more details, please refer to {_DOCS}."
            log.logger.warning(msg)
            del options[key]
    for option, value in options.items():
        _check_option(option, value)
    return JitOptions(capture_mode, jit_level, dynamic, fullgraph, backend, input_signature)


def _one_of(option, value, valid, kind=str):
    if not isinstance(value, kind):
        raise TypeError(f"For 'jit(options)', the type of '{option}' must be {kind.__name__}, but got {type(value)}.")
    if valid is not None and value not in valid:
        raise ValueError(f"For '{option}', the value of '{option}' must be one of {list(valid)}, but got '{value}'.")


def _check_ge_options(option, value):
    if not isinstance(value, dict):
        raise TypeError(f"For 'jit(options)', the type of '{option}' must be dict, but got {type(value)}.")
    for level, opts in value.items():
        if level not in ("global", "session"):
            raise ValueError(f"For '{option}', the key of '{option}' must be one of ['global', 'session'], "
                             f"but got '{level}'.")
        if not isinstance(opts, dict):
            raise TypeError(f"For '{option}', the type of {level} options must be dict, but got {type(opts)}. "
                            f"The error options: {opts}.")
        for k, v in opts.items():
            if not isinstance(k, str):
                raise TypeError(f"For '{option}', the type of key and value must be str, but got {type(k)}. "
                                f"The error key is {k}.")
            if not isinstance(v, str):
                raise TypeError(f"For '{option}', the type of key and value must be str, but got {type(v)}. "
                                f"The error value is {v}")


def _check_option(option, value):
    if option == "disable_format_transform":
        _one_of(option, value, None, bool)
    elif option == "exec_order":
        _one_of(option, value, ("bfs", "dfs"))
    elif option == "infer_boost":
        log.logger.warning("For 'jit', the parameter 'infer_boost' is deprecated from version 2.10.0 and will "
                           "be removed in a future version.")
        _one_of(option, value, ("on", "off"))
    elif option == "auto_offload":
        _one_of(option, value, ("weight", "activation", "all"))
    elif option == "ge_options":
        _check_ge_options(option, value)
    else:
        log.logger.warning(f"For 'jit(options)', the option argument '{option}' is not recognized, please check!"
                           f"For detailed usage of 'jit(options)', please refer to the Mindspore official website.")
