"""The script whose `mindspore.log` output record_log.py records from MindSpore 2.10 and
tests/common/test_log.py compares pycompile's with: `python log_script.py mindspore|pycompile`
(the test calls run() in its own process)."""
import sys


def messages(logger):
    logger.debug("debug %d", 0)
    logger.info("info %s", "one")
    logger.warning("warning %s %r", [1, 2], "x")
    logger.error("error")
    logger.critical("critical %.2f", 0.5)
    logger.warning("no args: %d")


def run(logger):
    print("level", repr(logger.get_level()), "config", sorted(logger.get_log_config().items()), flush=True)
    messages(logger)


if __name__ == "__main__":
    run(__import__(sys.argv[1]).log)
