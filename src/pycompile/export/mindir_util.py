"""MindSpore 2.10's MINDIR protobuf utilities: `ms.load_mindir` / `ms.save_mindir` (the file as
a `ModelProto` object to read or edit, e.g. its `user_info`; deprecated in MindSpore since 2.5
but still defined) and `ms.export_split_mindir` (splitting a file for distributed inference).

The checks and messages are MindSpore's (tests/oracle/record_mindir.py util records them from
the wheel). The ModelProto class is pycompile's own (export/mindir_pb.py, the same schema):
`save_mindir` takes what `load_mindir` returns. mindir_pb (protobuf, ~70 ms) is imported by the
functions that use it, not with `import pycompile`.
"""
from __future__ import annotations

import os
import stat

from pycompile.common import log
from pycompile.export.checks import check_file_name


def load_mindir(file_name):
    """The MINDIR file `file_name` as a ModelProto (ValueError when it cannot be read or parsed)."""
    log.logger.warning("The interface 'mindspore.load_mindir' is deprecated from version 2.5 "
                       "and will be removed in a future version.")
    check_file_name(file_name)
    file_name = os.path.realpath(file_name)
    from pycompile.export import mindir_pb as pb
    model = pb.ModelProto()
    try:
        with open(file_name, "rb") as f:
            model.ParseFromString(f.read())
    except Exception as e:  # noqa: BLE001 - MindSpore turns every failure into a ValueError
        log.logger.critical(f"Failed to parse the file: {file_name}  please check the correct file.")
        raise ValueError(str(e)) from None
    return model


def save_mindir(model, file_name):
    """Write `model` (a ModelProto) to `file_name` (".mindir" appended when missing); the file is
    left read-only for its owner, as MindSpore leaves it."""
    log.logger.warning("The interface 'mindspore.save_mindir' is deprecated from version 2.5 "
                       "and will be removed in a future version.")
    check_file_name(file_name)
    file_name = os.path.realpath(file_name)
    if not file_name.endswith(".mindir"):
        file_name += ".mindir"
    os.makedirs(os.path.dirname(file_name), mode=0o700, exist_ok=True)
    if os.path.exists(file_name):
        os.chmod(file_name, stat.S_IWUSR)
    from pycompile.export import mindir_pb as pb
    if not isinstance(model, pb.ModelProto):
        raise TypeError(f"For 'save_mindir', the argument 'model' must be ModelProto, but got {type(model)}.")
    try:
        with os.fdopen(os.open(file_name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
            f.write(model.SerializeToString())
    except Exception as e:  # noqa: BLE001 - MindSpore turns every failure into a ValueError
        log.logger.critical(f"Failed to save the file: {file_name} , please check the correct file.")
        raise ValueError(str(e)) from None
    finally:
        if os.path.exists(file_name):
            os.chmod(file_name, stat.S_IRUSR)


def export_split_mindir(file_name, device_num=8, rank_id=0, dynamic=True, sapp=True):
    """MindSpore's argument checks, then NotImplementedError: splitting a MINDIR file across
    devices (its parallel layouts, SAPP strategies) is a distributed-inference feature pycompile
    does not have. MindSpore 2.10 on the CPU fails too on a file exported without a parallel
    layout (a ValueError about the layout)."""
    if not isinstance(file_name, str):
        raise ValueError(f"For 'Split MindIR', the argument 'file_name' must be string, but got {type(file_name)}.")
    if not file_name.endswith(".mindir"):
        raise ValueError("For 'Split MindIR', the argument 'file_name'(MindIR file) should end with '.mindir', "
                         "please input the correct 'file_name'.")
    if not os.path.exists(file_name):
        raise ValueError("For 'Split MindIR', the argument 'file_name'(MindIR file) does not exist, "
                         "please check whether the 'file_name' is correct.")
    raise NotImplementedError(f"For 'Split MindIR', pycompile does not split MINDIR files for distributed "
                              f"inference (device_num={device_num}, rank_id={rank_id}): load the whole file "
                              f"with ms.load and nn.GraphCell")
