"""VOCDataset, CocoDataset and CelebADataset: images with annotations, in the folder layouts the
official archives unpack to, read as MindSpore 2.10 reads them (rows, dtypes and errors recorded
in tests/oracle/data/sources_data35.json). Images are the files' bytes (uint8, 1-D) unless
decode=True. Random access: samplers, shuffle and shards work as on the other sources.

VOC (`dataset_dir` = VOCdevkit/VOC20xx): the ids listed in ImageSets/Main/<usage>.txt (task
'Detection') or ImageSets/Segmentation/<usage>.txt ('Segmentation', the default); images
JPEGImages/<id>.jpg. Detection rows: image, bbox float32 (n, 4) as [xmin, ymin, width, height],
label / difficult / truncate uint32 (n, 1), labels numbered by `class_indexing` or else by the
sorted names of the objects in the listed annotations (Annotations/<id>.xml). Segmentation rows:
image, target (SegmentationClass/<id>.png).

COCO (`annotation_file` a COCO json, images in `dataset_dir`): one row per entry of "images", in
the file's order. Detection: image, bbox float32 (n, 4), category_id, iscrowd uint32 (n, 1);
Stuff: image, segmentation float32 (n, longest polygon, padded with -1), iscrowd; Keypoint:
image, keypoints float32 (n, k), num_keypoints uint32 (n, 1); Panoptic: image, bbox,
category_id, iscrowd, area; Captioning: image, captions (n, 1) strings.

CelebA (`dataset_dir` holding list_attr_celeba.txt, the images, and list_eval_partition.txt for
usage 'train' / 'valid' / 'test'): rows image, attr uint32 (the 40 attributes, -1 read as 0).

extra_metadata=True adds a column '_meta-filename' (the image's id / file name, a string), which
the iterators leave out unless asked for by name, as MindSpore's do.
"""
from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET

import numpy as np

from pycompile.dataset.sources import RandomAccessSource
from pycompile.dataset.vision._decode import decode_image


def _check_dir(path):
    if not isinstance(path, str) or not os.path.isdir(path):
        raise ValueError(f"The folder {path} does not exist or is not a directory or permission denied!")


def _check_file(path):
    if not isinstance(path, str) or not os.path.isfile(path):
        raise ValueError(f"The file {path} does not exist or permission denied!")


def _image(path, decode):
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError as e:
        raise RuntimeError(f"Invalid file, {path} cannot be read: {e}") from None
    return decode_image(data, path) if decode else data


class _Annotated(RandomAccessSource):
    _COLUMNS: dict = {}

    def __init__(self, num_samples, shuffle, num_shards, shard_id, sampler, decode, extra_metadata):
        super().__init__(num_samples, shuffle, num_shards, shard_id, sampler)
        self.decode, self.extra_metadata = bool(decode), bool(extra_metadata)

    def get_col_names(self):
        names = list(self._COLUMNS[self.task])
        return names + ["_meta-filename"] if self.extra_metadata else names

    def _length(self):
        return len(self._items)

    def _with_meta(self, row, path):
        if not self.extra_metadata:
            return row
        return row + (np.array(os.path.splitext(os.path.basename(path))[0] if isinstance(self, VOCDataset)
                               else os.path.basename(path)),)


