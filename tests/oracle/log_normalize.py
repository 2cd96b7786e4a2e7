"""The GLOG_v values record_log.py runs log_script.py under, and how its output is compared:
the script's own log lines (those naming log_script.py) with the ids, the time and the directory
replaced; stdout whole; the last stderr line when the script failed (its exception)."""
import re

LEVELS = ["0", "1", "2", "3", "4", "7"]
_LINE = re.compile(r"^\[(\w+)\] ME\((\d+):(\d+),(\w+)\):(\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d+\.\d*) "
                   r"\[(.*?)log_script\.py:(\d+)\] (.*)$")


def normalize(stdout: str, stderr: str, returncode: int) -> dict:
    lines = []
    for line in stderr.splitlines():
        m = _LINE.match(line)
        if m:
            lines.append(f"[{m.group(1)}] ME(PID:TID,{m.group(4)}):TIME [log_script.py:{m.group(7)}] {m.group(8)}")
    failure = stderr.strip().splitlines()[-1] if returncode != 0 and stderr.strip() else None
    return {"stdout": stdout, "log": lines, "failure": failure}
