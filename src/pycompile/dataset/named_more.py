"""More of MindSpore 2.10's named datasets, read from their unpacked layouts (no downloads): CLUE
(json lines, a task's keys as columns) and Manifest (a ModelArts manifest of image files and their
class names). Rows, dtypes, orders and argument errors recorded from the wheel in
tests/dataset/named_sources.json.

CLUE is one of MindSpore's non-mappable file readers (file_sources._FileRows: one file per worker
in turn, so its unshuffled order depends on num_parallel_workers); its columns come in sorted name
order (MindSpore keeps them in a std::map), each typed by its json value: a string is a string, a
non-negative integer uint32 (wrapped), a negative one int32, a float float32, a list of strings a
1-D string tensor. Manifest is mappable (sampler, shuffle, shards).
"""
from __future__ import annotations

import json
import os

import numpy as np

from pycompile.dataset.file_sources import Shuffle, _FileRows
from pycompile.dataset.named_images import _check_str, _ImageItems, _image, read_mat
from pycompile.dataset.named_text import _NamedFiles, _lines, check_dir, check_usage

# -- CLUE ----------------------------------------------------------------------------------------------
# task -> usage -> its keys (WSC's span keys are read inside the record's "target")
_CLUE_KEYS = {
    "AFQMC": {"train": ("sentence1", "sentence2", "label"), "test": ("id", "sentence1", "sentence2"),
              "eval": ("sentence1", "sentence2", "label")},
    "TNEWS": {"train": ("label", "label_desc", "sentence", "keywords"), "test": ("id", "sentence", "keywords"),
              "eval": ("label", "label_desc", "sentence", "keywords")},
    "IFLYTEK": {"train": ("label", "label_des", "sentence"), "test": ("id", "sentence"),
                "eval": ("label", "label_des", "sentence")},
    "CMNLI": {"train": ("sentence1", "sentence2", "label"), "test": ("id", "sentence1", "sentence2"),
              "eval": ("sentence1", "sentence2", "label")},
    "WSC": {"train": ("span1_index", "span2_index", "span1_text", "span2_text", "idx", "text", "label"),
            "test": ("span1_index", "span2_index", "span1_text", "span2_text", "idx", "text"),
            "eval": ("span1_index", "span2_index", "span1_text", "span2_text", "idx", "text", "label")},
    "CSL": {"train": ("id", "abst", "keyword", "label"), "test": ("id", "abst", "keyword"),
            "eval": ("id", "abst", "keyword", "label")},
}


def _clue_value(value):
    """A json value as MindSpore's CLUE reader types it (see the module's text)."""
    if isinstance(value, bool) or value is None:
        raise RuntimeError(f"Invalid json file, the value {json.dumps(value)} has no CLUE column type.")
    if isinstance(value, str):
        return np.array(value)
    if isinstance(value, int):
        return np.array(value % 2**32, np.uint32) if value >= 0 else np.array(value, np.int32)
    if isinstance(value, float):
        return np.array(value, np.float32)
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            raise RuntimeError("[json.exception.type_error.302] type must be string, but is number")
        return np.array(value, dtype=str) if value else np.array([], dtype="<U1")
    raise RuntimeError(f"Invalid json file, the value {json.dumps(value)} has no CLUE column type.")