class VOCDataset(_Annotated):
    """PASCAL VOC detection or segmentation rows; see the module's text. Shuffled by default."""

    _COLUMNS = {"Detection": ["image", "bbox", "label", "difficult", "truncate"],
                "Segmentation": ["image", "target"]}

    def __init__(self, dataset_dir, task="Segmentation", usage="train", class_indexing=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None, extra_metadata=False, decrypt=None):
        _check_dir(dataset_dir)
        if task not in self._COLUMNS:
            raise ValueError(f"Invalid task : {task}.")
        if class_indexing is not None and task != "Detection":
            raise ValueError("class_indexing is only supported in Detection task.")
        listing = os.path.join(dataset_dir, "ImageSets", "Main" if task == "Detection" else "Segmentation",
                               f"{usage}.txt")
        _check_file(listing)
        super().__init__(num_samples, shuffle, num_shards, shard_id, sampler, decode, extra_metadata)
        self.dataset_dir, self.task, self.usage = dataset_dir, task, usage
        with open(listing) as f:
            ids = [line.strip() for line in f if line.strip()]
        if task == "Segmentation":
            self._items = [(os.path.join(dataset_dir, "JPEGImages", i + ".jpg"),
                            os.path.join(dataset_dir, "SegmentationClass", i + ".png")) for i in ids]
            self._class_indexing = {}
            return
        self._items = []
        for i in ids:
            objects = self._objects(os.path.join(dataset_dir, "Annotations", i + ".xml"))
            self._items.append((os.path.join(dataset_dir, "JPEGImages", i + ".jpg"), objects))
        if class_indexing is None:
            names = sorted({o[0] for _, objs in self._items for o in objs})
            class_indexing = {n: k for k, n in enumerate(names)}
        self._class_indexing = dict(class_indexing)
        for path, objs in self._items:
            unknown = [o[0] for o in objs if o[0] not in self._class_indexing]
            if unknown:
                raise RuntimeError(f"Invalid data, class name '{unknown[0]}' of {path} is not in class_indexing: "
                                   f"{sorted(self._class_indexing)}")

    @staticmethod
    def _objects(xml_path):
        _check_file(xml_path)
        try:
            root = ET.parse(xml_path).getroot()
        except ET.ParseError as e:
            raise RuntimeError(f"Invalid file, failed to parse xml file: {xml_path}: {e}") from None
        out = []
        for obj in root.iter("object"):
            box = obj.find("bndbox")
            if box is None or obj.findtext("name") is None:
                raise RuntimeError(f"Invalid data, an object of {xml_path} lacks its name or bndbox.")
            x0, y0, x1, y1 = (float(box.findtext(k, "0")) for k in ("xmin", "ymin", "xmax", "ymax"))
            out.append((obj.findtext("name").strip(), [x0, y0, x1 - x0, y1 - y0],
                        int(float(obj.findtext("difficult", "0"))), int(float(obj.findtext("truncated", "0")))))
        return out

    def get_class_indexing(self):
        if self.task != "Detection":
            raise RuntimeError("get_class_indexing is only supported in Detection task.")
        return dict(self._class_indexing)

    def _get(self, index):
        if self.task == "Segmentation":
            image, target = self._items[index]
            return self._with_meta((_image(image, self.decode), _image(target, self.decode)), image)
        path, objs = self._items[index]
        return self._with_meta(self._detection_row(path, objs), path)

    def _detection_row(self, path, objs):
        col = lambda k: np.array([[o[k]] for o in objs], np.uint32).reshape(-1, 1)  # noqa: E731
        return (_image(path, self.decode), np.array([o[1] for o in objs], np.float32).reshape(-1, 4),
                np.array([[self._class_indexing[o[0]]] for o in objs], np.uint32).reshape(-1, 1), col(2), col(3))


