"""MindSpore 2.10's named image datasets whose files need no lmdb reader: Caltech101 (its
annotations are MATLAB 5 MAT-files, read by read_mat), Caltech256, Food101, Semeion, USPS, STL10
and LFW, read from their archives' unpacked layouts (no downloads). Rows, dtypes, orders and argument errors recorded
from the wheel in tests/dataset/named_sources.json. Images are the files' bytes (uint8, 1-D) or,
with decode=True, decoded HWC RGB (vision._decode, as ImageFolderDataset decodes).

All are mappable (sampler, shuffle, shards, num_samples) except USPS, one of MindSpore's
non-mappable file readers (file_sources._FileRows: its order depends on num_parallel_workers).
"""
from __future__ import annotations

import os

import numpy as np

from pycompile.dataset.file_sources import ImageFolderDataset
from pycompile.dataset.annotated_sources import _image  # noqa: F401  (named_more / named_more2 import it here)
from pycompile.dataset.named_text import _ItemRows, _NamedFiles, _lines, check_dir, check_usage


def _check_str(value, name, valid):
    if not isinstance(value, str):
        raise TypeError(f"Argument {name} with value {value} is not of type [<class 'str'>], but got {type(value)}.")
    if value not in valid:
        raise ValueError(f"Input {name} is not within the valid set of {list(valid)}.")


class _ImageItems(_ItemRows):
    """An image set's rows, decoded or as the files' bytes; `_labels()` the PKSampler classes."""

    def __init__(self, dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode=False):
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler)
        self.decode = bool(decode)


_MAT_TYPES = {1: "i1", 2: "u1", 3: "i2", 4: "u2", 5: "i4", 6: "u4", 7: "f4", 9: "f8", 12: "i8", 13: "u8"}
_MAT_CLASSES = {6: "f8", 7: "f4", 8: "i1", 9: "u1", 10: "i2", 11: "u2", 12: "i4", 13: "u4", 14: "i8", 15: "u8"}


def read_mat(path) -> dict:
    """The variables of a MATLAB 5 MAT-file ({name: value}), as scipy.io.loadmat gives them by
    default where it matters here: a numeric matrix in the dtype its data is stored in (MATLAB
    stores integral doubles as small ints), the stored shape, column-major data; a cell array an
    object array of its elements; a struct array an object array of {field: value} dicts; a sparse
    matrix dense (bool when logical, else float64). Compressed elements are inflated."""
    import zlib
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 128:
        raise RuntimeError(f"Invalid file, {path} is not a MATLAB 5 MAT-file.")
    order = "<" if data[126:128] == b"IM" else ">"
    out = {}

    def elements(buf):
        at = 0
        while at + 8 <= len(buf):
            kind, size = np.frombuffer(buf, order + "u4", 2, at)
            if kind >> 16:                                  # a small element: its data in the tag
                kind, size, start, at = kind & 0xFFFF, kind >> 16, at + 4, at + 8
            else:
                start, at = at + 8, at + 8 + int(size) + (-int(size)) % 8
            yield int(kind), buf[start:start + int(size)]
            if kind == 15:                                  # compressed: the next element is inside
                at = at - (-int(size)) % 8

    def numbers(part):
        kind, raw = part
        return np.frombuffer(raw, order + _MAT_TYPES[kind]).astype(_MAT_TYPES[kind])     # as stored

    def objects(dims, values):
        array = np.empty(len(values), dtype=object)
        array[:] = values
        return array.reshape(dims, order="F")

    def matrix(buf):
        parts = list(elements(buf))
        flags = int(np.frombuffer(parts[0][1], order + "u4", 1)[0])
        cls = flags & 0xFF
        dims = tuple(int(d) for d in np.frombuffer(parts[1][1], order + "i4"))
        name = parts[2][1].decode("latin-1")
        if cls == 1:                                        # cell array
            return name, objects(dims, [matrix(body)[1] for _, body in parts[3:]])
        if cls == 2:                                        # struct array: field values element by element
            width = int(numbers(parts[3])[0])
            raw = parts[4][1]
            fields = [raw[k:k + width].split(b"\0")[0].decode("latin-1") for k in range(0, len(raw), width)]
            values = [matrix(body)[1] for _, body in parts[5:]]
            return name, objects(dims, [dict(zip(fields, values[k:k + len(fields)]))
                                        for k in range(0, len(values), max(len(fields), 1))])
        if cls == 5:                                        # sparse: row indices, column starts, values
            rows, starts, values = numbers(parts[3]), numbers(parts[4]), numbers(parts[5])
            dense = np.zeros(dims, dtype=values.dtype)
            for col in range(dims[1]):
                for k in range(int(starts[col]), int(starts[col + 1])):
                    dense[int(rows[k]), col] = values[k]
            return name, dense
        if cls not in _MAT_CLASSES:
            raise RuntimeError(f"Invalid file, {path}: variable '{name}' has an unsupported MATLAB class {cls}.")
        return name, numbers(parts[3]).reshape(dims, order="F")

    pending = [data[128:]]
    while pending:
        for kind, body in elements(pending.pop()):
            if kind == 15:
                pending.append(zlib.decompress(body))
            elif kind == 14:
                name, value = matrix(body)
                out[name] = value
    return out