class CLUEDataset(_FileRows):
    """CLUE (Chinese Language Understanding Evaluation): json-lines files of one task
    (AFQMC, TNEWS, IFLYTEK, CMNLI, WSC, CSL) and usage (train, test, eval); a row per non-empty
    line, its task's keys as columns in sorted name order. Shuffled by default (Shuffle.GLOBAL)."""

    def __init__(self, dataset_files, task="AFQMC", usage="train", num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        if not isinstance(dataset_files, (str, list)):
            raise TypeError(f"Argument dataset files with value {dataset_files} is not of type [<class 'str'>, "
                            f"<class 'list'>], but got {type(dataset_files)}.")
        if not dataset_files:
            raise ValueError(f"Input dataset_files can not be empty, but got '{dataset_files}'.")
        if task not in _CLUE_KEYS:
            raise ValueError("task should be 'AFQMC', 'TNEWS', 'IFLYTEK', 'CMNLI', 'WSC' or 'CSL'.")
        if usage not in ("train", "test", "eval"):
            raise ValueError("usage should be 'train', 'test' or 'eval'.")
        self.task, self.usage = task, usage
        super().__init__(dataset_files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)

    def get_col_names(self):
        return sorted(_CLUE_KEYS[self.task][self.usage])

    def _read(self, path):
        keys = self.get_col_names()
        rows = []
        for line in _lines(path):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as e:
                raise RuntimeError(f"Invalid json, failed to parse {path}, {e}") from None
            row = []
            for key in keys:
                holder = record.get("target", {}) if self.task == "WSC" and key.startswith("span") else record
                if not isinstance(holder, dict) or key not in holder:
                    raise RuntimeError(f"Invalid json file, in given JSON file, failed to find key: {key}")
                row.append(_clue_value(holder[key]))
            rows.append(tuple(row))
        return rows


# -- Manifest --------------------------------------------------------------------------------------------
_IMAGE_MAGIC = (b"\xff\xd8\xff", b"\x89PNG", b"BM", b"GIF8")


def _is_image(path):
    with open(path, "rb") as f:
        head = f.read(4)
    return head.startswith(_IMAGE_MAGIC)


class ManifestDataset(_ImageItems):
    """A ModelArts manifest: json lines {"source": image path, "usage": ..., "annotation": [{"name":
    class}, ...]}; the lines whose usage (any case) is `usage` ('train', 'eval', 'inference'), with
    at least one annotation and a JPEG / PNG / BMP / GIF file (by its first bytes; other files are
    skipped). Classes: `class_indexing`, else the names used numbered in sorted order. Rows image
    (the file's bytes, or decoded), label (int32: a scalar for one annotation, else 1-D in its
    annotations' order)."""

    _COLUMNS = ["image", "label"]

    def __init__(self, dataset_file, usage="train", num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None):
        if not isinstance(dataset_file, str):
            raise TypeError(f"Argument dataset_file with value {dataset_file} is not of type [<class 'str'>], but "
                            f"got {type(dataset_file)}.")
        real = os.path.realpath(dataset_file)
        if not os.path.isfile(real) or not os.access(real, os.R_OK):
            raise ValueError(f"The file {real} does not exist or permission denied!")
        for value, name, kind in ((usage, "usage", str), (class_indexing, "class_indexing", dict),
                                  (decode, "decode", bool)):
            if value is not None and not isinstance(value, kind):
                raise TypeError(f"Argument {name} with value {value} is not of type [{kind}], but got {type(value)}.")
        self.usage = usage if usage is not None else "train"
        if self.usage not in ("train", "eval", "inference"):
            raise RuntimeError(f"ManifestDataset: {self.usage} does not match any mode in [ inference eval train ]")
        super().__init__(os.path.dirname(real), num_samples, shuffle, num_shards, shard_id, sampler, decode)
        self.dataset_file, self.class_indexing = dataset_file, dict(class_indexing or {})
        records = []
        for number, line in enumerate(_lines(dataset_file), 1):
            if not line.strip():
                continue
            record = json.loads(line)
            for key in ("source", "usage", "annotation"):
                if key not in record:
                    raise RuntimeError(f"Invalid manifest file, '{key}' is missing in file: {dataset_file} at line "
                                       f"{number}")
            if str(record["usage"]).lower() != self.usage:
                continue
            names = [a["name"] for a in record["annotation"] if isinstance(a, dict) and "name" in a]
            if self.class_indexing:
                names = [n for n in names if n in self.class_indexing]
            if not names:
                continue
            if not os.path.isfile(record["source"]):
                raise RuntimeError(f"Invalid file path, {record['source']} does not exist.")
            if _is_image(record["source"]):
                records.append((record["source"], names))
        self._classes = self.class_indexing or {n: i for i, n in enumerate(sorted({n for _, ns in records
                                                                                    for n in ns}))}
        self._items = [(path, [self._classes[n] for n in names]) for path, names in records]
        if not self._items:
            raise RuntimeError("Invalid data, ManifestDataset API can't read the data file (interface mismatch or no "
                               f"data found). Check file path: {dataset_file}")

    def get_class_indexing(self):
        return dict(self._classes)

    def _class_labels(self, column):
        return [labels[0] for _, labels in self._items]

    def _row(self, item):
        path, labels = item
        label = np.array(labels[0] if len(labels) == 1 else labels, np.int32)
        return _image(path, self.decode), label


# -- IWSLT 2016 / 2017 -----------------------------------------------------------------------------------
_TAGS = ("<url", "<keywords", "<talkid", "<description", "<reviewer", "<translator", "<title", "<speaker", "<doc",
         "</doc")


def _check_language_pair(value, valid):
    """MindSpore's language_pair check: a list among `valid` as lists, a tuple among them as tuples."""
    if not isinstance(value, (list, tuple)):
        raise TypeError("language_pair should be a type list or tuple of length 2.")
    for k, v in enumerate(value):
        if not isinstance(v, str):
            raise TypeError(f"Argument language_pair[{k}] with value {v} is not of type [<class 'str'>], but got "
                            f"{type(v)}.")
    if len(value) != 2:
        raise ValueError("Input language_pair is a list or tuple of length 2.")
    allowed = [list(p) for p in valid] if isinstance(value, list) else tuple(tuple(p) for p in valid)
    if value not in allowed:
        raise ValueError(f"Input language_pair{value} is not within the valid set of {allowed}.")


class _IWSLT(_NamedFiles):
    """Pairs of lines in the language pair's folder: train.tags.<src>-<tgt>.<lang> (the lines with
    none of TED's metadata tags, spaces stripped at both ends; an empty one is an error), then the
    valid and test sets' <seg> texts of IWSLT<yy>.TED.<set>.<src>-<tgt>.<lang>.xml. Rows (text,
    translation): the source language's line, the target's. Files read train, valid, test."""

    _COLUMNS, _USAGES = ["text", "translation"], ("train", "test", "valid", "all")
    _PAIRS: tuple = ()
    _YEAR = ""
    # each year's class gives `_folder(dataset_dir, src, tgt)`: the language pair's folder

    def _init(self, dataset_dir, usage, language_pair, sets, num_samples, shuffle, num_shards, shard_id,
              num_parallel_workers):
        check_dir(dataset_dir)
        if usage is not None:
            check_usage(usage, self._USAGES, "all")
        if language_pair is not None:
            _check_language_pair(language_pair, self._PAIRS)
        self.language_pair = list(language_pair or ["de", "en"])
        self._sets = sets
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)

    def _files(self, dataset_dir, usage):
        src, tgt = self.language_pair
        folder = self._folder(dataset_dir, src, tgt)
        files = []
        for part in (("train", "valid", "test") if usage == "all" else (usage,)):
            if part == "train":
                files.append(os.path.join(folder, f"train.tags.{src}-{tgt}.{src}"))
                continue
            path = os.path.join(folder, f"IWSLT{self._YEAR}.TED.{self._sets[part]}.{src}-{tgt}.{src}.xml")
            for p in (path, path[:-len(f"{src}.xml")] + f"{tgt}.xml"):
                if not os.path.isfile(p):
                    raise RuntimeError(f"Invalid file, failed to load xml file: {p}")
            files.append(path)
        return files

    def _read(self, path):
        src, tgt = self.language_pair
        other = path[:path.rindex("." + src)] + "." + tgt + (".xml" if path.endswith(".xml") else "")
        if path.endswith(".xml"):
            return [(np.array(a), np.array(b)) for a, b in zip(_segs(path), _segs(other))]
        rows = []
        for a, b in zip(_text_lines(path), _text_lines(other)):
            a, b = a.strip(" "), b.strip(" ")
            if not a or not b:
                raise RuntimeError("Invalid file, read an empty line.")
            rows.append((np.array(a), np.array(b)))
        return rows


