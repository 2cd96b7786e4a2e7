"""`python -m pycompile MODEL.py ...`: the same as the `pycompile` command (pycompile.cli)."""
import sys

from pycompile.cli import main

sys.exit(main())
