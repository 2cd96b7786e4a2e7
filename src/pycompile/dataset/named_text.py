"""MindSpore 2.10's named text datasets, read from their archives' unpacked layouts (no downloads):
AGNews, AmazonReview, DBpedia, SogouNews, YahooAnswers, YelpReview, SST2 (CSV / TSV files),
PennTreebank, WikiText, EnWik9 (lines), UDPOS, CoNLL2000 (tagged sentences), SQuAD (json),
Multi30k (paired lines) and IMDB (one file per review). Rows, dtypes, file orders and argument
errors recorded from the wheel in tests/dataset/named_sources.json.

All but IMDB are MindSpore's non-mappable file readers: the files a usage names are read as
CSVDataset / TextFileDataset read theirs (file_sources._FileRows: one file per worker in turn, rows
taken one from each worker in turn, so the unshuffled order depends on num_parallel_workers, as in
MindSpore), in the file order MindSpore uses: sorted for most, but SogouNews, YelpReview and SQuAD
list train before test / dev. Every column is a string, except SQuAD's answer_start (uint32).
IMDB is mappable (sampler, shuffle, shards): <usage>/pos then <usage>/neg, train before test,
files in sorted path order; text is the file's last non-empty line (MindSpore keeps each line
read over the previous one), label int32 (pos 1, neg 0).
"""
from __future__ import annotations

import csv
import json
import os

import numpy as np

from pycompile.dataset.file_sources import Shuffle, _FileRows
from pycompile.dataset.sources import RandomAccessSource


def check_dir(dataset_dir):
    if not isinstance(dataset_dir, str) or not os.path.isdir(dataset_dir):
        raise ValueError(f"The folder {dataset_dir} does not exist or is not a directory or permission denied!")


def check_usage(usage, valid, default):
    """MindSpore's check_valid_str on `usage` (None means `default`)."""
    if usage is None:
        return default
    if not isinstance(usage, str):
        print_value = '""' if usage == "" else usage
        raise TypeError(f"Argument usage with value {print_value} is not of type [<class 'str'>], but got "
                        f"{type(usage)}.")
    if usage not in valid:
        raise ValueError(f"Input usage is not within the valid set of {list(valid)}.")
    return usage


def _lines(path) -> list:
    """The file's lines as std::getline reads them ('\\n' ends a line; no empty last line)."""
    with open(path, "rb") as f:
        data = f.read().decode("utf-8")
    lines = data.split("\n")
    return lines[:-1] if data.endswith("\n") or not data else lines


class _NamedFiles(_FileRows):
    """A _FileRows over the files `_files(dataset_dir, usage)` lists (in MindSpore's order)."""

    _API = _WHAT = ""
    _USAGES: tuple = ("train", "test", "all")
    _DEFAULT_USAGE = "all"
    _COLUMNS: list = []

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        self.usage = check_usage(usage, self._USAGES, self._DEFAULT_USAGE) if self._USAGES else None
        super().__init__([], num_samples, num_parallel_workers, shuffle, num_shards, shard_id)
        self.dataset_dir = dataset_dir
        self.files = self._files(dataset_dir, self.usage)
        missing = [f for f in self.files if not os.path.isfile(f)]
        if missing or not self.files or not any(self._file_rows(f) for f in self.files):
            raise RuntimeError(f"Invalid data, {self._API} API can't read the data file (interface mismatch or no "
                               f"data found). Check {self._WHAT} file path: {' '.join([''] + self.files)}.")

    def get_col_names(self):
        return list(self._COLUMNS)


# -- CSV sets ------------------------------------------------------------------------------------------
class _CsvSet(_NamedFiles):
    """train.csv / test.csv of quoted fields, no header; `_ORDER` the files usage 'all' reads."""

    _ORDER = ("test", "train")
    _DELIM, _HEADER = ",", False

    def _files(self, dataset_dir, usage):
        names = self._ORDER if usage == "all" else (usage,)
        return [os.path.join(dataset_dir, f"{n}.{'tsv' if self._DELIM == chr(9) else 'csv'}") for n in names]

    def _read(self, path):
        if not os.path.isfile(path):
            return []
        with open(path, newline="", encoding="utf-8") as f:
            records = list(csv.reader(f, delimiter=self._DELIM))
        if self._HEADER:
            records = records[1:]
        columns = self.get_col_names()
        rows = []
        for line, fields in enumerate(records, 1):
            if not fields:              # an empty line is no row (as CSVDataset)
                continue
            fields = self._fields(fields)
            if len(fields) != len(columns):
                raise RuntimeError(f"Invalid file, failed to parse csv file: {path} at line {line}. Error message: "
                                   f"Invalid columns, the size of column_names should be less than the size of "
                                   f"'column_defaults', but got the size of column_names: {len(fields)}, the size "
                                   f"of 'column_defaults': {len(columns)}.")
            rows.append(tuple(np.array(v) for v in fields))
        return rows

    def _fields(self, fields):
        return fields


