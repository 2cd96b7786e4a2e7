"""`mindspore.log` (`from pycompile import log as logger`): what it prints at each GLOG_v, its
format and its error for a bad level, against MindSpore 2.10's output for the same calls
(tests/oracle/log_script.py, recorded by tests/oracle/record_log.py into data/log_lines.json; the
process / thread ids, the time and the script's directory are compared as placeholders)."""
import json
import os
import re
import sys
import traceback

import pytest

from pycompile import log as logger

ORACLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle")
sys.path.insert(0, ORACLE)
import log_script  # noqa: E402
from log_normalize import LEVELS, normalize  # noqa: E402

with open(os.path.join(ORACLE, "data", "log_lines.json")) as _f:
    RECORDED = json.load(_f)


@pytest.mark.parametrize("level", LEVELS)
def test_messages_at_each_level_are_mindsporess(level, monkeypatch, capsys):
    monkeypatch.setenv("GLOG_v", level)
    code = 0
    try:
        log_script.run(logger)
    except ValueError:
        code = 1
        sys.stderr.write(traceback.format_exc())
    out, err = capsys.readouterr()
    assert normalize(out, err, code) == RECORDED[level]


def test_the_stamp_and_ids(capsys):
    logger.error("here")
    err = capsys.readouterr().err
    m = re.match(r"^\[ERROR\] ME\((\d+):(\d+),MainProcess\):\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{1,3}\.\d{0,3} "
                 r"\[(.*):(\d+)\] here$", err.strip())
    assert m and int(m.group(1)) == os.getpid() and m.group(3) == __file__, err
