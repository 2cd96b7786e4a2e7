"""`mindspore.log`: MindSpore's Python logger, which model code calls as `logger.warning(...)`
(`from mindspore import log as logger`). Each message goes to standard error in MindSpore's form

    [WARNING] ME(pid:thread id,process name):YYYY-MM-DD-HH:MM:SS.mmm.000 [file:line] message

(the stamp's digits as MindSpore prints them: 89 ms reads .890.00)

when its level is at least GLOG_v's (0 DEBUG, 1 INFO, 2 WARNING - the default -, 3 ERROR, 4
CRITICAL; any other value is MindSpore's ValueError at the first message). `msg % args` formats
the message, as the logging module does. Not done: MindSpore's log files (GLOG_logtostderr=0 with
GLOG_log_dir) - pycompile writes to standard error whatever GLOG_logtostderr says; pycompile's own
compile log is `pycompile.common.log` (PYCOMPILE_LOG)."""
from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time

from pycompile.common import knobs

_NAMES = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def get_level() -> str:
    """GLOG_v's level as MindSpore gives it: a digit string, '2' when unset."""
    level = knobs.get("GLOG_v")
    if level not in ("0", "1", "2", "3", "4"):
        raise ValueError(f"Incorrect log level, please check the configuration of GLOG_v or GLOG_stderrthreshold, "
                         f"desired log level: 4-CRITICAL, 3-ERROR, 2-WARNING, 1-INFO, 0-DEBUG. But got {level}.")
    return level


def get_log_config() -> dict:
    """The logger's settings, as MindSpore reports them (GLOG_v and GLOG_logtostderr)."""
    return {"GLOG_v": get_level(), "GLOG_logtostderr": knobs.get("GLOG_logtostderr")}


def _log(level: int, msg, args) -> None:
    if level < int(get_level()):
        return
    text = str(msg) % args if args else str(msg)
    caller = sys._getframe(2)
    now = time.time()
    # MindSpore's stamp: the milliseconds times 1000 as digits, a dot after the third (so 541 ms
    # reads .541.000, 89 ms .890.00)
    digits = str(int((now - int(now)) * 1000) * 1000)
    stamp = time.strftime("%Y-%m-%d-%H:%M:%S", time.localtime(now)) + f".{digits[:3]}.{digits[3:]}"
    where = f"{caller.f_code.co_filename}:{caller.f_lineno}"
    line = (f"[{_NAMES[level]}] ME({os.getpid()}:{threading.get_ident()},{multiprocessing.current_process().name}):"
            f"{stamp} [{where}] {text}\n")
    sys.stderr.write(line)
    sys.stderr.flush()


def debug(msg, *args, **kwargs) -> None:
    _log(0, msg, args)


def info(msg, *args, **kwargs) -> None:
    _log(1, msg, args)


def warning(msg, *args, **kwargs) -> None:
    _log(2, msg, args)


def error(msg, *args, **kwargs) -> None:
    _log(3, msg, args)


def critical(msg, *args, **kwargs) -> None:
    _log(4, msg, args)


__all__ = ["debug", "info", "warning", "error", "critical", "get_level", "get_log_config"]