class CocoDataset(_Annotated):
    """COCO rows for one task; see the module's text. Shuffled by default."""

    _COLUMNS = {"Detection": ["image", "bbox", "category_id", "iscrowd"],
                "Stuff": ["image", "segmentation", "iscrowd"],
                "Keypoint": ["image", "keypoints", "num_keypoints"],
                "Panoptic": ["image", "bbox", "category_id", "iscrowd", "area"],
                "Captioning": ["image", "captions"]}

    def __init__(self, dataset_dir, annotation_file, task="Detection", num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None,
                 extra_metadata=False, decrypt=None):
        _check_dir(dataset_dir)
        _check_file(annotation_file)
        if task not in self._COLUMNS:
            raise ValueError(f"Invalid task type: {task}.")
        super().__init__(num_samples, shuffle, num_shards, shard_id, sampler, decode, extra_metadata)
        self.dataset_dir, self.annotation_file, self.task = dataset_dir, annotation_file, task
        try:
            with open(annotation_file, encoding="utf-8") as f:
                content = json.load(f)
        except (OSError, ValueError) as e:
            raise RuntimeError(f"Invalid annotation, failed to read the json file {annotation_file}: {e}") from None
        if not isinstance(content, dict) or "images" not in content or "annotations" not in content:
            raise RuntimeError(f"Invalid annotation, the attribute of 'images' or 'annotations' is missing in "
                               f"annotation file: {annotation_file}.")
        per_image = {}
        for ann in content["annotations"]:
            per_image.setdefault(ann["image_id"], []).append(ann)
        self._items = []
        for im in content["images"]:
            anns = per_image.get(im["id"], [])
            self._items.append((os.path.join(dataset_dir, im["file_name"]), self._parse(anns)))
        self._categories = {c["name"]: c["id"] for c in content.get("categories", [])}

    def _parse(self, anns):
        task = self.task
        if task == "Detection":
            return (np.array([a["bbox"] for a in anns], np.float32).reshape(-1, 4),
                    self._ints(a["category_id"] for a in anns), self._ints(a.get("iscrowd", 0) for a in anns))
        if task == "Stuff":
            polys = []
            for a in anns:
                if a.get("iscrowd", 0):
                    if not isinstance(a.get("segmentation"), dict) or "counts" not in a["segmentation"]:
                        raise RuntimeError(f"Invalid annotation, the attribute of 'counts' is missing in annotation "
                                           f"file: {self.annotation_file}.")
                    polys.append([float(v) for v in a["segmentation"]["counts"]])
                else:
                    polys.append([float(v) for p in a["segmentation"] for v in p])
            width = max((len(p) for p in polys), default=0)
            seg = np.full((len(polys), width), -1, np.float32)
            for k, p in enumerate(polys):
                seg[k, :len(p)] = p
            return seg, self._ints(a.get("iscrowd", 0) for a in anns)
        if task == "Keypoint":
            width = max((len(a["keypoints"]) for a in anns), default=0)
            return (np.array([a["keypoints"] for a in anns], np.float32).reshape(-1, width),
                    self._ints(a["num_keypoints"] for a in anns))
        if task == "Panoptic":
            segs = [s for a in anns for s in a["segments_info"]]
            return (np.array([s["bbox"] for s in segs], np.float32).reshape(-1, 4),
                    self._ints(s["category_id"] for s in segs), self._ints(s.get("iscrowd", 0) for s in segs),
                    self._ints(s["area"] for s in segs))
        return (np.array([[a["caption"]] for a in anns]).reshape(-1, 1),)

    @staticmethod
    def _ints(values):
        return np.array([[int(v)] for v in values], np.uint32).reshape(-1, 1)

    def get_class_indexing(self):
        if self.task not in ("Detection", "Panoptic"):
            raise RuntimeError("get_class_indexing is only supported in Detection and Panoptic task.")
        return {name: [cid] for name, cid in self._categories.items()}

    def _get(self, index):
        path, columns = self._items[index]
        return self._with_meta((_image(path, self.decode),) + tuple(columns), path)


class CelebADataset(_Annotated):
    """CelebA images and their 40 binary attributes; see the module's text. Shuffled by default."""

    _COLUMNS = {"all": ["image", "attr"]}
    _PARTS = {"train": "0", "valid": "1", "test": "2"}

    def __init__(self, dataset_dir, num_parallel_workers=None, shuffle=None, usage="all", sampler=None,
                 decode=False, extensions=None, num_samples=None, num_shards=None, shard_id=None, cache=None,
                 decrypt=None):
        _check_dir(dataset_dir)
        usage = "all" if usage is None else usage
        if usage not in ("all", "train", "valid", "test"):
            raise ValueError("usage should be 'all', 'train', 'valid' or 'test'.")
        attr_file = os.path.join(dataset_dir, "list_attr_celeba.txt")
        _check_file(attr_file)
        super().__init__(num_samples, shuffle, num_shards, shard_id, sampler, decode, False)
        self.dataset_dir, self.usage, self.task = dataset_dir, usage, "all"
        with open(attr_file) as f:
            lines = [line.split() for line in f if line.strip()]
        self.attr_names = lines[1] if len(lines) > 1 else []
        keep = None
        if usage != "all":
            part_file = os.path.join(dataset_dir, "list_eval_partition.txt")
            _check_file(part_file)
            with open(part_file) as f:
                keep = {p[0] for p in (line.split() for line in f) if len(p) == 2 and p[1] == self._PARTS[usage]}
        self._items = []
        for fields in lines[2:]:
            name = fields[0]
            if keep is not None and name not in keep:
                continue
            if extensions is not None and os.path.splitext(name)[1] not in extensions:
                continue
            attrs = np.array([max(int(v), 0) for v in fields[1:]], np.uint32)
            self._items.append((os.path.join(dataset_dir, name), attrs))

    def _get(self, index):
        path, attrs = self._items[index]
        return _image(path, self.decode), attrs.copy()
