"""Schema, RandomDataset and FakeImageDataset (issue 35).

Schema (schema.py) holds column descriptions as MindSpore 2.10 writes them. RandomDataset makes rows of
random values for a schema's columns; FakeImageDataset random images (uint8, image_size) with
labels (uint32, below num_classes). Their values come from pycompile's generator, seeded per row
(FakeImageDataset by base_seed and the row index), not MindSpore's stream.
"""
from __future__ import annotations

import numpy as np

from pycompile.dataset.schema import Schema, schema_columns  # noqa: F401
from pycompile.dataset.sources import RandomAccessSource


class RandomDataset(RandomAccessSource):
    """`total_rows` rows (random when None) of random values for the schema's columns (a -1
    dimension takes a random length); without a schema, `columns_list` (or c0, c1, ...) of random
    dtypes and shapes."""

    def __init__(self, total_rows=None, schema=None, columns_list=None, num_samples=None, num_parallel_workers=None,
                 cache=None, shuffle=None, num_shards=None, shard_id=None):
        super().__init__(num_samples, shuffle, num_shards, shard_id, None)
        setup = np.random.default_rng(0)
        self.total_rows = int(total_rows) if total_rows is not None else int(setup.integers(1, 1025))
        if isinstance(schema, str):
            schema = Schema(schema)
        if schema is not None:
            specs = schema._specs()
            if columns_list is not None:
                specs = [s for s in specs if s[0] in columns_list]
        else:
            count = int(setup.integers(1, 5))
            names = list(columns_list) if columns_list is not None else [f"c{i}" for i in range(count)]
            kinds = ("uint8", "int32", "int64", "float32", "float64")
            specs = [(n, kinds[int(setup.integers(0, len(kinds)))], [int(setup.integers(1, 5))]) for n in names]
        self.specs = specs

    def get_col_names(self):
        return [s[0] for s in self.specs]

    def _length(self):
        return self.total_rows

    def _get(self, index):
        rng = np.random.default_rng((7, index))
        row = []
        for _, kind, shape in self.specs:
            dims = [int(rng.integers(1, 33)) if d == -1 else d for d in (shape or [])]
            if kind in ("string", "bytes"):
                row.append(np.array("".join(chr(97 + int(c)) for c in rng.integers(0, 26, 8))))
            elif kind == "bool":
                row.append(rng.integers(0, 2, dims).astype(bool))
            elif np.dtype(kind).kind == "f":
                row.append(rng.random(dims).astype(kind))
            else:
                info = np.iinfo(kind)
                row.append(rng.integers(max(info.min, -1000), min(info.max, 1000) + 1, dims).astype(kind))
        return tuple(row)


class FakeImageDataset(RandomAccessSource):
    """`num_images` random uint8 images of `image_size` with uint32 labels below `num_classes`."""

    def __init__(self, num_images=1000, image_size=(224, 224, 3), num_classes=10, base_seed=0, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        for name, v in (("num_images", num_images), ("num_classes", num_classes)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"Input {name} is not within the required interval of [1, 2147483647], but got {v}.")
        if len(image_size) != 3 or any(int(d) <= 0 for d in image_size):
            raise ValueError(f"image_size should be a list or tuple of length 3 positive ints, but got {image_size}.")
        super().__init__(num_samples, shuffle, num_shards, shard_id, sampler)
        self.num_images, self.image_size = num_images, tuple(int(d) for d in image_size)
        self.num_classes, self.base_seed = num_classes, int(base_seed)

    def get_col_names(self):
        return ["image", "label"]

    def _length(self):
        return self.num_images

    def _class_labels(self, column):
        return [int(self._get(i)[1]) for i in range(self.num_images)]

    def _get(self, index):
        rng = np.random.default_rng((self.base_seed, index))
        image = rng.integers(0, 256, self.image_size, dtype=np.uint8)
        return image, np.array(int(rng.integers(0, self.num_classes)), np.uint32)
