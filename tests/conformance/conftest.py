"""The conformance table: record.py runs in the MindSpore venv only, never under pytest."""
collect_ignore = ["record.py", "extract_usage.py"]