def _text_lines(path):
    return [line for line in _lines(path) if not any(tag in line for tag in _TAGS)]


def _segs(path):
    import xml.etree.ElementTree as ET
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError:
        raise RuntimeError(f"Invalid file, failed to load xml file: {path}") from None
    return [(seg.text or "").strip() for seg in root.iter("seg")]


class IWSLT2016Dataset(_IWSLT):
    """IWSLT 2016 TED talks: texts/<src>/<tgt>/<src>-<tgt>/ (see _IWSLT); valid_set (default
    tst2013) and test_set (default tst2014) name the xml sets read."""

    _PAIRS = (("en", "ar"), ("en", "ar"), ("en", "de"), ("en", "fr"), ("en", "cs"), ("ar", "en"), ("fr", "en"),
              ("de", "en"), ("cs", "en"))
    _API, _WHAT, _YEAR = "IWSLT2016Dataset", "iwslt2016", "16"

    def __init__(self, dataset_dir, usage=None, language_pair=None, valid_set=None, test_set=None,
                 num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, num_parallel_workers=None,
                 cache=None):
        check_dir(dataset_dir)
        if usage is not None:
            check_usage(usage, self._USAGES, "all")
        if language_pair is not None:
            _check_language_pair(language_pair, self._PAIRS)
        sets = ("dev2010", "tst2010", "tst2011", "tst2012", "tst2013", "tst2014")
        for value, name in ((valid_set, "valid_set"), (test_set, "test_set")):
            if value is not None:
                _check_set(value, name, sets)
        self._init(dataset_dir, usage, language_pair, {"valid": valid_set or "tst2013", "test": test_set or "tst2014"},
                   num_samples, shuffle, num_shards, shard_id, num_parallel_workers)

    def _folder(self, dataset_dir, src, tgt):
        return os.path.join(dataset_dir, "texts", src, tgt, f"{src}-{tgt}")