class AGNewsDataset(_CsvSet):
    """AG News: train.csv / test.csv rows (index, title, description), strings."""
    _API, _WHAT, _COLUMNS = "AGNewsDataset", "ag news", ["index", "title", "description"]


class AmazonReviewDataset(_CsvSet):
    """Amazon Review Polarity / Full: train.csv / test.csv rows (label, title, content), strings."""
    _API, _WHAT, _COLUMNS = "AmazonReviewDataset", "amazon review", ["label", "title", "content"]


class DBpediaDataset(_CsvSet):
    """DBpedia: train.csv / test.csv rows (class, title, content), strings."""
    _API, _WHAT, _COLUMNS = "DBpediaDataset", "dbpedia", ["class", "title", "content"]


class YahooAnswersDataset(_CsvSet):
    """Yahoo! Answers: train.csv / test.csv rows (class, title, content, answer), strings."""
    _API, _WHAT, _COLUMNS = "YahooAnswersDataset", "yahoo answers", ["class", "title", "content", "answer"]


class SogouNewsDataset(_CsvSet):
    """Sogou News: train.csv / test.csv rows (index, title, content), strings; 'all' reads train first."""
    _API, _WHAT, _COLUMNS, _ORDER = "SogouNewsDataset", "sogou news", ["index", "title", "content"], ("train", "test")

    def __init__(self, dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, num_parallel_workers=None, cache=None):
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)


class YelpReviewDataset(_CsvSet):
    """Yelp Review Polarity / Full: train.csv / test.csv rows (label, text), strings; 'all' reads train first."""
    _API, _WHAT, _COLUMNS, _ORDER = "YelpReviewDataset", "yelp review", ["label", "text"], ("train", "test")

    def __init__(self, dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, num_parallel_workers=None, cache=None):
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)


class SST2Dataset(_CsvSet):
    """SST-2: train.tsv / dev.tsv rows (sentence, label) and test.tsv rows (sentence), strings, each
    file's header line skipped (test.tsv's first field, the index, dropped). Default usage 'train'."""
    _API, _WHAT = "SST2Dataset", "sst2"
    _USAGES, _DEFAULT_USAGE, _DELIM, _HEADER = ("train", "test", "dev"), "train", "\t", True

    def get_col_names(self):
        return ["sentence"] if self.usage == "test" else ["sentence", "label"]

    def _fields(self, fields):
        return fields[1:] if self.usage == "test" else fields


# -- line sets -----------------------------------------------------------------------------------------
class _LineSet(_NamedFiles):
    """One string row per line; `_KEEP_EMPTY` keeps empty lines (EnWik9), else they are skipped."""

    _COLUMNS, _KEEP_EMPTY = ["text"], False
    _USAGES = ("train", "valid", "test", "all")
    _PATTERN = ""

    def _files(self, dataset_dir, usage):
        names = ("train", "test", "valid") if usage == "all" else (usage,)
        return sorted(os.path.join(dataset_dir, self._PATTERN.format(n)) for n in names)

    def _read(self, path):
        if not os.path.isfile(path):
            return []
        return [(np.array(line),) for line in _lines(path) if line or self._KEEP_EMPTY]


class PennTreebankDataset(_LineSet):
    """Penn Treebank: ptb.{train,test,valid}.txt, a row per non-empty line (column text)."""
    _API, _WHAT, _PATTERN = "PennTreebankDataset", "penn treebank", "ptb.{}.txt"


class WikiTextDataset(_LineSet):
    """WikiText-2 / -103: wiki.{train,test,valid}.tokens, a row per non-empty line (column text)."""
    _API, _WHAT, _PATTERN = "WikiTextDataset", "wikitext", "wiki.{}.tokens"


class EnWik9Dataset(_LineSet):
    """EnWik9: the file `enwik9`, a row per line, empty lines included (column text). Shuffled by
    default (shuffle=True: Shuffle.GLOBAL)."""
    _API, _WHAT, _KEEP_EMPTY, _USAGES = "EnWik9Dataset", "enwik9", True, ()

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=True, num_shards=None,
                 shard_id=None, cache=None):
        super().__init__(dataset_dir, None, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)

    def _files(self, dataset_dir, usage):
        return [os.path.join(dataset_dir, "enwik9")]


