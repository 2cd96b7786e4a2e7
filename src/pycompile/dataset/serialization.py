"""serialize / deserialize / show / compare: a pipeline as MindSpore 2.10's JSON dict and back.

The dict is the one the wheel writes (tests/dataset/serialization_records.json): every node has
`op_type` and `children`; sources and the operations that run workers add `num_parallel_workers`
and `connector_queue_size` (the prefetch size); mappable sources add their `sampler`. Keys are
written sorted and compact, as MindSpore's C++ JSON library does. NumpySlicesDataset and
GeneratorDataset are written as an empty `GeneratorDataset` (their data and Python callables cannot
be held), and reading one back fails as in MindSpore. Fields that name the machine: the default
`num_parallel_workers` (min(8, CPUs)) and the realpath'd `dataset_dir` / `dataset_files`.

Where pycompile can not yet write a node or a transform, serialize raises TypeError naming it
(rather than writing a dict MindSpore would not read). The transforms are those of _ops.py.
"""
from __future__ import annotations

import json
import logging
import os

from pycompile.dataset import config, samplers
from pycompile.dataset.cache import DatasetCache
from pycompile.dataset.combine import ConcatDataset, ZipDataset
from pycompile.dataset.datasets import (BatchDataset, Dataset, MapDataset, PerBatchMapDataset, ProjectDataset,
                                        RenameDataset, RepeatDataset, ShuffleDataset, SkipDataset, TakeDataset)
from pycompile.dataset.file_sources import CSVDataset, ImageFolderDataset, Shuffle, TextFileDataset
from pycompile.dataset.mind_dataset import MindDataset
from pycompile.dataset.serialization_ops import op_from_json, ops_to_json
from pycompile.dataset.sources import GeneratorDataset, NumpySlicesDataset, RandomAccessSource
from pycompile.dataset.vision_sources import Cifar10Dataset, Cifar100Dataset, MnistDataset

_LOG = logging.getLogger("pycompile.dataset")

# MindSpore's ShuffleMode codes for the file sources' `shuffle`
_SHUFFLE_CODE = {False: 0, Shuffle.FILES: 1, Shuffle.GLOBAL: 2, Shuffle.INFILE: 3}
_SHUFFLE_OF = {v: k for k, v in _SHUFFLE_CODE.items()}


def _fail(message: str) -> RuntimeError:
    """MindSpore's dataset errors carry their detail in one line; pycompile's carry only that."""
    return RuntimeError(message)


# ---- writing ----------------------------------------------------------------------------------------------
def _sampler_json(s) -> dict:
    if not isinstance(s, samplers.BuiltinSampler):
        raise TypeError(f"serialize: pycompile cannot write a user-defined sampler ({type(s).__name__}) yet.")
    n = s.num_samples or 0
    if isinstance(s, samplers.SequentialSampler):
        out = {"num_samples": n, "sampler_name": "SequentialSampler", "start_index": s.start_index}
    elif isinstance(s, samplers.SubsetSampler):      # SubsetRandomSampler too
        out = {"indices": list(s.indices_list), "num_samples": n, "sampler_name": type(s).__name__}
    elif isinstance(s, samplers.RandomSampler):
        out = {"num_samples": n, "replacement": bool(s.replacement), "reshuffle_each_epoch": True,
               "sampler_name": "RandomSampler", "shuffle_mode": 2}
    elif isinstance(s, samplers.WeightedRandomSampler):
        out = {"num_samples": n, "replacement": bool(s.replacement), "sampler_name": "WeightedRandomSampler",
               "weights": [float(w) for w in s.weights]}
    elif isinstance(s, samplers.PKSampler):
        out = {"num_samples": n, "num_val": s.num_val, "sampler_name": "PKSampler", "shuffle": bool(s.shuffle)}
    elif isinstance(s, samplers.DistributedSampler):
        # MindSpore writes the seed its shuffle uses: the pipeline seed + 1 (samplers.py draws the same)
        out = {"even_dist": True, "num_samples": n, "num_shards": s.num_shards, "offset": s.offset,
               "sampler_name": "DistributedSampler", "seed": config.get_seed() + 1, "shard_id": s.shard_id,
               "shuffle_mode": 2 if s.shuffle else 0}
    else:
        raise TypeError(f"serialize: pycompile cannot write a {type(s).__name__} yet.")
    if s.child_sampler is not None:
        out["child_sampler"] = [_sampler_json(s.child_sampler)]
    return out


