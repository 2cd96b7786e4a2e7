"""Record MindSpore 2.10's PaddedDataset (tests/dataset/padded_cases_data35.py, issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_padded_data35.py

Writes data/padded_data35.json: each source case's columns and rows (or error), and each shard
of data + PaddedDataset read through use_sampler(DistributedSampler(shuffle=False)).
"""
import json
import os
import sys

import mindspore.dataset as ds

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import padded_cases_data35 as pc  # noqa: E402
import source_io_data35 as sio  # noqa: E402


def main():
    out = {"sources": {}, "shards": {}}
    for name in pc.SOURCE_CASES:
        try:
            d = ds.PaddedDataset(pc.samples(name))
            out["sources"][name] = {"columns": d.get_col_names(), "size": d.get_dataset_size(),
                                    "rows": [[sio.value(v) for v in r] for r in d.create_tuple_iterator(output_numpy=True)]}
        except Exception as e:  # noqa: BLE001 - the record
            out["sources"][name] = {"error": {"type": type(e).__name__, "message": str(e).splitlines()[0]}}
    for name, (n, shards) in pc.SHARD_CASES.items():
        per = []
        for k in range(shards):
            d = pc.data(ds, n) + ds.PaddedDataset(pc.samples("pad"))
            d.use_sampler(ds.DistributedSampler(num_shards=shards, shard_id=k, shuffle=False))
            per.append({"size": d.get_dataset_size(),
                        "rows": [[int(r["label"]), r["image"].tolist()] for r in d.create_dict_iterator(output_numpy=True)]})
        out["shards"][name] = per
    with open(os.path.join(HERE, "data", "padded_data35.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
