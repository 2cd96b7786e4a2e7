"""Model export and import (issue 36). Minimal dispatcher: the MINDIR writer lives in
`pycompile.export.mindir`; other formats are added beside it."""
from __future__ import annotations


def export(net, *inputs, file_name, file_format="MINDIR", **kwargs):
    """MindSpore's `export`: write `net`, traced on `inputs`, to `file_name` in `file_format`."""
    if file_format == "MINDIR":
        from pycompile.export.mindir import export_mindir
        return export_mindir(net, inputs, file_name, **kwargs)
    raise NotImplementedError(f"pycompile cannot export to {file_format!r} yet (file_name={file_name!r})")