def _check_set(value, name, valid):
    if not isinstance(value, str):
        raise TypeError(f"Argument {name} with value {value} is not of type [<class 'str'>], but got {type(value)}.")
    if value not in valid:
        raise ValueError(f"Input {name} is not within the valid set of {list(valid)}.")


class IWSLT2017Dataset(_IWSLT):
    """IWSLT 2017 TED talks (multilingual): texts/DeEnItNlRo/DeEnItNlRo/DeEnItNlRo-DeEnItNlRo/
    (see _IWSLT); the valid set is dev2010, the test set tst2010."""

    _PAIRS = (("en", "nl"), ("en", "de"), ("en", "it"), ("en", "ro"), ("ro", "de"), ("ro", "en"), ("ro", "nl"),
              ("ro", "it"), ("de", "ro"), ("de", "en"), ("de", "nl"), ("de", "it"), ("it", "en"), ("it", "nl"),
              ("it", "de"), ("it", "ro"), ("nl", "de"), ("nl", "en"), ("nl", "it"), ("nl", "ro"))
    _API, _WHAT, _YEAR = "IWSLT2017Dataset", "iwslt2017", "17"

    def __init__(self, dataset_dir, usage=None, language_pair=None, num_samples=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, num_parallel_workers=None, cache=None):
        self._init(dataset_dir, usage, language_pair, {"valid": "dev2010", "test": "tst2010"}, num_samples, shuffle,
                   num_shards, shard_id, num_parallel_workers)

    def _folder(self, dataset_dir, src, tgt):
        return os.path.join(dataset_dir, "texts", "DeEnItNlRo", "DeEnItNlRo", "DeEnItNlRo-DeEnItNlRo")


# -- Flowers102 / SVHN (MATLAB 5 MAT-files) ----------------------------------------------------------------
def _check_file(path):
    real = os.path.realpath(path)
    if not os.path.isfile(real) or not os.access(real, os.R_OK):
        raise ValueError(f"The file {real} does not exist or permission denied!")