def _workers(given):
    return config.get_num_parallel_workers() if given is None else given


def _source_json(node) -> dict:
    base = {"children": [], "connector_queue_size": config.get_prefetch_size()}
    if isinstance(node, (GeneratorDataset, NumpySlicesDataset)):
        return {**base, "num_parallel_workers": getattr(node, "workers", 1), "op_type": "GeneratorDataset"}
    if isinstance(node, MindDataset):                 # MindSpore writes no more of it (and cannot read it back)
        return {**base, "num_parallel_workers": config.get_num_parallel_workers(), "op_type": "MindDataDataset"}
    if isinstance(node, (TextFileDataset, CSVDataset)):
        out = {**base, "dataset_files": [os.path.realpath(f) for f in node.files],
               "num_parallel_workers": node.workers, "num_samples": node.num_samples or 0,
               "num_shards": node.num_shards or 1, "op_type": type(node).__name__, "shard_id": node.shard_id or 0,
               "shuffle": _SHUFFLE_CODE[node.shuffle_mode]}
        if isinstance(node, CSVDataset):
            out.update(column_names=[] if node._header else list(node.column_names), field_delim=node.field_delim)
        return out
    base.update(num_parallel_workers=config.get_num_parallel_workers(), sampler=_sampler_json(node._sampler),
                dataset_dir=os.path.realpath(node.dataset_dir), op_type=type(node).__name__)
    if type(node) is ImageFolderDataset:
        return {**base, "class_indexing": dict(node.class_indexing or {}), "decode": node.decode,
                "extensions": list(node.extensions or []), "recursive": False}
    if type(node) in (MnistDataset, Cifar10Dataset, Cifar100Dataset):
        return {**base, "usage": node.usage}
    raise TypeError(f"serialize: pycompile cannot write a {type(node).__name__} yet.")


def _columns(value) -> list:
    return [] if value is None else [value] if isinstance(value, str) else list(value)


def _leaf(node):
    while node.children:
        node = node.children[0]
    return node


def _node_json(node, seen) -> dict:
    out = _node_fields(node, seen)
    if node.cache is not None:      # a source's or a map's DatasetCache, with its client's defaults
        c = node.cache
        out["cache"] = {"cache_memory_size": c.size, "cache_prefetch_size": c.prefetch_size or 20,
                        "hostname": c.hostname or "127.0.0.1", "num_connections": c.num_connections or 12,
                        "port": c.port or 50052, "session_id": c.session_id, "spill": c.spilling}
    return out


