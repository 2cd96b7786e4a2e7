"""`mindspore.dataset.transforms.c_transforms` (the pre-2.0 path): the same classes."""
from pycompile.dataset.transforms import Compose, OneHot, TypeCast  # noqa: F401