# The 102 flower names, by label (the Oxford list MindSpore's get_class_indexing numbers)
_FLOWER_NAMES = (
    "pink primrose", "hard-leaved pocket orchid", "canterbury bells", "sweet pea", "english marigold", "tiger lily",
    "moon orchid", "bird of paradise", "monkshood", "globe thistle", "snapdragon", "colt's foot", "king protea",
    "spear thistle", "yellow iris", "globe-flower", "purple coneflower", "peruvian lily", "balloon flower",
    "giant white arum lily", "fire lily", "pincushion flower", "fritillary", "red ginger", "grape hyacinth",
    "corn poppy", "prince of wales feathers", "stemless gentian", "artichoke", "sweet william", "carnation",
    "garden phlox", "love in the mist", "mexican aster", "alpine sea holly", "ruby-lipped cattleya", "cape flower",
    "great masterwort", "siam tulip", "lenten rose", "barbeton daisy", "daffodil", "sword lily", "poinsettia",
    "bolero deep blue", "wallflower", "marigold", "buttercup", "oxeye daisy", "common dandelion", "petunia",
    "wild pansy", "primula", "sunflower", "pelargonium", "bishop of llandaff", "gaura", "geranium", "orange dahlia",
    "pink-yellow dahlia?", "cautleya spicata", "japanese anemone", "black-eyed susan", "silverbush",
    "californian poppy", "osteospermum", "spring crocus", "bearded iris", "windflower", "tree poppy", "gazania",
    "azalea", "water lily", "rose", "thorn apple", "morning glory", "passion flower", "lotus", "toad lily",
    "anthurium", "frangipani", "clematis", "hibiscus", "columbine", "desert-rose", "tree mallow", "magnolia",
    "cyclamen", "watercress", "canna lily", "hippeastrum", "bee balm", "ball moss", "foxglove", "bougainvillea",
    "camellia", "mallow", "mexican petunia", "bromelia", "blanket flower", "trumpet creeper", "blackberry lily")


class Flowers102Dataset(_ImageItems):
    """Oxford 102 Flowers: jpg/image_<nnnnn>.jpg, imagelabels.mat (labels: 1-102 per image) and
    setid.mat (trnid, valid, tstid: the 1-based image numbers of each split; 'all' reads train,
    test, valid). task 'Classification': rows image, label (uint32, the label minus one);
    'Segmentation': image, segmentation (segmim/segmim_<nnnnn>.jpg), label."""

    def __init__(self, dataset_dir, task="Classification", usage="all", num_samples=None, num_parallel_workers=1,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None):
        check_dir(dataset_dir)
        check_dir(os.path.join(dataset_dir, "jpg"))
        _check_file(os.path.join(dataset_dir, "imagelabels.mat"))
        _check_file(os.path.join(dataset_dir, "setid.mat"))
        if usage is not None:
            _check_str(usage, "usage", ("train", "valid", "test", "all"))
        if task is not None:
            _check_str(task, "task", ("Classification", "Segmentation"))
        if task == "Segmentation":
            check_dir(os.path.join(dataset_dir, "segmim"))
        self.task, self.usage = task or "Classification", usage or "all"
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        self.dataset_dir = os.path.realpath(dataset_dir)
        labels = read_mat(os.path.join(dataset_dir, "imagelabels.mat"))["labels"][0]
        self._labels = (labels - 1).astype(np.uint32)
        setid = read_mat(os.path.join(dataset_dir, "setid.mat"))
        keys = {"train": ("trnid",), "test": ("tstid",), "valid": ("valid",),
                "all": ("trnid", "tstid", "valid")}[self.usage]
        self._items = [int(i) for key in keys for i in setid[key][0].tolist()]

    def get_col_names(self):
        return ["image", "label"] if self.task == "Classification" else ["image", "segmentation", "label"]

    def get_class_indexing(self):
        return {name: i for i, name in enumerate(_FLOWER_NAMES)}

    def _class_labels(self, column):
        return [int(self._labels[i - 1]) for i in self._items]

    def _row(self, number):
        image = os.path.join(self.dataset_dir, "jpg", f"image_{number:05d}.jpg")
        if not os.path.exists(image):
            raise RuntimeError("Can not find image file: " + image)
        label = np.array(self._labels[number - 1], np.uint32)
        if self.task == "Classification":
            return _image(image, self.decode), label
        segmentation = os.path.join(self.dataset_dir, "segmim", f"segmim_{number:05d}.jpg")
        if not os.path.exists(segmentation):
            raise RuntimeError("Can not find segmentation file: " + segmentation)
        return _image(image, self.decode), _image(segmentation, self.decode), label