def _node_fields(node, seen) -> dict:
    if not isinstance(node, Dataset):
        raise TypeError(f"serialize: {type(node).__name__} is not a dataset node.")
    if id(node) in seen:
        raise ValueError("The data pipeline is not a tree (i.e., one node has 2 consumers)")
    seen.add(id(node))
    children = [_node_json(c, seen) for c in node.children]
    cq = config.get_prefetch_size()
    if isinstance(node, PerBatchMapDataset):
        raise TypeError("serialize: pycompile cannot write a batch with per_batch_map yet.")
    if isinstance(node, BatchDataset):
        return {"batch_size": node.batch_size, "children": children, "connector_queue_size": cq,
                "drop_remainder": node.drop_remainder, "input_columns": [],
                "num_parallel_workers": _workers(getattr(node, "given_workers", None)), "op_type": "Batch",
                "output_columns": []}
    if isinstance(node, MapDataset):
        runner = getattr(node, "callback_runner", None)
        callbacks = [cb.step_size for cb in runner.callbacks] if runner is not None else []   # their step sizes
        given = node.given
        inputs = _columns(given["input_columns"])
        outputs = _columns(given["output_columns"]) if given["output_columns"] is not None else list(inputs)
        return {"callback": callbacks, "children": children, "connector_queue_size": cq, "input_columns": inputs,
                "num_parallel_workers": _workers(given["num_parallel_workers"]), "op_type": "Map",
                "operations": ops_to_json(given["operations"]), "output_columns": outputs}
    simple = {ShuffleDataset: lambda: {"buffer_size": node.buffer_size, "op_type": "Shuffle",
                                       "reset_each_epoch": True},
              RepeatDataset: lambda: {"count": node.count, "op_type": "Repeat"},
              TakeDataset: lambda: {"count": node.count, "op_type": "Take"},
              SkipDataset: lambda: {"count": node.count, "op_type": "Skip"},
              ProjectDataset: lambda: {"columns": list(node.columns), "op_type": "Project"},
              RenameDataset: lambda: {"input_columns": list(node.input_columns), "op_type": "Rename",
                                      "output_columns": list(node.output_columns)},
              ZipDataset: lambda: {"connector_queue_size": cq,
                                   "num_parallel_workers": config.get_num_parallel_workers(), "op_type": "Zip"}}
    if type(node) in simple:
        return {"children": children, **simple[type(node)]()}
    if isinstance(node, ConcatDataset):
        sizes = [c.get_dataset_size() for c in node.children]
        flags = [0 if isinstance(_leaf(c), RandomAccessSource) else 1 for c in node.children]
        sampler = node._sampler if node._sampler is not None else samplers.SequentialSampler()
        return {"children": children, "children_flag_and_nums": [[f, n] for f, n in zip(flags, sizes)],
                "children_sizes": sizes, "children_start_end_index": [[-1, -1] for _ in sizes],
                "op_type": "Concat", "sampler": _sampler_json(sampler)}
    if not node.children:
        return _source_json(node)
    raise TypeError(f"serialize: pycompile cannot write a {type(node).__name__} node yet.")


def to_json(self, filename=""):
    """The pipeline ending at this node as MindSpore's JSON dict; also written to `filename` when
    one is given (compact, keys sorted, a final newline, as the wheel writes it)."""
    tree = _node_json(self, set())
    if filename:
        if not os.path.isdir(os.path.dirname(os.path.abspath(filename))):
            raise _fail(f"Invalid file, get real path failed, path={filename}")
        with open(filename, "w") as f:
            f.write(json.dumps(tree, sort_keys=True, separators=(",", ":")) + "\n")
    return tree


Dataset.to_json = to_json


def serialize(dataset, json_filepath=""):
    """The pipeline ending at `dataset` as a dict (MindSpore's JSON form), written to
    `json_filepath` too when given."""
    return dataset.to_json(json_filepath)


def show(dataset, indentation=2):
    """Log the pipeline's JSON at INFO level, indented by `indentation` (None: one line), as
    MindSpore's show does (its logger; here the `pycompile.dataset` logger of Python's logging, as
    the dataset package's other messages: the dataset layer sits below `pycompile.log`)."""
    _LOG.info(json.dumps(dataset.to_json(), indent=indentation))


def compare(pipeline1, pipeline2):
    """Whether two pipelines serialize to the same dict."""
    return pipeline1.to_json() == pipeline2.to_json()


# ---- reading ----------------------------------------------------------------------------------------------
def _sampler_from(d: dict):
    name, n = d["sampler_name"], d.get("num_samples") or None
    if name == "SequentialSampler":
        s = samplers.SequentialSampler(d["start_index"], n)
    elif name == "RandomSampler":
        s = samplers.RandomSampler(d["replacement"], n)
    elif name == "SubsetSampler":
        s = samplers.SubsetSampler(d["indices"], n)
    elif name == "SubsetRandomSampler":
        s = samplers.SubsetRandomSampler(d["indices"], n)
    elif name == "WeightedRandomSampler":
        s = samplers.WeightedRandomSampler(d["weights"], n, d["replacement"])
    elif name == "PKSampler":
        s = samplers.PKSampler(d["num_val"], shuffle=d["shuffle"], num_samples=n)
    elif name == "DistributedSampler":
        s = samplers.DistributedSampler(d["num_shards"], d["shard_id"], d["shuffle_mode"] != 0, n, d["offset"])
    else:
        raise _fail(f"Invalid data, unsupported sampler type: {name}")
    for child in d.get("child_sampler") or ():
        s.add_child(_sampler_from(child))
    return s