# -- tagged sentences ------------------------------------------------------------------------------------
class _TaggedSet(_NamedFiles):
    """A row per sentence: its tokens' fields as three 1-D string columns. A line (spaces stripped
    at both ends) splits at `_SEP`; an empty one ends the sentence. As in MindSpore, a file's last
    sentence is a row only when a blank line follows it."""

    _SEP = "\t"

    def _read(self, path):
        if not os.path.isfile(path):
            return []
        rows, fields = [], []
        for number, line in enumerate(_lines(path), 1):
            line = line.strip(" ")
            if not line:
                if fields:
                    rows.append(tuple(np.array(col) for col in zip(*fields)))
                fields = []
                continue
            parts = [p for p in line.split(self._SEP)]
            if len(parts) < 3:
                raise RuntimeError(f"Invalid data, {self._API} file {path} line {number} has {len(parts)} fields, "
                                   f"3 expected.")
            fields.append(parts[:3])
        return rows


class UDPOSDataset(_TaggedSet):
    """UDPOS: en-ud-tag.v2.{train,test,dev}.txt (usage 'valid' reads dev), tab-separated token
    lines; rows (word, universal, stanford)."""
    _API, _WHAT, _COLUMNS = "UDPOSDataset", "udpos", ["word", "universal", "stanford"]
    _USAGES = ("train", "valid", "test", "all")

    def __init__(self, dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, num_parallel_workers=None, cache=None):
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)

    def _files(self, dataset_dir, usage):
        names = ("train", "test", "dev") if usage == "all" else ({"valid": "dev"}.get(usage, usage),)
        return sorted(os.path.join(dataset_dir, f"en-ud-tag.v2.{n}.txt") for n in names)


class CoNLL2000Dataset(_TaggedSet):
    """CoNLL-2000 chunking: train.txt / test.txt, space-separated token lines; rows (word, pos_tag,
    chunk_tag)."""
    _API, _WHAT, _COLUMNS, _SEP = "CoNLL2000Dataset", "conll2000", ["word", "pos_tag", "chunk_tag"], " "

    def __init__(self, dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, num_parallel_workers=None, cache=None):
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)

    def _files(self, dataset_dir, usage):
        names = ("train", "test") if usage == "all" else (usage,)
        return sorted(os.path.join(dataset_dir, f"{n}.txt") for n in names)


# -- SQuAD ---------------------------------------------------------------------------------------------
class SQuADDataset(_NamedFiles):
    """SQuAD 1.1 / 2.0: train-v1.1.json and / or train-v2.0.json, then dev-*.json; a row per
    question: context, question (strings), text (its answers, 1-D strings) and answer_start (1-D
    uint32); a question without answers gives text [''] and answer_start [2**32 - 1] (MindSpore's -1)."""
    _API, _WHAT = "SQuADDataset", "squad"
    _COLUMNS, _USAGES = ["context", "question", "text", "answer_start"], ("train", "dev", "all")

    def _files(self, dataset_dir, usage):
        files = []
        for part in (("train", "dev") if usage == "all" else (usage,)):
            found = [os.path.join(dataset_dir, f"{part}-v{v}.json") for v in ("1.1", "2.0")]
            found = [f for f in found if os.path.isfile(f)]
            if not found:
                raise RuntimeError(f"Invalid path, failed to find SQuAD {part} data file: {dataset_dir}")
            files += found
        return files

    def _read(self, path):
        try:
            with open(path, encoding="utf-8") as f:
                root = json.load(f)
        except ValueError:
            raise RuntimeError(f"Invalid file, failed to parse JSON file: {path}") from None
        rows = []
        for data in _node(root, "data"):
            for paragraph in _node(data, "paragraphs"):
                context = _node(paragraph, "context")
                for qa in _node(paragraph, "qas"):
                    answers = _node(qa, "answers")
                    text = [_node(a, "text") for a in answers] or [""]
                    start = [_node(a, "answer_start") for a in answers] or [-1]
                    rows.append((np.array(context), np.array(_node(qa, "question")), np.array(text),
                                 np.array(start, dtype=np.int64).astype(np.uint32)))
        return rows


def _node(tree, name):
    if not isinstance(tree, dict) or name not in tree:
        raise RuntimeError(f"Invalid data, required node not found in JSON: {name}")
    return tree[name]


