"""More of MindSpore 2.10's named image datasets (after named_more.py), read from their unpacked
layouts (no downloads): Omniglot, SBU, SUN397 and RenderedSST2. Rows, dtypes, orders and argument
errors recorded from the wheel in tests/dataset/named_sources.json. All are mappable (sampler,
shuffle, shards, num_samples); images are the files' bytes (uint8, 1-D) or, with decode=True,
decoded HWC RGB.
"""
from __future__ import annotations

import os
import re

import numpy as np

from pycompile.dataset.named_images import _ImageItems, _check_str, _image
from pycompile.dataset.named_text import _lines, check_dir
from pycompile.dataset.vision._decode import decode_image


def _check_bool(value, name):
    if value is not None and not isinstance(value, bool):
        raise TypeError(f"Argument {name} with value {value} is not of type [<class 'bool'>], but got {type(value)}.")


class _Labelled(_ImageItems):
    """Rows image, label (`_LABEL`: uint32, Omniglot's int32) of `self._items` = [(path, label)]."""

    _COLUMNS, _LABEL = ["image", "label"], np.uint32

    def _class_labels(self, column):
        return [label for _, label in self._items]

    def _row(self, item):
        return _image(item[0], self.decode), np.array(item[1], self._LABEL)


class OmniglotDataset(_Labelled):
    """Omniglot: images_background/ (background=True, the default) or images_evaluation/, a class
    per <alphabet>/<character> folder, classes numbered in sorted order, every file of a class in
    sorted name order (as ImageFolderDataset reads class folders); label int32."""

    _LABEL = np.int32

    def __init__(self, dataset_dir, background=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        _check_bool(background, "background")
        _check_bool(decode, "decode")
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        root = os.path.join(dataset_dir, "images_background" if background is not False else "images_evaluation")
        if not os.path.isdir(root):
            raise RuntimeError(f"Invalid parameter, input path is invalid or not set, path: {root}")
        classes = sorted(os.path.join(a, c) for a in os.listdir(root) if os.path.isdir(os.path.join(root, a))
                         for c in os.listdir(os.path.join(root, a)) if os.path.isdir(os.path.join(root, a, c)))
        for label, cls in enumerate(classes):
            folder = os.path.join(root, cls)
            self._items += [(os.path.join(folder, n), label) for n in sorted(os.listdir(folder))
                            if os.path.isfile(os.path.join(folder, n))]
        if not self._items:
            raise RuntimeError("Invalid data, OmniglotDataset API can't read the data file (interface mismatch or no "
                               f"data found). Check omniglot file path: {root}")


class SBUDataset(_ImageItems):
    """SBU Captioned Photos: SBU_captioned_photo_dataset_urls.txt and ..._captions.txt, line by
    line; a photo's file is sbu_images/<the url after its 23rd character, '/' made '_'>, and pairs
    whose file is absent are skipped. Rows image, caption (a string, trailing spaces removed)."""

    _COLUMNS = ["image", "caption"]

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        _check_bool(decode, "decode")
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        root = os.path.realpath(dataset_dir)
        urls = os.path.join(root, "SBU_captioned_photo_dataset_urls.txt")
        captions = os.path.join(root, "SBU_captioned_photo_dataset_captions.txt")
        images = os.path.join(root, "sbu_images")
        for path in (urls, captions):
            if not os.path.isfile(path) or not os.access(path, os.R_OK):
                raise ValueError(f"The file {path} does not exist or permission denied!")
        check_dir(os.path.join(dataset_dir, "sbu_images"))
        pairs = 0
        for url, caption in zip(_lines(urls), _lines(captions)):
            if bool(url) != bool(caption):
                raise RuntimeError(f"Invalid data, SBU url: {urls} and caption file: {captions} load empty data at "
                                   f"line: {pairs}.")
            if url:
                pairs += 1
                path = os.path.join(images, url[23:].replace("/", "_"))
                if os.path.isfile(path):
                    self._items.append((path, caption.rstrip(" ")))
        if not self._items:
            raise RuntimeError(f"No valid images in {images}")

    def _row(self, item):
        return _image(item[0], self.decode), np.array(item[1])


class SUN397Dataset(_Labelled):
    """SUN397: ClassName.txt lists the categories ('/a/abbey', ...; label = its place in the list);
    each category's folder (dataset_dir + the name) holds sun_*.jpg images. Rows come by category
    name in sorted order, files in sorted order; label uint32."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        _check_bool(decode, "decode")
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        meta = os.path.join(os.path.realpath(dataset_dir), "ClassName.txt")
        if not os.path.isfile(meta):
            raise RuntimeError(f"Invalid file, failed to open {meta}: SUN397 file is damaged or permission denied.")
        with open(meta, "rb") as f:
            text = f.read().decode("utf-8")
        if not text:
            raise RuntimeError(f"Invalid file, the file size of {meta} is unexpected, got size 0.")
        categories = {}
        for label, name in enumerate(re.sub(r"\s+", " ", text).strip(" ").split(" ")):
            categories.setdefault(name, label)
        for name in sorted(categories):
            folder = dataset_dir + name
            if not os.path.isdir(folder):
                raise RuntimeError(f"Invalid path, {name} does not exist or permission denied.")
            files = sorted(os.path.join(folder, n) for n in os.listdir(folder)
                           if os.path.splitext(n)[1] == ".jpg" and n.startswith("sun_"))
            self._items += [(p, categories[name]) for p in files]
        if not self._items:
            raise RuntimeError("Invalid data, no valid data matching the dataset API SUN397Dataset. Please check "
                               f"dataset API or file path: {dataset_dir}.")


class RenderedSST2Dataset(_Labelled):
    """Rendered SST-2: <usage>/<class>/*.png for usage train, valid ('val'), test, or all three.
    Classes are numbered as the file system lists them (MindSpore numbers each new class folder
    name in directory order, as os.listdir gives it); rows come by class folder path in sorted
    order, files in sorted order; label uint32."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        if usage is not None and not isinstance(usage, str):
            raise TypeError(f"Argument  with value {usage} is not of type [<class 'str'>], but got {type(usage)}.")
        if usage is not None and usage not in ("val", "all", "train", "test"):
            raise ValueError("Input  is not within the valid set of ['val', 'all', 'train', 'test'].")
        self.usage = usage or "all"
        _check_bool(decode, "decode")
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        wanted = {"train", "test", "valid"} if self.usage == "all" else {"valid" if self.usage == "val" else self.usage}
        index, folders = {}, []
        for part in os.listdir(dataset_dir):
            if part in wanted and os.path.isdir(os.path.join(dataset_dir, part)):
                for cls in os.listdir(os.path.join(dataset_dir, part)):
                    if os.path.isdir(os.path.join(dataset_dir, part, cls)):
                        index.setdefault(cls, len(index))
                        folders.append((os.path.join(dataset_dir, part, cls), index[cls]))
        for folder, label in sorted(folders):
            self._items += [(os.path.join(folder, n), label) for n in sorted(os.listdir(folder))
                            if os.path.splitext(n)[1] == ".png"]
        if not self._items:
            raise RuntimeError("Invalid data, RenderedSST2Dataset API can't read the data file (interface mismatch or "
                               f"no data found). Check rendered sst2 file path: {dataset_dir}")


def _words(path, what):
    """The file's whitespace-separated items, as MindSpore's Places365 / PhotoTour readers split it."""
    if not os.path.isfile(path):
        raise RuntimeError(f"Invalid file, failed to open {path}: {what} is damaged or permission denied.")
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")
    return text.split()


class Places365Dataset(_Labelled):
    """Places365: categories_places365.txt, and the list of `usage` (places365_train_standard.txt,
    places365_train_challenge.txt, places365_val.txt: '<path> <label>' lines), the images in
    data_256_standard / data_large_standard, data_*_challenge or val_256 / val_large (small picks
    the 256 x 256 set). Rows image, label (uint32, the list's), in the list's order."""

    _FOLDERS = {"train-standard": "data_{}_standard", "train-challenge": "data_{}_challenge", "val": "val_{}"}
    _LISTS = {"train-standard": "places365_train_standard.txt", "train-challenge": "places365_train_challenge.txt",
              "val": "places365_val.txt"}

    def __init__(self, dataset_dir, usage=None, small=True, decode=False, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        if usage is not None:
            _check_str(usage, "usage", ("train-standard", "train-challenge", "val"))
        _check_bool(small, "small")
        _check_bool(decode, "decode")
        self.usage, self.small = usage or "train-standard", bool(small)
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        root = os.path.realpath(dataset_dir)
        what = "Places365 file"
        words = _words(os.path.join(root, "categories_places365.txt"), what)
        if len(words) % 2:
            raise RuntimeError("Invalid data, Reading places365 category file failed: "
                               f"{os.path.join(root, 'categories_places365.txt')}, space characters not found.")
        folder = os.path.join(root, self._FOLDERS[self.usage].format("256" if self.small else "large"))
        words = _words(os.path.join(root, self._LISTS[self.usage]), what)
        self._items = [(folder + ("" if p.startswith("/") else "/") + p, int(_atoi(label)) % 2**32)
                       for p, label in zip(words[0::2], words[1::2])]
        if not self._items:
            raise RuntimeError("Invalid data, no valid data matching the dataset API Places365Dataset. Please check "
                               f"dataset API or file path: {root}.")

    def _row(self, item):
        if not os.path.exists(item[0]):
            raise RuntimeError(f"Invalid file path, Places365 image: {item[0]} does not exists.")
        return super()._row(item)


def _atoi(text):
    """C's atoi: the leading optional sign and digits (0 when none)."""
    match = re.match(r"\s*([+-]?\d+)", text)
    return int(match.group(1)) if match else 0


class PhotoTourDataset(_ImageItems):
    """Photo Tour patches: <name>/*.bmp (sorted; each a 1024 x 1024 grid of 16 x 16 patches of
    64 x 64, read gray), info.txt ('<3D point id> <unused>' per patch) and m50_100000_100000_0.txt
    (match pairs). usage 'train' (default): a row per info.txt line, image (64 x 64 x 1 uint8, patch
    i); 'test': a row per match line, image1, image2 (its two patches) and matches (uint32, 1 when
    both patches show the same 3D point)."""

    _NAMES = ("notredame", "yosemite", "liberty", "notredame_harris", "yosemite_harris", "liberty_harris")

    def __init__(self, dataset_dir, name, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        if usage is not None:
            _check_str(usage, "usage", ("train", "test"))
        _check_str(name, "name", self._NAMES)
        self.name, self.usage = name, usage or "train"
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler)
        folder = os.path.join(dataset_dir, name)
        if not os.path.isdir(folder):
            raise RuntimeError(f"{folder} does not exist.")
        root = os.path.realpath(folder)
        self._bmps = sorted(os.path.join(root, n) for n in os.listdir(root) if n.endswith("bmp"))
        self._cache = {}
        what = "PhotoTour info file"
        info = _words(os.path.join(root, "info.txt"), what)
        self._labels = [_atoi(w) for w in info[0::2]]
        matches = _words(os.path.join(root, "m50_100000_100000_0.txt"), what)
        self._matches = [(_atoi(m[0]), _atoi(m[3]), int(_atoi(m[1]) == _atoi(m[4])))
                         for m in (matches[k:k + 7] for k in range(0, len(matches) - 4, 7))]
        self._items = list(range(len(self._labels))) if self.usage == "train" else self._matches
        if not self._items:
            raise RuntimeError("Invalid data, data file may not suitable to read with PhotoTourDataset API.Check file "
                               f"in directory: {folder}")

    def get_col_names(self):
        return ["image"] if self.usage == "train" else ["image1", "image2", "matches"]

    def _class_labels(self, column):
        return list(self._labels) if self.usage == "train" else [m[2] for m in self._matches]

    def _patch(self, index):
        image, cell = divmod(index, 256)
        if image not in self._cache:
            rgb = decode_image(np.fromfile(self._bmps[image], np.uint8), self._bmps[image]).astype(np.int64)
            # OpenCV's gray: (4899 R + 9617 G + 1868 B + 2**13) >> 14
            self._cache[image] = ((rgb[..., 0] * 4899 + rgb[..., 1] * 9617 + rgb[..., 2] * 1868 + 8192) >> 14
                                  ).astype(np.uint8)
        row, col = divmod(cell, 16)
        return np.ascontiguousarray(self._cache[image][row * 64:row * 64 + 64, col * 64:col * 64 + 64, None])

    def _row(self, item):
        if self.usage == "train":
            return (self._patch(item),)
        return self._patch(item[0]), self._patch(item[1]), np.array(item[2], np.uint32)


class DIV2KDataset(_ImageItems):
    """DIV2K super-resolution pairs: the .png files of DIV2K_<usage>_HR in sorted path order, each
    with its low-resolution image <id>x<scale>[m|d|w].png in DIV2K_<usage>_LR_<downgrade>[/X<scale>]
    (X<scale> for bicubic / unknown at scale 2-4; bicubic x8 is DIV2K_<usage>_LR_x8). usage 'all'
    reads train then valid. Rows hr_image, lr_image (bytes, or decoded)."""

    _COLUMNS = ["hr_image", "lr_image"]

    def __init__(self, dataset_dir, usage="train", downgrade="bicubic", scale=2, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        check_dir(dataset_dir)
        _check_str(usage, "usage", ("train", "valid", "all"))
        _check_str(downgrade, "downgrade", ("bicubic", "unknown", "mild", "difficult", "wild"))
        if scale not in (2, 3, 4, 8):
            raise ValueError("Input scale is not within the valid set of [2, 3, 4, 8].")
        if scale == 8 and downgrade != "bicubic":
            raise ValueError("DIV2KNode: scale equal to 8 is allowed only in bicubic downgrade.")
        if downgrade in ("mild", "difficult", "wild") and scale != 4:
            raise ValueError(f"DIV2KNode: {downgrade} downgrade requires scale equal to 4.")
        _check_bool(decode, "decode")
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        root = os.path.realpath(dataset_dir)
        suffix = {"mild": "m", "difficult": "d", "wild": "w"}.get(downgrade, "")
        for part in (("train", "valid") if usage == "all" else (usage,)):
            hr = os.path.join(root, f"DIV2K_{part}_HR")
            lr = os.path.join(root, f"DIV2K_{part}_LR_" + ("x8" if scale == 8 else downgrade))
            if downgrade in ("bicubic", "unknown") and scale != 8:
                lr = os.path.join(lr, f"X{scale}")
            if not os.path.isdir(hr):
                raise RuntimeError(f"Invalid path, div2k hr image dir: {hr} is not a directory.")
            if not os.path.isdir(lr):
                raise RuntimeError(f"Invalid path, div2k lr image dir: {lr} is not a directory.")
            pairs = []
            for name in os.listdir(hr):
                if os.path.splitext(name)[1] != ".png":
                    continue
                low = os.path.join(lr, f"{os.path.splitext(name)[0]}x{scale}{suffix}.png")
                if not os.path.exists(low):
                    raise RuntimeError(f"Invalid file, div2k image file: {low} does not exist.")
                pairs.append((os.path.join(hr, name), low))
            self._items += sorted(pairs)
        if not self._items:
            raise RuntimeError("Invalid data, no valid data matching the dataset API 'DIV2KDataset'. Please check "
                               f"dataset API or file path: {dataset_dir}.")

    def _row(self, item):
        return _image(item[0], self.decode), _image(item[1], self.decode)


class FlickrDataset(_ImageItems):
    """Flickr8k / Flickr30k: the annotation file's '<image>#<k>\t<caption>' lines, a row per image
    (a JPEG / PNG / GIF / BMP file under dataset_dir, by its first bytes; others skipped) in sorted
    path order: image, annotation (its captions, 1-D strings, in the file's order)."""

    _COLUMNS = ["image", "annotation"]

    def __init__(self, dataset_dir, annotation_file, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        if not isinstance(annotation_file, str):
            raise TypeError(f"Argument dataset_file with value {annotation_file} is not of type [<class 'str'>], "
                            f"but got {type(annotation_file)}.")
        real = os.path.realpath(annotation_file)
        if not os.path.isfile(real) or not os.access(real, os.R_OK):
            raise ValueError(f"The file {real} does not exist or permission denied!")
        _check_bool(decode, "decode")
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        captions = {}
        for line in _lines(annotation_file):
            if not line:
                continue
            tab = line.find("\t")
            name = line[:tab - 2] if tab >= 2 else ""
            if not name:
                raise RuntimeError("Invalid file, the attribute of image_name is missing in flickr dataset file: "
                                   f"{annotation_file}, line: {line}")
            annotation = line[tab + 1:]
            if not annotation:
                raise RuntimeError("Invalid file, the attribute of annotation is missing in flickr dataset file: "
                                   f"{annotation_file}, line: {line}")
            path = os.path.join(dataset_dir, name)
            if not os.path.exists(path):
                raise RuntimeError(f"Invalid file path, flickr dataset file: {path} does not exist.")
            with open(path, "rb") as f:
                head = f.read(3)
            if head in (b"\xff\xd8\xff", b"\x89PN", b"GIF") or head[:2] == b"BM":
                captions.setdefault(path, []).append(annotation)
        self._items = sorted(captions.items())
        if not self._items:
            raise RuntimeError("Invalid data, no valid data matching the dataset API FlickrDataset. Please check file "
                               "path or dataset API.")

    def _row(self, item):
        return _image(item[0], self.decode), np.array(item[1])


def _atof(text):
    """C's atof: the longest leading float (0.0 when none)."""
    match = re.match(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text)
    return float(match.group(0)) if match else 0.0


class WIDERFaceDataset(_ImageItems):
    """WIDER FACE: WIDER_<part>/images/<event>/*.jpg (events in sorted order, each event's files as
    the file system lists them), with wider_face_split/wider_face_<part>_bbx_gt.txt (an image path,
    its box count, then a line of 10 integers per box). usage 'train', 'valid', 'all' (train then
    valid): rows image, bbox (n x 4), blur, expression, illumination, occlusion, pose, invalid (n),
    int32 (MindSpore's documentation says uint32; the wheel gives int32);
    'test' (WIDER_test): image only."""

    _ANNOTATION = ["bbox", "blur", "expression", "illumination", "occlusion", "pose", "invalid"]

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        if usage is not None:
            _check_str(usage, "usage", ("train", "test", "valid", "all"))
        _check_bool(decode, "decode")
        self.usage = usage or "all"
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        root = os.path.realpath(dataset_dir)
        folder = {p: os.path.join(root, f"WIDER_{p}", "images") for p in ("train", "val", "test")}
        split = os.path.join(root, "wider_face_split")
        self._events, self._boxes = set(), {}
        parts = {"train": ("train",), "valid": ("val",), "test": ("test",), "all": ("train", "val")}[self.usage]
        for part in parts:
            self._walk(folder[part])
        for part in parts:
            if part != "test":
                self._read_boxes(os.path.join(split, f"wider_face_{part}_bbx_gt.txt"), folder[part])

    def _walk(self, path):
        if not os.path.isdir(path):
            raise RuntimeError(f"Invalid path, failed to open WIDERFace folder: {path}")
        self._events |= {n for n in os.listdir(path) if os.path.isdir(os.path.join(path, n))}
        if not self._events:
            raise RuntimeError(f"Invalid file, no subfolder found under path: {path}")
        for event in sorted(self._events):
            if os.path.isdir(os.path.join(path, event)):
                self._items += [os.path.join(path, event, n) for n in os.listdir(os.path.join(path, event))
                                if os.path.splitext(n)[1] == ".jpg"]
        if not self._items:
            raise RuntimeError(f"Invalid file, no .jpg file found under path: {path}")

    def _read_boxes(self, listing, folder):
        if not os.path.isfile(listing):
            return
        lines, at = _lines(listing), 0
        while at < len(lines):
            image, values = os.path.join(folder, lines[at]), []
            if at + 1 >= len(lines):
                break
            try:
                count = int(lines[at + 1].strip())
            except ValueError:
                raise RuntimeError(f"Invalid data, failed to read the number of bbox: {lines[at + 1]}") from None
            box_lines = lines[at + 2:at + 2 + max(count, 1)]
            for line in box_lines:
                for k, item in enumerate(p for p in line.split(" ") if p):
                    match = re.match(r"\s*[+-]?\d+", item)
                    if not match:
                        raise RuntimeError(f"Invalid data, failed to parse the annotation {k}: {item}")
                    values.append(int(match.group(0)))
            if len(box_lines) == max(count, 1):
                self._boxes[image] = values
            at += 2 + max(count, 1)

    def get_col_names(self):
        return ["image"] if self.usage == "test" else ["image"] + self._ANNOTATION

    def _row(self, path):
        image = _image(path, self.decode)
        if self.usage == "test":
            return (image,)
        values = self._boxes.get(path, [])
        if len(values) % 10:
            raise RuntimeError("Invalid parameter, only annotation with size multiple of eight are accepted, but "
                               f"got: {len(values)}")
        boxes = np.array(values, np.int32).reshape(-1, 10)
        return (image, np.ascontiguousarray(boxes[:, :4])) + tuple(np.ascontiguousarray(boxes[:, k])
                                                                   for k in range(4, 10))


class KITTIDataset(_ImageItems):
    """KITTI object detection: data_object_image_2/<training|testing>/image_2/<nnnnnn>.png, the ids
    000000 ... up to the folder's entry count; usage 'train' (default) pairs each with
    data_object_label_2/training/label_2/<id>.txt (ids whose file has no objects are dropped):
    rows image, label (n x 1 uint32: the class's place among all class names, sorted), truncated,
    occluded (uint32), alpha (n x 1), bbox (n x 4), dimensions, location (n x 3), rotation_y (n x 1),
    float32 but occluded; 'test': image only."""

    _COLUMNS = ["image", "label", "truncated", "occluded", "alpha", "bbox", "dimensions", "location", "rotation_y"]

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        if usage is not None:
            _check_str(usage, "usage", ("train", "test"))
        _check_bool(decode, "decode")
        self.usage = usage or "train"
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        root = os.path.realpath(dataset_dir)
        split = "training" if self.usage == "train" else "testing"
        images = os.path.join(root, "data_object_image_2", split, "image_2")
        if not os.path.isdir(images):
            raise RuntimeError(f"Invalid path, failed to open KITTI image dir: {images}, permission denied.")
        ids = [f"{i:06d}" for i in range(len(os.listdir(images)))]
        self._images = images
        if self.usage == "test":
            self._items = [(i, None) for i in ids]
            return
        objects, names = {}, set()
        for i in ids:
            path = os.path.join(root, "data_object_label_2", "training", "label_2", i + ".txt")
            if not os.path.exists(path):
                raise RuntimeError(f"Invalid path, {path} does not exist.")
            rows = [line.split() for line in _lines(path)]
            rows = [(r[0], [_atof(v) for v in r[1:15]]) for r in rows if r]
            if rows:
                objects[i] = rows
                names |= {name for name, _ in rows}
        self._index = {name: k for k, name in enumerate(sorted(names))}
        self._items = [(i, objects[i]) for i in ids if i in objects]
        if not self._items:
            raise RuntimeError("Invalid data, no valid data matching the dataset API KITTIDataset. Please check file "
                               "path or dataset API.")

    def get_col_names(self):
        return list(self._COLUMNS) if self.usage == "train" else ["image"]

    def _row(self, item):
        image = _image(os.path.join(self._images, item[0] + ".png"), self.decode)
        if self.usage == "test":
            return (image,)
        for _, values in item[1]:
            if len(values) != 14:
                raise RuntimeError("Invalid file, the format of the annotation file is not as expected, got "
                                   f"{len(values)} parameters.")
        v = np.array([values for _, values in item[1]], np.float32).reshape(-1, 14)
        labels = np.array([[self._index[name]] for name, _ in item[1]], np.uint32).reshape(-1, 1)
        occluded = np.array([[int(np.float32(x))] for x in v[:, 1]], np.int64).astype(np.uint32).reshape(-1, 1)
        return (image, labels, np.ascontiguousarray(v[:, 0:1]), occluded, np.ascontiguousarray(v[:, 2:3]),
                np.ascontiguousarray(v[:, 3:7]), np.ascontiguousarray(v[:, 7:10]), np.ascontiguousarray(v[:, 10:13]),
                np.ascontiguousarray(v[:, 13:14]))


class CityscapesDataset(_ImageItems):
    """Cityscapes: leftImg8bit/<usage>/<city>/<name>_leftImg8bit.png, each with its target
    gtFine|gtCoarse/<usage>/<city>/<name>_<gt>_instanceIds.png / _labelIds.png / _color.png /
    _polygons.json (task instance / semantic / color / polygon), in sorted image path order per
    usage ('all': train, test, val for fine; train, train_extra, val for coarse). Rows image, task:
    the target image (bytes, or decoded) or, for polygon, the json text (compact, keys sorted)."""

    _COLUMNS = ["image", "task"]
    _SUFFIX = {"instance": "instanceIds.png", "semantic": "labelIds.png", "color": "color.png",
               "polygon": "polygons.json"}

    def __init__(self, dataset_dir, usage="train", quality_mode="fine", task="instance", num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        check_dir(dataset_dir)
        _check_str(task, "task", ("instance", "semantic", "polygon", "color"))
        _check_str(quality_mode, "quality_mode", ("fine", "coarse"))
        _check_str(usage, "usage", ("train", "test", "val", "all") if quality_mode == "fine"
                   else ("train", "train_extra", "val", "all"))
        _check_bool(decode, "decode")
        self.task = task
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        root = os.path.realpath(dataset_dir)
        gt = "gtFine" if quality_mode == "fine" else "gtCoarse"
        parts = ((("train", "test", "val") if quality_mode == "fine" else ("train", "train_extra", "val"))
                 if usage == "all" else (usage,))
        for part in parts:
            images, targets = os.path.join(root, "leftImg8bit", part), os.path.join(root, gt, part)
            for path, what in ((images, "image"), (targets, "task")):
                if not os.path.isdir(path):
                    raise RuntimeError(f"Invalid path, Cityscapes Dataset {what} dir: {path} is not a directory path.")
            pairs = []
            for city in os.listdir(images):
                if not os.path.isdir(os.path.join(images, city)):
                    continue
                for name in os.listdir(os.path.join(images, city)):
                    if os.path.splitext(name)[1] != ".png":
                        continue
                    stem = name[:name.find("_leftImg8bit")] if "_leftImg8bit" in name else name
                    target = os.path.join(targets, city, f"{stem}_{gt}_{self._SUFFIX[task]}")
                    if not os.path.exists(target):
                        raise RuntimeError(f"Invalid file, {target} not found.")
                    pairs.append((os.path.join(images, city, name), target))
            self._items += sorted(pairs)
        if not self._items:
            raise RuntimeError("Invalid data, no valid data matching the dataset API CityscapesDataset. Please check "
                               "file path or dataset API.")

    def _row(self, item):
        image = _image(item[0], self.decode)
        if self.task != "polygon":
            return image, _image(item[1], self.decode)
        import json
        with open(item[1], encoding="utf-8") as f:
            text = json.dumps(json.load(f), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return image, np.array(text)


__all__ = ["OmniglotDataset", "SBUDataset", "SUN397Dataset", "RenderedSST2Dataset", "Places365Dataset",
           "PhotoTourDataset", "DIV2KDataset", "FlickrDataset", "WIDERFaceDataset", "KITTIDataset",
           "CityscapesDataset"]
