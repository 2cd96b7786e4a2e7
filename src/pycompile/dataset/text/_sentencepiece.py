"""mindspore.dataset.text's SentencePiece names: SentencePieceVocab (from_dataset / from_file /
save_model), SentencePieceTokenizer and the enums SentencePieceModel, SPieceTokenizerLoadType and
SPieceTokenizerOutType, as MindSpore 2.10 has them (tests/conformance/cases_text_spm.py).

MindSpore wraps Google's SentencePiece library (0.1.92, built into its wheel) in C++; pycompile
uses the same library through its Python package (`sentencepiece`, the optional extra `text`),
imported when a vocab is trained or a tokenizer made, so that the rest of dataset.text needs none.

What the two library versions give:
* tokenization with a model: the same pieces and ids (a model the wheel saved, read here);
* training BPE, CHAR and WORD models: the same model (pieces, scores, ids);
* training UNIGRAM models: a different model - SentencePiece 0.1.99 rewrote the unigram trainer's
  seed pieces and fixed its pruning (each piece's loss was computed with the number of all pieces'
  alternatives, `alternatives.size()`, instead of its own, `alternatives[i].size()`), so the
  pieces kept differ for the same corpus and parameters.

MindSpore's errors are kept word for word: its argument checks (Python), its pybind11 refusals,
and the trainer's own messages as 0.1.92 words them (`_as_0192`).
"""
from __future__ import annotations

import enum
import functools
import inspect
import io
import logging
import os
import re

import numpy as np

from pycompile.dataset.argcheck import type_check as _type_check
from pycompile.dataset.transforms._base import TensorOperation, as_array
from pycompile.dataset.workers import pipeline_error

_UINT32_MAX = 4294967295
_INT32_MAX = 2147483647
_VOCAB_TYPE = "[<class 'mindspore.dataset.text.utils.SentencePieceVocab'>]"
# parameters MindSpore sets itself: a user's `params` entry for one of them is dropped
_OWN_PARAMS = ("input", "vocab_size", "model_prefix", "character_coverage", "model_type")


class SentencePieceModel(enum.IntEnum):
    """The subword algorithm a SentencePieceVocab is trained with."""

    UNIGRAM = 0
    BPE = 1
    CHAR = 2
    WORD = 3


class SPieceTokenizerLoadType(enum.IntEnum):
    """Where a SentencePieceTokenizer's model comes from: a file path or a SentencePieceVocab."""

    FILE = 0
    MODEL = 1


class SPieceTokenizerOutType(enum.IntEnum):
    """What a SentencePieceTokenizer outputs: the pieces (strings) or their ids (int32)."""

    STRING = 0
    INT = 1


def _spm():
    """The `sentencepiece` module, or an ImportError saying which extra brings it."""
    try:
        import sentencepiece
    except ImportError as e:
        raise ImportError("mindspore.dataset.text's SentencePiece names need the 'sentencepiece' package, "
                          "which pycompile does not install by default: pip install 'pycompile[text]' "
                          "(or pip install 'sentencepiece>=0.2').") from e
    return sentencepiece


# ---- MindSpore's argument checks ------------------------------------------------------------------
def _uint32(value, name):
    _type_check(value, (int,), name)
    if not 0 <= value <= _UINT32_MAX:
        raise ValueError(f"Input {name} is not within the required interval of [0, {_UINT32_MAX}].")


def _bound(method):
    """Bind the arguments as MindSpore's validators do (inspect's words for a missing or extra one)."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def call(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        return method(*bound.args, **bound.kwargs)
    return call


def _str_map(params) -> bool:
    return isinstance(params, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in params.items())


def _refused(function: str, constructor: bool, got) -> TypeError:
    """pybind11's TypeError when MindSpore's C++ binding cannot take the arguments."""
    kind = "constructor" if constructor else "function"
    return TypeError(f"{function}(): incompatible {kind} arguments. The following argument types are supported:\n"
                     f"    (see MindSpore's SentencePiece binding)\n\nInvoked with: {got!r}")


def _float32_text(value: float) -> str:
    """C++'s std::to_string of the float MindSpore passes on (six decimals)."""
    return f"{float(np.float32(value)):f}"


# where SentencePiece 0.1.92 (MindSpore's) words a trainer check: the checks a user can hit
_CHECK_LINES_0192 = {
    "(trainer_spec.vocab_size()) > (0)": 56,
    "trainer_spec.character_coverage() >= 0.98 && trainer_spec.character_coverage() <= 1.0": 67,
    "!sentences_.empty()": 429,
    "(trainer_spec_.vocab_size()) == (model_proto->pieces_size())": 661,
}


def _as_0192(message: str) -> str:
    """A trainer message of the Python package as SentencePiece 0.1.92 words it: no status code
    prefix, 0.1.92's source line in a failed check, the errno after a file error."""
    message = re.sub(r"^[A-Z_]+: ", "", message)

    def line(m):
        where = _CHECK_LINES_0192.get(m.group(2))
        return f"src/trainer_interface.cc({where if where else m.group(1)}) [{m.group(2)}]"
    message = re.sub(r"src/trainer_interface\.cc\((\d+)\) \[(.*?)\]", line, message)
    return re.sub(r'^(".*": No such file or directory)$', r"\1 Error #2", message)