# -- Multi30k --------------------------------------------------------------------------------------------
class Multi30kDataset(_NamedFiles):
    """Multi30k: training/train.{en,de}, validation/val.*, mmt16_task1_test/test.* (sorted), lines
    paired; rows (text, translation) in `language_pair` order (default ['en', 'de']). A pair of
    empty lines is skipped; reading stops at the shorter file's end."""
    _API, _WHAT, _COLUMNS = "Multi30kDataset", "multi30k", ["text", "translation"]
    _USAGES = ("train", "test", "valid", "all")
    _STEMS = {"train": "training/train", "test": "mmt16_task1_test/test", "valid": "validation/val"}

    def __init__(self, dataset_dir, usage=None, language_pair=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        if language_pair is not None:
            if not isinstance(language_pair, (list, tuple)):
                raise TypeError(f"Argument language_pair with value {language_pair} is not of type "
                                f"[<class 'list'>, <class 'tuple'>], but got {type(language_pair)}.")
            if len(language_pair) != 2:
                raise ValueError(f"language_pair should be a list or tuple of length 2, but got {len(language_pair)}")
            if list(language_pair) not in (["en", "de"], ["de", "en"]):
                raise ValueError(f"language_pair can only be ['en', 'de'] or ['en', 'de'], but got {language_pair}")
        self.language_pair = list(language_pair or ["en", "de"])
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers,
                         Shuffle.GLOBAL if shuffle is None else shuffle, num_shards, shard_id)

    def _files(self, dataset_dir, usage):
        names = ("train", "test", "valid") if usage == "all" else (usage,)
        return sorted(os.path.join(dataset_dir, self._STEMS[n] + ".en") for n in names)

    def _read(self, path_en):
        base = os.path.basename(path_en)
        path_de = os.path.join(os.path.dirname(path_en), base[:base.index(".")] + ".de" + base[base.index(".") + 3:])
        for p in (path_en, path_de):
            if not os.path.isfile(p):
                raise RuntimeError(f"Invalid file path, {self._API} Dataset file: {p} does not exist.")
        rows = []
        for en, de in zip(_lines(path_en), _lines(path_de)):
            if en or de:
                pair = (en, de) if self.language_pair[0] == "en" else (de, en)
                rows.append((np.array(pair[0]), np.array(pair[1])))
        return rows


# -- IMDB (mappable) -------------------------------------------------------------------------------------
class _ItemRows(RandomAccessSource):
    """A source over `self._items` (filled by the subclass from its folder), read by index: row k
    is `_row(self._items[k])`, its columns `_COLUMNS` (the audio and image sets' base)."""

    _COLUMNS: list = []

    def __init__(self, dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler):
        check_dir(dataset_dir)
        super().__init__(num_samples, shuffle, num_shards, shard_id, sampler)
        self.dataset_dir = dataset_dir
        self._items = []

    def get_col_names(self):
        return list(self._COLUMNS)

    def _length(self):
        return len(self._items)

    def _get(self, index):
        return self._row(self._items[index])


class IMDBDataset(RandomAccessSource):
    """IMDb reviews: <usage>/pos/*.txt (label 1) and <usage>/neg/*.txt (label 0); see the module's text."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        self.usage = check_usage(usage, ("train", "test", "all"), "all")
        super().__init__(num_samples, shuffle, num_shards, shard_id, sampler)
        self.dataset_dir = dataset_dir
        self._items = []
        for part in (("train", "test") if self.usage == "all" else (self.usage,)):
            for label, kind in ((1, "pos"), (0, "neg")):
                folder = os.path.join(dataset_dir, part, kind)
                if not os.path.isdir(folder):
                    raise RuntimeError(f"Invalid parameter, dataset dir may not exist or is not a directory: {folder}")
                self._items += [(p, label) for p in sorted(os.path.join(folder, n) for n in os.listdir(folder))]
        if not self._items:
            raise RuntimeError("Invalid data, IMDBDataset API can't read the data file (interface mismatch or no data "
                               f"found). Check imdb file path: {dataset_dir}")

    def get_col_names(self):
        return ["text", "label"]

    def _length(self):
        return len(self._items)

    def _class_labels(self, column):
        if column != "label":
            raise RuntimeError(f"Invalid data, PKSampler's class_column '{column}' is not a column of IMDBDataset: "
                               "['text', 'label']")
        return [label for _, label in self._items]

    def _get(self, index):
        path, label = self._items[index]
        try:
            text = [line for line in _lines(path) if line]
        except OSError as e:
            raise RuntimeError(f"Invalid file, failed to open file: {path}: {e}") from None
        return np.array(text[-1] if text else ""), np.array(label, dtype=np.int32)
