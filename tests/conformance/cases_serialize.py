"""The conformance table: mindspore.dataset's pipeline serialization (serialize, deserialize, show,
compare), WaitedDSCallback and sync_wait_for_dataset. tests/dataset/test_serialization.py checks
serialization in depth against tests/dataset/serialization_records.json; these cases name each API
for the name coverage. Ids start with ``ser_``. All run on the host (the pipeline, not graph code).
Worker counts are given explicitly (their default is the machine's CPU count) and the temporary
folder is written <root>."""
group("serialize")

_ser_PIPE = dict(graph=False, reason="the dataset pipeline runs on the host")
SERDS = ms.dataset


def _ser_rows(d):
    return [tuple(np.asarray(c) for c in r) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]


def _ser_text(d, root):
    import json
    text = json.dumps(d, sort_keys=True)
    return text.replace(root, "<root>") if root else text


def _ser_files(fn):
    """fn(root) run over a temporary folder holding a.txt (4 lines) and b.txt (2 lines)."""
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.realpath(tmp)
        with open(os.path.join(root, "a.txt"), "w") as f:
            f.write("hello\nworld\nfoo\nbar\n")
        with open(os.path.join(root, "b.txt"), "w") as f:
            f.write("one\ntwo\n")
        return fn(root)


@case("dataset.serialize", "dataset.NumpySlicesDataset", "dataset.transforms.TypeCast", "dataset.transforms.OneHot",
      **_ser_PIPE)
def ser_serialize_numpy():
    d = SERDS.NumpySlicesDataset({"a": np.arange(6, dtype=np.int32), "b": np.arange(6, dtype=np.float32)},
                                 shuffle=False)
    d = d.map([SERDS.transforms.TypeCast(ms.int64), SERDS.transforms.OneHot(6)], input_columns=["a"],
              num_parallel_workers=1).batch(2, num_parallel_workers=1).shuffle(4).repeat(2).take(5).skip(1)
    return _ser_text(SERDS.serialize(d), "")


@case("dataset.serialize", "dataset.TextFileDataset", "dataset.zip", **_ser_PIPE)
def ser_serialize_text_file():
    def run(root):
        import os
        a = SERDS.TextFileDataset(os.path.join(root, "a.txt"), shuffle=False, num_parallel_workers=1)
        b = SERDS.TextFileDataset(os.path.join(root, "b.txt"), shuffle=False, num_parallel_workers=1)
        c = SERDS.TextFileDataset(os.path.join(root, "b.txt"), shuffle=False, num_parallel_workers=1)
        d = (a + b).project(["text"]).rename(["text"], ["t"])
        path = os.path.join(root, "p.json")
        tree = SERDS.serialize(d, json_filepath=path)
        with open(path) as f:
            written = f.read().replace(root, "<root>")
        return _ser_text(tree, root), written, _ser_text(SERDS.serialize(c.take(1)), root)
    return _ser_files(run)


@case("dataset.deserialize", "dataset.serialize", "dataset.TextFileDataset", **_ser_PIPE)
def ser_deserialize_round_trip():
    def run(root):
        import os
        d = SERDS.TextFileDataset(os.path.join(root, "a.txt"), shuffle=False, num_parallel_workers=1)
        d = d.batch(2, drop_remainder=False, num_parallel_workers=1).repeat(2)
        path = os.path.join(root, "p.json")
        SERDS.serialize(d, json_filepath=path)
        from_file = SERDS.deserialize(json_filepath=path)
        from_dict = SERDS.deserialize(input_dict=SERDS.serialize(d))
        return ([r[0].tolist() for r in _ser_rows(from_file)], [r[0].tolist() for r in _ser_rows(from_dict)],
                _ser_text(SERDS.serialize(from_file), root), SERDS.deserialize() is None)
    return _ser_files(run)


@case("dataset.deserialize", "dataset.serialize", "dataset.NumpySlicesDataset", error=True, **_ser_PIPE)
def ser_deserialize_generator_fails():
    d = SERDS.NumpySlicesDataset({"a": np.arange(3, dtype=np.int32)}, shuffle=False)
    return _ser_rows(SERDS.deserialize(input_dict=SERDS.serialize(d)))


@case("dataset.compare", "dataset.TextFileDataset", **_ser_PIPE)
def ser_compare():
    def run(root):
        import os

        def t(**kw):
            return SERDS.TextFileDataset(os.path.join(root, "a.txt"), shuffle=False, **kw)
        return (SERDS.compare(t(), t()), SERDS.compare(t(), t().take(1)), SERDS.compare(t(), t(num_samples=2)),
                SERDS.compare(t().skip(1), t().skip(1)))
    return _ser_files(run)