class Caltech101Dataset(_ImageItems):
    """Caltech 101: 101_ObjectCategories/<class>/image_<nnnn>.jpg, classes in sorted order without
    BACKGROUND_Google, each folder's files counted and read as image_0001.jpg ... in turn; the
    annotation is the obj_contour matrix (2 x points, in its stored dtype) of Annotations/<class>/
    annotation_<nnnn>.mat (Faces, Faces_easy, Motorbikes, airplanes are Faces_2, Faces_3,
    Motorbikes_16, Airplanes_Side_2 there). target_type 'category': rows image, category (int64:
    MindSpore builds it on GeneratorDataset from Python ints); 'annotation': image, annotation;
    'all': image, category, annotation."""

    _RENAMED = {"Faces": "Faces_2", "Faces_easy": "Faces_3", "Motorbikes": "Motorbikes_16",
                "airplanes": "Airplanes_Side_2"}

    def __init__(self, dataset_dir, target_type=None, num_samples=None, num_parallel_workers=1, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None):
        check_dir(dataset_dir)
        if target_type is not None:
            _check_str(target_type, "target_type", ("category", "annotation", "all"))
        self.target_type = target_type or "category"
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        image_dir = os.path.join(dataset_dir, "101_ObjectCategories")
        self._classes = [c for c in sorted(os.listdir(image_dir)) if c != "BACKGROUND_Google"]
        for label, cls in enumerate(self._classes):
            folder = os.path.join(image_dir, cls)
            if os.path.isdir(folder) and os.access(folder, os.R_OK):
                self._items += [(cls, i, label) for i in range(1, len(os.listdir(folder)) + 1)]

    def get_col_names(self):
        return {"category": ["image", "category"], "annotation": ["image", "annotation"],
                "all": ["image", "category", "annotation"]}[self.target_type]

    def get_class_indexing(self):
        return {c: i for i, c in enumerate(self._classes)}

    def _class_labels(self, column):
        return [label for _, _, label in self._items]

    def _row(self, item):
        cls, number, label = item
        path = os.path.join(self.dataset_dir, "101_ObjectCategories", cls, f"image_{number:04d}.jpg")
        if not os.path.exists(path):
            raise ValueError(f"The image file {path} does not exist or permission denied!")
        image, category = _image(path, self.decode), np.array(label, np.int64)
        if self.target_type == "category":
            return image, category
        mat = os.path.join(self.dataset_dir, "Annotations", self._RENAMED.get(cls, cls),
                           f"annotation_{number:04d}.mat")
        if not os.path.exists(mat):
            raise ValueError(f"The annotation file {mat} does not exist or permission denied!")
        contour = read_mat(mat).get("obj_contour")
        if contour is None:
            raise RuntimeError(f"Invalid file, {mat} has no variable 'obj_contour'.")
        return (image, contour) if self.target_type == "annotation" else (image, category, contour)