def _train(prefix: str, vocab_size, character_coverage, model_type, params, **source) -> bytes:
    """A serialized model, trained as MindSpore asks SentencePiece to (its parameters override the
    user's `params` of the same name); a trainer error is MindSpore's RuntimeError."""
    spm = _spm()
    args = {k: v for k, v in params.items() if k not in _OWN_PARAMS}
    args.update(vocab_size=str(vocab_size), character_coverage=_float32_text(character_coverage),
                model_type=model_type.name, minloglevel="1")
    out = io.BytesIO()
    try:
        spm.SentencePieceTrainer.train(model_writer=out, **args, **source)
    except (RuntimeError, ValueError, OSError) as e:
        raise pipeline_error(prefix + _as_0192(str(e))) from None
    return out.getvalue()


def _sentences(dataset, col_names):
    """The strings of one column (col_names[0], or "text" when none is named), read until a row
    that is not a scalar string, as MindSpore's vocab builder reads them."""
    names = dataset.get_col_names()
    if col_names:
        if col_names[0] not in names:
            raise pipeline_error(f"Invalid column, column name: {col_names[0]} does not exist, check existed "
                                 "column with dataset API 'get_col_names'")
        index = names.index(col_names[0])
    elif "text" in names:
        index = names.index("text")
    else:
        raise pipeline_error("Invalid data, 'text' column does not exist.")
    for row in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1):
        value = np.asarray(row[index])
        if value.ndim != 0 or value.dtype.kind not in "US":
            return
        item = value[()]
        yield item.decode("utf-8") if isinstance(item, bytes) else str(item)


class SentencePieceVocab:
    """A trained SentencePiece model (its serialized ModelProto)."""

    def __init__(self):
        self._model_proto: bytes | None = None

    @classmethod
    def _of(cls, model_proto: bytes) -> SentencePieceVocab:
        vocab = cls()
        vocab._model_proto = model_proto
        return vocab

    @classmethod
    @_bound
    def from_dataset(cls, dataset, col_names: list, vocab_size: int, character_coverage: float,
                     model_type: SentencePieceModel, params: dict) -> SentencePieceVocab:
        """Train on the strings of `dataset`'s column col_names[0] ("text" when the list is empty)."""
        if col_names is not None:
            _type_check(col_names, (list, tuple), "col_names")
            for i, name in enumerate(col_names):
                _type_check(name, (str,), f"col_names[{i}]")
        if vocab_size is None:
            raise TypeError("vocab_size must be provided.")
        _uint32(vocab_size, "vocab_size")
        _check_common(character_coverage, model_type, params)
        if not hasattr(dataset, "create_tuple_iterator"):
            raise AttributeError(f"'{type(dataset).__name__}' object has no attribute '_build_sentencepiece_vocab'")
        if not isinstance(model_type, SentencePieceModel):
            raise TypeError(f"Argument model_type with value {model_type} is not of type SentencePieceModel, "
                            f"but got {type(model_type)}.")
        if col_names is None or character_coverage is None or vocab_size > _INT32_MAX or not _str_map(params):
            raise _refused("__init__", True, (col_names, vocab_size, character_coverage, params))
        if vocab_size == 0:
            raise pipeline_error(f"BuildSentenceVocabNode: vocab_size should be positive, but got: {vocab_size}")
        if not np.float32(0.98) <= np.float32(character_coverage) <= np.float32(1.0):
            raise pipeline_error("BuildSentenceVocabNode: character_coverage should to be between 0.98 and 1.0, "
                                 f"but got {_float32_text(character_coverage)}")
        _spm()
        sentences = list(_sentences(dataset, col_names))
        return cls._of(_train("", vocab_size, character_coverage, model_type, params,
                              sentence_iterator=iter(sentences)))

    @classmethod
    @_bound
    def from_file(cls, file_path: list, vocab_size: int, character_coverage: float, model_type: SentencePieceModel,
                  params: dict) -> SentencePieceVocab:
        """Train on the lines of the files in `file_path` (a list)."""
        if file_path is not None:
            _type_check(file_path, (list,), "file_path")
        if vocab_size is not None:
            _uint32(vocab_size, "vocab_size")
        _check_common(character_coverage, model_type, params)
        if (file_path is None or not all(isinstance(p, str) for p in file_path) or vocab_size is None
                or vocab_size > _INT32_MAX or character_coverage is None
                or not isinstance(model_type, SentencePieceModel) or not _str_map(params)):
            raise _refused("from_file", False, (file_path, vocab_size, character_coverage, model_type, params))
        if not file_path:      # MindSpore drops the last character of the joined paths
            raise IndexError("basic_string::erase: __pos (which is 18446744073709551615) > this->size() "
                             "(which is 0)")
        return cls._of(_train("SentencePieceVocab: ", vocab_size, character_coverage, model_type, params,
                              input=",".join(file_path)))

    @classmethod
    @_bound
    def save_model(cls, vocab: SentencePieceVocab, path: str, filename: str) -> None:
        """Write the model to `path`/`filename` (readable by SentencePieceTokenizer and by any
        SentencePiece library). As MindSpore, a file that cannot be opened there is not written
        and no error is raised (pycompile logs a warning naming it); `path` must exist."""
        if vocab is not None:
            _type_check(vocab, (SentencePieceVocab,), "vocab", _VOCAB_TYPE)
        if path is not None:
            _type_check(path, (str,), "path")
        if filename is not None:
            _type_check(filename, (str,), "filename")
        if vocab is None:
            raise AttributeError("'NoneType' object has no attribute 'c_sentence_piece_vocab'")
        if path is None or filename is None:
            raise _refused("save_model", False, (vocab, path, filename))
        if not os.path.exists(path):
            raise pipeline_error(f"Get real path failed, path={path}")
        if vocab._model_proto is None:       # MindSpore's process dies here (SIGSEGV)
            raise pipeline_error("SentencePieceVocab::SaveModel: input vocab can not be null")
        whole = os.path.realpath(path).rstrip("/") + "/" + filename
        try:
            with open(whole, "wb") as f:
                f.write(vocab._model_proto)
            os.chmod(whole, 0o600)
        except OSError as e:         # MindSpore raises nothing here; pycompile says so in its log
            logging.getLogger("pycompile.dataset").warning("SentencePieceVocab.save_model could not write %s: %s",
                                                           whole, e)


