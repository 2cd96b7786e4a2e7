"""The recorder scripts in this directory run MindSpore (in /work/ms-venv) and are never
collected by pytest; only the data they wrote (data/) is read by tests."""
collect_ignore_glob = ["record_*.py", "check_ckpt.py"]