class SVHNDataset(_ImageItems):
    """SVHN: <usage>_32x32.mat for train, test, extra ('all' reads them in that order): X, the
    images (32 x 32 x 3 x n, uint8) and y, their digits (10 for a 0). Rows image (uint8 32x32x3),
    label (uint32, 10 read as 0)."""

    _COLUMNS = ["image", "label"]

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=1, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None):
        check_dir(dataset_dir)
        if usage is not None:
            _check_str(usage, "usage", ("train", "test", "extra", "all"))
            for part in (("train", "test", "extra") if usage == "all" else (usage,)):
                _check_file(os.path.join(dataset_dir, part + "_32x32.mat"))
        self.usage = usage or "all"
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler)
        images, labels = [], []
        for part in (("train", "test", "extra") if self.usage == "all" else (self.usage,)):
            path = os.path.join(dataset_dir, part + "_32x32.mat")
            if not os.path.isfile(path):
                raise FileNotFoundError(f"[Errno 2] No such file or directory: '{os.path.realpath(path)}'")
            mat = read_mat(path)
            images.append(np.transpose(mat["X"], (3, 0, 1, 2)))
            label = mat["y"].astype(np.uint32).reshape(-1)
            labels.append(np.where(label == 10, 0, label).astype(np.uint32))
        self._images, self._labels = np.concatenate(images), np.concatenate(labels)
        self._items = list(range(len(self._images)))

    def _class_labels(self, column):
        return self._labels.tolist()

    def _row(self, index):
        return np.ascontiguousarray(self._images[index]), np.array(self._labels[index], np.uint32)


# -- SBD ---------------------------------------------------------------------------------------------------
class SBDataset(_ImageItems):
    """Semantic Boundaries Dataset: the names listed in <usage>.txt ('all': train.txt then
    val.txt), images img/<name>.jpg, targets the struct GTcls of cls/<name>.mat. Rows image, task:
    for task 'Boundaries' the 20 class boundary maps stacked (20 x H x W, the sparse matrices'
    stored dtype), for 'Segmentation' the H x W class map."""

    _COLUMNS = ["image", "task"]

    def __init__(self, dataset_dir, task="Boundaries", usage="all", num_samples=None, num_parallel_workers=1,
                 shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None):
        check_dir(dataset_dir)
        if usage is not None:
            _check_str(usage, "usage", ("train", "val", "train_noval", "all"))
        if task is not None:
            _check_str(task, "task", ("Boundaries", "Segmentation"))
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler, decode)
        self.task = task
        names = []
        for part in (("train", "val") if usage == "all" else (usage,)):
            listing = os.path.join(dataset_dir, part + ".txt")
            if not os.path.exists(listing):
                raise FileNotFoundError(f"SBDataset: {listing} not found")
            with open(listing, encoding="utf-8") as f:
                names += [line.strip() for line in f.readlines()]
        self._items = names

    def _row(self, name):
        image = _image(os.path.join(self.dataset_dir, "img", name + ".jpg"), self.decode)
        gt = read_mat(os.path.join(self.dataset_dir, "cls", name + ".mat"))["GTcls"][0, 0]
        if self.task == "Boundaries":
            return image, np.stack([gt["Boundaries"][i, 0] for i in range(20)])
        return image, np.asarray(gt["Segmentation"])


__all__ = ["CLUEDataset", "ManifestDataset", "IWSLT2016Dataset", "IWSLT2017Dataset",
           "Flowers102Dataset", "SVHNDataset", "SBDataset"]
