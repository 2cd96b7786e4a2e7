"""The conformance table: what a failing `map` operation raises - a dataset transform's pipeline error
naming it ("[ERROR] map operation: [TypeCast] failed. ..."), the user's own function's error with its
traceback, in the pipeline's own thread and in worker processes - and a failing GeneratorDataset
source. Compared: the class, the first line, the "[ERROR]" line and the line naming the operation
(tracebacks differ by path). Ids start with ``maperr_``."""
group("map_errors")

_ME_PIPE = dict(graph=False, reason="the dataset pipeline runs on the host")
_ME_DS = ms.dataset


def _me_outcome(build):
    """(class, first line, the [ERROR] line, the line that names the map operation, the last line of the
    user's traceback) of iterating build()'s pipeline."""
    try:
        list(build().create_tuple_iterator(output_numpy=True, num_epochs=1))
    except Exception as e:  # noqa: BLE001 - the error is the outcome
        lines = [ln.rstrip() for ln in str(e).splitlines()]
        said = [ln for ln in lines if ln.startswith("[ERROR]")]
        named = [ln for ln in lines if ln.startswith("map operation:")]
        raised = [ln for ln in lines if ln.startswith(("ValueError:", "KeyError:", "IndexError:"))]
        return (type(e).__name__, lines[0] if lines else "", said[0] if said else "", named[0] if named else "",
                raised[-1] if raised else "")
    return "no error"


def _me_bad(x):
    raise ValueError("bad value in the map")


def _me_texts():
    return _ME_DS.NumpySlicesDataset(np.array(["a", "b"]), column_names=["t"], shuffle=False)


def _me_case(name, build, source="dataset.NumpySlicesDataset"):
    add(f"maperr_{name}", source, lambda: _me_outcome(build), **_ME_PIPE)


_me_case("transform", lambda: _me_texts().map(_ME_DS.transforms.TypeCast(ms.float32), input_columns="t"))
_me_case("transform_in_workers", lambda: _me_texts().map(_ME_DS.transforms.TypeCast(ms.float32), input_columns="t",
                                                          num_parallel_workers=2, python_multiprocessing=True))
_me_case("decode", lambda: _ME_DS.NumpySlicesDataset(np.array([[1, 2, 3]], np.uint8), column_names=["t"],
                                                     shuffle=False).map(_ME_DS.vision.Decode(), input_columns="t"))
_me_case("user_function", lambda: _me_texts().map(_me_bad, input_columns="t"))
_me_case("user_function_in_workers", lambda: _me_texts().map(_me_bad, input_columns="t", num_parallel_workers=2,
                                                             python_multiprocessing=True))
_me_case("second_of_two_operations", lambda: _me_texts().map([lambda t: t, _ME_DS.transforms.TypeCast(ms.int32)],
                                                             input_columns="t"))


def _me_generator():
    yield (np.array(1),)
    raise KeyError("boom in the generator")


class _MeSource:
    def __getitem__(self, i):
        if i == 1:
            raise IndexError("no row 1")
        return (np.array(i),)

    def __len__(self):
        return 3


_me_case("generator_raises", lambda: _ME_DS.GeneratorDataset(_me_generator, ["x"]), "dataset.GeneratorDataset")
_me_case("random_access_source_raises", lambda: _ME_DS.GeneratorDataset(_MeSource(), ["x"], shuffle=False),
         "dataset.GeneratorDataset")