@case("dataset.compare", error=True, **_ser_PIPE)
def ser_compare_not_a_dataset():
    return SERDS.compare(SERDS.NumpySlicesDataset([1, 2], shuffle=False), 3)


@case("dataset.show", "dataset.NumpySlicesDataset", **_ser_PIPE)
def ser_show():
    d = SERDS.NumpySlicesDataset([1, 2], shuffle=False).batch(1, num_parallel_workers=1)
    return SERDS.show(d) is None, SERDS.show(d, indentation=None) is None


@case("dataset.show", error=True, **_ser_PIPE)
def ser_show_not_a_dataset():
    return SERDS.show([1, 2])


class _SerObsContent:
    def __init__(self, key):
        self.key = key


class _SerObsClient:
    """An OBS client whose listing of the ready folder grows by one marker (and one non-marker) per poll."""

    def __init__(self, calls):
        self.calls = calls

    def listObjects(self, bucket, prefix):  # noqa: N802 - the OBS SDK's name
        self.calls.append((bucket, prefix))
        n = len(self.calls)

        class Resp:
            status = 200 if n != 2 else 500
            errorCode, errorMessage = "E1", "busy"

            class body:  # noqa: N801
                contents = [_SerObsContent(f"{prefix}r{i}.txt") for i in range(n)] + [_SerObsContent("x.log")]
        return Resp


@case("dataset.sync_wait_for_dataset", **_ser_PIPE)
def ser_sync_wait_for_dataset():
    import os
    calls = []

    class Config:
        SYNC_OBS_PATH = "s3://bucket/sync/dir"
        RETRY_DELTA_TIME = 0

    class Runtime:
        config = Config

        def get_obs_client(self):
            return _SerObsClient(calls)
    old = os.environ.pop("BATCH_JOB_ID", None)
    try:
        SERDS.sync_wait_for_dataset(0, 3, 2, Runtime())
        os.environ["BATCH_JOB_ID"] = "job7"
        SERDS.sync_wait_for_dataset(1, 1, 5, Runtime())
    finally:
        os.environ.pop("BATCH_JOB_ID", None)
        if old is not None:
            os.environ["BATCH_JOB_ID"] = old
    return [list(c) for c in calls]


def _ser_waited_events(step_size):
    events = []

    class Waited(SERDS.WaitedDSCallback):
        def sync_epoch_begin(self, train_run_context, ds_run_context):
            events.append(f"ds_epoch_begin_{ds_run_context.cur_epoch_num}_{ds_run_context.cur_step_num}")

        def sync_step_begin(self, train_run_context, ds_run_context):
            events.append(f"ds_step_begin_{ds_run_context.cur_epoch_num}_{ds_run_context.cur_step_num}")

        def ds_step_end(self, ds_run_context):          # not called for a WaitedDSCallback
            events.append("ds_step_end")

    class Train(ms.train.Callback):
        def epoch_end(self, run_context):
            p = run_context.original_args()
            events.append(f"ms_epoch_end_{p.cur_epoch_num}_{p.cur_step_num}")

        def step_end(self, run_context):
            p = run_context.original_args()
            events.append(f"ms_step_end_{p.cur_epoch_num}_{p.cur_step_num}")

    class Net(nn.Cell):
        def construct(self, x, y):
            return x

    waited = Waited(step_size)
    arr = np.array([1, 2, 3, 4], np.int32)
    data = SERDS.NumpySlicesDataset((arr, arr), column_names=["c1", "c2"], shuffle=False)
    data = data.map(operations=(lambda x: x), callbacks=waited)
    ms.train.Model(Net()).train(2, data, dataset_sink_mode=False, callbacks=[Train(), waited])
    return events


@case("dataset.WaitedDSCallback", "train.Model", "train.Callback", **_ser_PIPE)
def ser_waited_ds_callback():
    return _ser_waited_events(1)


@case("dataset.WaitedDSCallback", error=True, **_ser_PIPE)
def ser_waited_ds_callback_no_override():
    class Bare(SERDS.WaitedDSCallback):
        pass
    d = SERDS.NumpySlicesDataset(([1, 2],), column_names=["c1"], shuffle=False).map(lambda x: x, callbacks=Bare())
    return _ser_rows(d)