def _check_common(character_coverage, model_type, params):
    if character_coverage is not None:
        _type_check(character_coverage, (float,), "character_coverage")
    if model_type is not None:
        _type_check(model_type, (str, SentencePieceModel), "model_type")
    if params is not None:
        _type_check(params, (dict,), "params")


class SentencePieceTokenizer(TensorOperation):
    """A scalar string -> its pieces (a 1-D string array) or their ids (1-D int32), with a model
    from a SentencePieceVocab or from a model file (`mode` a path)."""

    _ms_name = "SentencepieceTokenizer"     # how MindSpore's map names it in its errors

    @_bound
    def __init__(self, mode: str | SentencePieceVocab, out_type: SPieceTokenizerOutType):
        _type_check(mode, (str, SentencePieceVocab), "mode is not an instance of str or text.SentencePieceVocab.",
                    "[<class 'str'>, <class 'mindspore.dataset.text.utils.SentencePieceVocab'>]")
        _type_check(out_type, (SPieceTokenizerOutType,), "out_type is not an instance of SPieceTokenizerOutType")
        _spm()
        self.mode, self.out_type = mode, out_type
        self._processor = None

    def __getstate__(self):
        # the loaded processor stays behind: a worker process loads its own from `mode`
        return {**self.__dict__, "_processor": None}

    def _load(self):
        spm = _spm()
        processor = spm.SentencePieceProcessor()
        if isinstance(self.mode, SentencePieceVocab):
            if self.mode._model_proto is None:
                raise pipeline_error("SentencePieceTokenizer: vocab object type is incorrect or null.")
            try:
                processor.LoadFromSerializedProto(self.mode._model_proto)
            except (RuntimeError, OSError):
                raise pipeline_error("parser vocab model filed.") from None
            return processor
        path = self.mode
        if not os.path.exists(path):
            raise pipeline_error(f"The file {path} does not exist.")
        if os.path.isdir(path):
            raise pipeline_error(f"SentencePieceTokenizer : vocab file: [{path}] is invalid or does not exist.")
        try:
            processor.Load(path)
        except (RuntimeError, OSError):
            where = os.path.join(os.path.realpath(os.path.dirname(path) or "."), os.path.basename(path))
            raise pipeline_error(f"SentencePieceTokenizer: load vocab model file: {where} failed.") from None
        return processor

    def __call__(self, *inputs) -> np.ndarray:
        if len(inputs) != 1:
            raise pipeline_error("The op is OneToOne, can only accept one tensor as input.")
        if isinstance(inputs[0], np.ndarray) and inputs[0].dtype.hasobject:
            raise TypeError(f"Invalid user input. Got {type(inputs[0])}: {inputs[0]}, cannot be converted into "
                            "tensor.")
        return self._apply(as_array(inputs[0]))

    def _apply(self, sentence):
        if sentence.ndim != 0 or sentence.dtype.kind != "U":
            raise pipeline_error("SentencePieceTokenizer: the input shape should be scalar and the input datatype "
                                 "should be string.")
        if self._processor is None:
            self._processor = self._load()
        text = str(sentence[()])
        if self.out_type == SPieceTokenizerOutType.STRING:
            pieces = self._processor.EncodeAsPieces(text)
            return np.array(pieces) if pieces else np.array([], dtype="<U1")
        return np.array(self._processor.EncodeAsIds(text), dtype=np.int32)

    def __repr__(self):
        return f"SentencePieceTokenizer(mode={self.mode!r}, out_type={self.out_type!r})"