class Caltech256Dataset(ImageFolderDataset):
    """Caltech 256: ImageFolderDataset over the class folders (001.ak47, ...), files ending .jpg
    or .JPEG; labels int32, numbered in sorted folder order."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler, [".jpg", ".JPEG"],
                         None, decode, num_shards, shard_id, cache)


class Food101Dataset(_ImageItems):
    """Food-101: images/<class>/<id>.jpg as listed in meta/train.txt and meta/test.txt
    (`<class>/<id>` lines; 'all' reads train then test). Rows image, label (the class, a string)."""

    _COLUMNS = ["image", "label"]

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        self.usage = check_usage(usage, ("train", "test", "all"), "all")
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        for part in (("train", "test") if self.usage == "all" else (self.usage,)):
            listing = os.path.join(dataset_dir, "meta", part + ".txt")
            if not os.path.isfile(listing):
                raise RuntimeError(f"Invalid file, failed to open Food101 meta file: {listing}")
            for line in _lines(listing):
                if line:
                    self._items.append((os.path.join(dataset_dir, "images", line + ".jpg"), line.split("/")[0]))
        if not self._items:
            raise RuntimeError(f"Invalid data, no valid data found in path: {dataset_dir}")

    def _row(self, item):
        return _image(item[0], self.decode), np.array(item[1])


class SemeionDataset(_ImageItems):
    """Semeion: semeion.data, a line per digit of 256 pixel values (0 / 1) then its one-hot digit.
    Rows image (uint8 16x16), label (uint32)."""

    _COLUMNS = ["image", "label"]

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler)
        path = os.path.join(dataset_dir, "semeion.data")
        if not os.path.isfile(path):
            raise RuntimeError(f"Invalid file, failed to open Semeion file: {path}")
        for number, line in enumerate(_lines(path), 1):
            values = line.split()
            if not values:
                continue
            if len(values) < 266:
                raise RuntimeError(f"Invalid data, {path} line {number} has {len(values)} values, 266 expected.")
            image = np.array([int(float(v)) for v in values[:256]], np.uint8).reshape(16, 16)
            onehot = [float(v) for v in values[256:266]]
            self._items.append((image, onehot.index(1.0) if 1.0 in onehot else 0))

    def _row(self, item):
        return item[0].copy(), np.array(item[1], np.uint32)


class USPSDataset(_NamedFiles):
    """USPS: the libsvm-format files usps (train) and usps.t (test), a line per digit
    `label 1:v1 ... 256:v256 ` (values in [-1, 1], each followed by a space). Rows image (uint8
    16x16x1, (v + 1) / 2 * 255 truncated), label (uint32, the 1-10 label minus one)."""

    _API, _WHAT, _COLUMNS = "USPSDataset", "usps", ["image", "label"]

    def _files(self, dataset_dir, usage):
        return [os.path.join(dataset_dir, n) for n in (("usps", "usps.t") if usage == "all"
                                                         else ("usps" if usage == "train" else "usps.t",))]

    def _read(self, path):
        if not os.path.isfile(path):
            return []
        rows = []
        for line in _lines(path):
            if not line:
                continue
            items = line.split(" ")[:-1]            # the text after the last space is no item
            if len(items) != 257:
                raise RuntimeError("Invalid data, the number of split characters ':' in USPS data file is corrupted, "
                                   f"should be 257, but got {len(items)}.")
            pixels = np.zeros(256, np.uint8)
            for k, item in enumerate(items[1:], 1):
                index, sep, value = item.partition(":")
                if not sep:
                    raise RuntimeError("Invalid data, split character ':' is missing in USPS data file.")
                if int(index) != k:
                    raise RuntimeError(f"Invalid data, the character before ':' should be {k}, but got {index}.")
                pixels[k - 1] = int((float(np.float32(value)) + 1.0) / 2.0 * 255.0) & 0xFF
            rows.append((pixels.reshape(16, 16, 1), np.array(int(items[0]) - 1, np.int64).astype(np.uint32)))
        return rows


class STL10Dataset(_ImageItems):
    """STL-10 binary files: <part>_X.bin (3x96x96 bytes an image, stored column-major) and
    <part>_y.bin (a 1-10 byte a label) for train / test, unlabeled_X.bin (label -1). usage
    'train', 'test', 'unlabeled', 'train+unlabeled' or 'all' (test, train, unlabeled). Rows image
    (uint8 96x96x3), label (int32: the byte minus one)."""

    _COLUMNS = ["image", "label"]
    _PARTS = {"train": ("train",), "test": ("test",), "unlabeled": ("unlabeled",),
              "train+unlabeled": ("train", "unlabeled"), "all": ("test", "train", "unlabeled")}

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        self.usage = check_usage(usage, tuple(self._PARTS), "all")
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler)
        size = 3 * 96 * 96
        for part in self._PARTS[self.usage]:
            images = os.path.join(dataset_dir, f"{part}_X.bin")
            if not os.path.isfile(images):
                raise RuntimeError(f"Invalid file, failed to open STL10 file: {images}")
            count = os.path.getsize(images) // size
            labels = [-1] * count
            if part != "unlabeled":
                with open(os.path.join(dataset_dir, f"{part}_y.bin"), "rb") as f:
                    labels = [b - 1 for b in f.read()]
                if len(labels) != count:
                    raise RuntimeError(f"Invalid data, {part}_X.bin holds {count} images but {part}_y.bin "
                                       f"{len(labels)} labels.")
            self._items += [(images, i * size, label) for i, label in enumerate(labels)]

    def _row(self, item):
        path, offset, label = item
        with open(path, "rb") as f:
            f.seek(offset)
            data = np.frombuffer(f.read(3 * 96 * 96), np.uint8)
        return np.ascontiguousarray(data.reshape(3, 96, 96).transpose(2, 1, 0)), np.array(label, np.int32)


class LFWDataset(_ImageItems):
    """Labeled Faces in the Wild: images <set>/<name>/<name>_<nnnn>.jpg (set lfw, lfw_funneled or
    lfw-deepfunneled for image_set 'original' / 'funneled' / 'deepfunneled'); the people / pairs
    listing files <task>.txt ('10fold'), <task>DevTrain.txt ('train'), <task>DevTest.txt ('test'),
    both Dev files ('all'). task 'people': rows image, label (uint32, the name's line in
    lfw-names.txt; 0 for a name it lacks, as in MindSpore); 'pairs': image1, image2, label (1 for a
    matched pair)."""

    def __init__(self, dataset_dir, task=None, usage=None, image_set=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        check_dir(dataset_dir)
        if task is not None:
            _check_str(task, "task", ("people", "pairs"))
        if usage is not None:
            _check_str(usage, "usage", ("10fold", "train", "test", "all"))
        if image_set is not None:
            _check_str(image_set, "image_set", ("original", "funneled", "deepfunneled"))
        self.task, self.usage = task or "people", usage or "all"
        self.image_set = image_set or "funneled"
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        self._folder = os.path.join(dataset_dir, {"original": "lfw", "funneled": "lfw_funneled",
                                                  "deepfunneled": "lfw-deepfunneled"}[self.image_set])
        files = ([f"{self.task}.txt"] if self.usage == "10fold" else []) + \
            ([f"{self.task}DevTrain.txt"] if self.usage in ("train", "all") else []) + \
            ([f"{self.task}DevTest.txt"] if self.usage in ("test", "all") else [])
        for name in files:
            lines = self._tokens(os.path.join(dataset_dir, name))
            if not lines:
                raise RuntimeError(f"Invalid file, LFW annotation file is empty. Check file path: {dataset_dir}")
            (self._people if self.task == "people" else self._pairs)(lines)
        self._index = {}
        names = os.path.join(dataset_dir, "lfw-names.txt")
        if not os.path.isfile(names):
            raise RuntimeError(f"Invalid file, failed to open file: {dataset_dir}")
        for k, tokens in enumerate(self._tokens(names)):
            if tokens:
                self._index[tokens[0]] = k

    @staticmethod
    def _tokens(path):
        return [line.split() for line in _lines(path)] if os.path.isfile(path) else []

    def _people(self, lines):
        folds, at = (int(lines[0][0]), 1) if self.usage == "10fold" else (1, 0)
        for _ in range(folds):
            count = int(lines[at][0])
            for name, num in ((t[0], int(t[1])) for t in lines[at + 1:at + count + 1]):
                self._items += [(f"{name}_{k:04d}", name) for k in range(1, num + 1)]
            at += count + 1

    def _pairs(self, lines):
        folds, pairs = (int(lines[0][0]), int(lines[0][1])) if self.usage == "10fold" else (1, int(lines[0][0]))
        at = 1
        for _ in range(folds):
            for t in lines[at:at + pairs]:
                self._items.append((f"{t[0]}_{int(t[1]):04d}", t[0], f"{t[0]}_{int(t[2]):04d}", t[0], 1))
            for t in lines[at + pairs:at + 2 * pairs]:
                self._items.append((f"{t[0]}_{int(t[1]):04d}", t[0], f"{t[2]}_{int(t[3]):04d}", t[2], 0))
            at += 2 * pairs

    def get_col_names(self):
        return ["image", "label"] if self.task == "people" else ["image1", "image2", "label"]

    def _load(self, file_id, name):
        return _image(os.path.join(self._folder, name, file_id + ".jpg"), self.decode)

    def _row(self, item):
        if self.task == "people":
            return self._load(*item), np.array(self._index.get(item[1], 0), np.uint32)
        return self._load(item[0], item[1]), self._load(item[2], item[3]), np.array(item[4], np.uint32)


__all__ = ["Caltech101Dataset", "Caltech256Dataset", "Food101Dataset", "SemeionDataset", "USPSDataset",
           "STL10Dataset", "LFWDataset"]
