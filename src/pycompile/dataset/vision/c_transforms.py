"""`mindspore.dataset.vision.c_transforms` (the pre-2.0 path): the same classes."""
from pycompile.dataset.vision import (HWC2CHW, Border, CenterCrop, Inter, Normalize, RandomCrop,  # noqa: F401
                                      RandomHorizontalFlip, Rescale, Resize, ToTensor)
