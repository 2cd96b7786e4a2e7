"""SentencePieceVocab / SentencePieceTokenizer: what the conformance table
(tests/conformance/cases_text_spm.py, data/text_spm.json) cannot show - worker processes give the
wheel's recorded rows, a saved model is a standard SentencePiece model file that round-trips,
pickling, the error without the `sentencepiece` package, and pycompile's choices where the wheel
crashes."""
import ast
import json
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import pycompile.dataset as ds
from pycompile.dataset import text

_CONF = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "conformance")
with open(os.path.join(_CONF, "data", "text_spm.json"), encoding="utf-8") as _f:
    RECORDS = json.load(_f)["cases"]

# cases_text_spm.py's corpus and probe sentences (its pipeline cases' rows), read from its source
with open(os.path.join(_CONF, "cases_text_spm.py"), encoding="utf-8") as _f:
    _LISTS = {n.targets[0].id: ast.literal_eval(n.value) for n in ast.parse(_f.read()).body
              if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") in ("_SPM_CORPUS", "_SPM_PROBES")}
CORPUS, PROBES = _LISTS["_SPM_CORPUS"], _LISTS["_SPM_PROBES"]


def _decode(enc):
    """A recorded outcome (conf_harness's encoding) back as Python values."""
    if "list" in enc:
        return [_decode(x) for x in enc["list"]]
    if "tuple" in enc:
        return tuple(_decode(x) for x in enc["tuple"])
    if "str" in enc:
        return enc["str"]
    if "scalar" in enc:
        return enc["scalar"]
    raise AssertionError(f"unexpected record {enc}")


def _out(a):
    a = np.asarray(a)
    return a.dtype.str, list(a.shape), a.tolist()


def _bpe():
    return text.SentencePieceVocab.from_dataset(ds.NumpySlicesDataset(CORPUS, column_names=["text"], shuffle=False),
                                                ["text"], 100, 0.9995, text.SentencePieceModel.BPE, {})


@pytest.mark.parametrize("out", ["STRING", "INT"])
@pytest.mark.parametrize("multiprocessing", [False, True])
def test_pipeline_with_workers_gives_the_wheels_rows(out, multiprocessing):
    tok = text.SentencePieceTokenizer(_bpe(), getattr(text.SPieceTokenizerOutType, out))
    rows = ds.NumpySlicesDataset(PROBES[:3] + CORPUS[:3], column_names=["text"], shuffle=False).map(
        tok, input_columns=["text"], num_parallel_workers=2, python_multiprocessing=multiprocessing)
    got = [[_out(c) for c in r] for r in rows.create_tuple_iterator(output_numpy=True, num_epochs=1)]
    want = _decode(RECORDS[f"spm_pipeline_{out.lower()}"]["pynative"])
    assert [[list(c) for c in r] for r in got] == [[list(c) for c in r] for r in want]


def test_saved_model_is_a_sentencepiece_model_file(tmp_path):
    import sentencepiece as spm
    vocab = _bpe()
    text.SentencePieceVocab.save_model(vocab, str(tmp_path), "m.model")
    path = tmp_path / "m.model"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    processor = spm.SentencePieceProcessor(model_file=str(path))
    assert processor.get_piece_size() == 100
    assert [processor.id_to_piece(i) for i in range(3)] == ["<unk>", "<s>", "</s>"]
    as_ids = text.SentencePieceTokenizer(str(path), text.SPieceTokenizerOutType.INT)
    for sentence in PROBES + CORPUS:
        assert as_ids(sentence).tolist() == processor.encode(sentence)
    # the wheel's tokens for the same vocab (spm_train_bpe_ds), read back from the file
    want = _decode(RECORDS["spm_train_bpe_ds"]["pynative"])
    as_str = text.SentencePieceTokenizer(str(path), text.SPieceTokenizerOutType.STRING)
    got = [(_out(as_str(s)), _out(as_ids(s))) for s in CORPUS + PROBES]
    assert [[list(x) for x in row] for row in got] == [[list(x) for x in row] for row in want]


def test_pickled_tokenizer_and_vocab_tokenize_the_same():
    vocab = _bpe()
    tok = text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.STRING)
    first = tok("Hello world, today is Tuesday.").tolist()         # loads (and caches) the processor
    again = pickle.loads(pickle.dumps(tok))
    assert again("Hello world, today is Tuesday.").tolist() == first
    copied = pickle.loads(pickle.dumps(vocab))
    assert text.SentencePieceTokenizer(copied, text.SPieceTokenizerOutType.STRING)(
        "Hello world, today is Tuesday.").tolist() == first
    want = _decode(RECORDS["spm_train_bpe_ds"]["pynative"])[len(CORPUS)][0]      # the first probe, as the wheel
    assert first == want[2]


def test_saving_an_untrained_vocab_is_an_error(tmp_path):
    # the wheel's process dies (SIGSEGV) here, leaving an empty file; pycompile raises and writes nothing
    with pytest.raises(RuntimeError, match="input vocab can not be null"):
        text.SentencePieceVocab.save_model(text.SentencePieceVocab(), str(tmp_path), "x.model")
    assert os.listdir(tmp_path) == []


def test_without_the_package_the_names_say_which_extra(monkeypatch):
    vocab = _bpe()
    monkeypatch.setitem(sys.modules, "sentencepiece", None)        # `import sentencepiece` now fails
    assert int(text.SentencePieceModel.WORD) == 3 and int(text.SPieceTokenizerOutType.INT) == 1
    for call in (lambda: text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.INT),
                 lambda: text.SentencePieceVocab.from_dataset(
                     ds.NumpySlicesDataset(CORPUS, column_names=["text"], shuffle=False), ["text"], 100, 0.9995,
                     text.SentencePieceModel.BPE, {}),
                 lambda: text.SentencePieceVocab.from_file(["corpus.txt"], 100, 0.9995, text.SentencePieceModel.BPE,
                                                           {})):
        with pytest.raises(ImportError, match=r"pip install 'pycompile\[text\]'"):
            call()


def test_importing_dataset_text_needs_no_sentencepiece():
    code = ("import sys; sys.modules['sentencepiece'] = None\n"
            "import pycompile.dataset.text as t\n"
            "print(t.SentencePieceModel.BPE.value, t.SPieceTokenizerLoadType.MODEL.value)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "1"]