def _files_source(cls, d, **extra):
    shards = d.get("num_shards", 1)
    return cls(d["dataset_files"], num_samples=d.get("num_samples") or None,
               num_parallel_workers=d.get("num_parallel_workers"), shuffle=_SHUFFLE_OF[d.get("shuffle", 2)],
               num_shards=shards if shards != 1 else None, shard_id=d.get("shard_id") if shards != 1 else None,
               **extra)


_SOURCES = {
    "TextFileDataset": lambda d: _files_source(TextFileDataset, d),
    "CSVDataset": lambda d: _files_source(CSVDataset, d, field_delim=d.get("field_delim", ","),
                                          column_names=d.get("column_names") or None),
    "ImageFolderDataset": lambda d: ImageFolderDataset(
        d["dataset_dir"], sampler=_sampler_from(d["sampler"]), extensions=d.get("extensions") or None,
        class_indexing=d.get("class_indexing") or None, decode=d.get("decode", False)),
    "MnistDataset": lambda d: MnistDataset(d["dataset_dir"], d.get("usage"), sampler=_sampler_from(d["sampler"])),
    "Cifar10Dataset": lambda d: Cifar10Dataset(d["dataset_dir"], d.get("usage"), sampler=_sampler_from(d["sampler"])),
    "Cifar100Dataset": lambda d: Cifar100Dataset(d["dataset_dir"], d.get("usage"),
                                                 sampler=_sampler_from(d["sampler"])),
}


def _or_none(columns):
    return list(columns) if columns else None


def _build(d: dict):
    node = _build_node(d)
    c = d.get("cache")
    if c is not None:
        node.cache = DatasetCache(c["session_id"], c.get("cache_memory_size", 0), c.get("spill", False),
                                  c.get("hostname"), c.get("port"), c.get("num_connections"),
                                  c.get("cache_prefetch_size"))
    return node


def _build_node(d: dict):
    if "op_type" not in d:
        raise _fail("Failed to find key 'op_type' in JSON file or input dict, check input content of deserialize().")
    op = d["op_type"]
    if op in _SOURCES:
        return _SOURCES[op](d)
    kids = [_build(c) for c in d.get("children", ())]
    if op == "Map":
        return kids[0].map([op_from_json(o) for o in d["operations"]], _or_none(d.get("input_columns")),
                           _or_none(d.get("output_columns")), num_parallel_workers=d.get("num_parallel_workers"))
    if op == "Batch":
        if "per_batch_map" in d:
            raise _fail("Invalid data, deserialize() cannot rebuild a batch's per_batch_map (a Python function).")
        return kids[0].batch(d["batch_size"], d.get("drop_remainder", False),
                             num_parallel_workers=d.get("num_parallel_workers"))
    rebuild = {"Shuffle": lambda: kids[0].shuffle(d["buffer_size"]),
               "Repeat": lambda: kids[0].repeat(d["count"]),
               "Take": lambda: kids[0].take(d["count"]),
               "Skip": lambda: kids[0].skip(d["count"]),
               "Project": lambda: kids[0].project(d["columns"]),
               "Rename": lambda: kids[0].rename(d["input_columns"], d["output_columns"]),
               "Zip": lambda: ZipDataset(kids),
               "Concat": lambda: _concat(kids, d)}
    if op in rebuild:
        return rebuild[op]()
    raise _fail(f"Invalid data, unsupported operation type: {op}")


def _concat(kids, d):
    node = kids[0].concat(kids[1:])
    s = d.get("sampler")
    if s is not None and s != _sampler_json(samplers.SequentialSampler()):
        node.use_sampler(_sampler_from(s))
    return node


def _load(obj):
    """A dict is the pipeline; anything else is read as the path of a JSON file (as MindSpore does)."""
    if isinstance(obj, dict):
        return _build(obj)
    try:
        with open(obj) as f:
            data = json.load(f)
    except OSError:
        raise _fail(f"Invalid file, failed to open json file: {obj}") from None
    return _build(data)


def deserialize(input_dict=None, json_filepath=None):
    """The pipeline a serialized dict (or the JSON file `json_filepath`, which wins when both are
    given) describes; None when given neither. MindSpore defers its errors to the first use of the
    result; pycompile raises the same errors here."""
    if json_filepath:
        return _load(json_filepath)
    if input_dict:
        return _load(input_dict)
    return None
