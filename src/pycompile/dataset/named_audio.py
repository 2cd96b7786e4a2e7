"""MindSpore 2.10's named audio datasets, read from their archives' unpacked layouts (no
downloads): YesNo, SpeechCommands, LJSpeech, GTZAN, CMUArctic, LibriTTS and Tedlium. All are mappable
(sampler, shuffle, shards, num_samples); rows, dtypes, orders and argument errors recorded from
the wheel in tests/dataset/named_sources.json.

Waveforms are read as MindSpore's ReadWaveFile reads them: the canonical 44-byte WAV header
(sample rate at byte 24, bits per sample at 34, data size at 40), then that many bytes of 16-bit
samples (channels interleaved, not split), each divided by 32767 in float32: a (1, n) float32 row.
Where MindSpore walks a directory in the file system's order (GTZAN usage 'all', LibriTTS's
speaker / chapter folders), the names are sorted here, so an order never depends on the disk.
"""
from __future__ import annotations

import os
import re

import numpy as np

from pycompile.dataset.named_text import _ItemRows, check_dir, check_usage


def read_wave(path):
    """(waveform float32 (1, n), sample rate) of a 16-bit PCM WAV file, as MindSpore reads it."""
    try:
        with open(path, "rb") as f:
            header = f.read(44)
            if len(header) < 44:
                raise RuntimeError(f"Invalid file, failed to read the wave header of {path}.")
            rate = int(np.frombuffer(header, "<i4", 1, 24)[0])
            bits = int(np.frombuffer(header, "<i2", 1, 34)[0])
            size = int(np.frombuffer(header, "<i4", 1, 40)[0])
            if bits // 8 == 0:
                raise RuntimeError("ReadWaveFile: zero division error, bits per sample of the audio can not be zero.")
            count = int(size / (bits // 8))
            data = np.frombuffer(f.read(2 * count), "<i2")
    except OSError as e:
        raise RuntimeError(f"Invalid file, failed to open waveform file: {path}, make sure the file not damaged or "
                           f"permission denied. {e}") from None
    wave = np.zeros(count, np.float32)                  # a short file's missing samples read as 0
    wave[:len(data)] = data.astype(np.float32) / np.float32(32767.0)
    return wave[None, :], rate


class _AudioSource(_ItemRows):
    """An audio set's rows; `_found()` refuses a folder with none, as the wheel's readers do."""

    def _found(self):
        if not self._items:
            raise RuntimeError(f"Invalid data, no valid data matching the dataset API {type(self).__name__}. Please "
                               f"check file path or dataset API: {self.dataset_dir}.")


def _checked_rate(path, expected, api):
    wave, rate = read_wave(path)
    if rate != expected:
        raise RuntimeError(f"Invalid file, sampling rate of {api} wav file must be {expected}, file path: {path}")
    return wave, np.array(rate, np.uint32)


class YesNoDataset(_AudioSource):
    """YesNo: the .wav files of `dataset_dir` in sorted order, each named by its eight 0/1 words
    (1_0_0_1_...wav). Rows waveform, sample_rate (int32), label (int32, the eight words)."""

    _COLUMNS = ["waveform", "sample_rate", "label"]

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler)
        self._items = [os.path.join(dataset_dir, n) for n in sorted(os.listdir(dataset_dir))
                       if n.endswith(".wav") and os.path.isfile(os.path.join(dataset_dir, n))]
        self._found()

    def _row(self, path):
        wave, rate = read_wave(path)
        words = os.path.splitext(os.path.basename(path))[0].split("_")
        try:
            label = np.array([int(w) for w in words], np.int32)
        except ValueError:
            raise RuntimeError(f"Invalid file name, failed to get labels from {path}.") from None
        return wave, np.array(rate, np.int32), label


class SpeechCommandsDataset(_AudioSource):
    """Speech Commands: <word>/<speaker>_nohash_<n>.wav (not _background_noise_), in sorted path
    order. usage 'test' / 'valid' read the files testing_list.txt / validation_list.txt name,
    'train' every other one, 'all' every one. Rows waveform, sample_rate (int32), label (the
    word), speaker_id (string), utterance_number (int32)."""

    _COLUMNS = ["waveform", "sample_rate", "label", "speaker_id", "utterance_number"]

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        self.usage = check_usage(usage, ("train", "test", "valid", "all"), "all")
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler)
        listed = {u: self._listed(dataset_dir, u) for u in ("test", "valid")}
        if self.usage in listed:
            files = listed[self.usage]
        else:
            files = set()
            for word in os.listdir(dataset_dir):
                folder = os.path.join(dataset_dir, word)
                if os.path.isdir(folder) and "_background_noise_" not in folder:
                    files |= {os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".wav")}
            if not files:
                raise RuntimeError(f"Invalid file, no .wav files found under {dataset_dir}")
            if self.usage == "train":
                files -= listed["test"] | listed["valid"]
        self._items = sorted(files)

    @staticmethod
    def _listed(dataset_dir, usage):
        path = os.path.join(dataset_dir, "testing_list.txt" if usage == "test" else "validation_list.txt")
        if not os.path.isfile(path):
            return set()
        with open(path, encoding="utf-8") as f:
            return {os.path.join(dataset_dir, line.rstrip("\n")) for line in f}

    def _row(self, path):
        wave, rate = read_wave(path)
        name = os.path.basename(path)
        match = re.fullmatch(r"(.*)_nohash_(\d+)\.wav", name)
        if match is None or not match.group(1):
            raise RuntimeError(f"Invalid file name, failed to get file info: {name}")
        return (wave, np.array(rate, np.int32), np.array(os.path.basename(os.path.dirname(path))),
                np.array(match.group(1)), np.array(int(match.group(2)), np.int32))


class LJSpeechDataset(_AudioSource):
    """LJSpeech-1.1: metadata.csv lines `id|transcription|normalized` in file order, audio
    wavs/<id>.wav. Rows waveform, sample_rate (int32), transcription, normalized_transcription."""

    _COLUMNS = ["waveform", "sample_rate", "transcription", "normalized_transcription"]

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler)
        meta = os.path.join(dataset_dir, "metadata.csv")
        if not os.path.isfile(meta):
            raise RuntimeError(f"Invalid file, failed to open metadata file: {meta}")
        with open(meta, encoding="utf-8") as f:
            for line in f.read().split("\n"):
                if line:
                    fields = line.split("|")
                    if len(fields) < 3:
                        raise RuntimeError(f"Invalid file, {meta} line {line!r} has no three '|'-separated fields.")
                    self._items.append((fields[0], fields[1], fields[2]))
        self._found()

    def _row(self, item):
        wave, rate = read_wave(os.path.join(self.dataset_dir, "wavs", item[0] + ".wav"))
        return wave, np.array(rate, np.int32), np.array(item[1]), np.array(item[2])


_GENRES = ("blues", "classical", "country", "disco", "hiphop", "jazz", "metal", "pop", "reggae", "rock")
_GTZAN_SPLITS = {  # usage -> genre -> track numbers (ranges inclusive): the fault-filtered split MindSpore uses
    "train": {
        "blues": "29-49 73-97",
        "classical": "30-33 43-48 50-67 80-99",
        "country": "19-26 28-29 65-99",
        "disco": "5 15-20 22-37 39-45 47 49 53-54 56-57 59 61 70 73-74 89",
        "hiphop": "2-25 28-29 31-38 41-42 55-61 77-80",
        "jazz": "0-1 11-24 41 47-72",
        "metal": "2-3 5 21 24 35 46-57 59-66 69 71-72 79-80 84 86 89-99",
        "pop": "2-9 11-12 16-20 23-29 31-36 38-42 44 46 49-50 80 97-99",
        "reggae": "0-2 4 6 9 11-12 14-32 42-45 49-51 54-60 63 69",
        "rock": "0-9 16-26 57-70 91-99",
    },
    "valid": {
        "blues": "0-11 50-60",
        "classical": "0-10 68-76",
        "country": "0-7 9-18 27 41-42 45 49",
        "disco": "0 2-4 6-14 46 48 52 67-68 72 75 90 95",
        "hiphop": "81-98",
        "jazz": "2-10 25-32",
        "metal": "0-1 6-11 16-20 36-37 68 76-77 81-82",
        "pop": "10 53 55 58-62 81 83-86",
        "reggae": "61-62 70 72 74 76-78 85 92-99",
        "rock": "38 49-56 71-85",
    },
    "test": {
        "blues": "12-28 61-72 98-99",
        "classical": "11-29 34-41 49 77-79",
        "country": "30-40 43-44 46-48 50-51 53-64",
        "disco": "1 21 58 62-66 69 76-88 91-94 96-97 99",
        "hiphop": "0 26-27 30 40 43-45 51-54 62-75 99",
        "jazz": "73-99",
        "metal": "12-15 22-23 25-33 38-39 67 70 73-75 78 83 85 87-88",
        "pop": "0-1 13-14 43 63-66 69-79 82 88-96",
        "reggae": "34-40 46-48 52-53 64-68 71 79 82-84 87-90",
        "rock": "10-15 27-37 39-48 86-90",
    },
}


def _gtzan_split(usage):
    for genre, spec in _GTZAN_SPLITS[usage].items():
        for span in spec.split():
            first, _, last = span.partition("-")
            for i in range(int(first), int(last or first) + 1):
                yield genre, f"{genre}.{i:05d}"


class GTZANDataset(_AudioSource):
    """GTZAN: <genre>/<genre>.<nnnnn>.wav (22050 Hz). usage 'train' / 'valid' / 'test' read the
    fault-filtered split's tracks that exist, in its order; 'all' every .wav named <x>.<y>.wav of
    each genre folder (genres in the standard order). Rows waveform, sample_rate (uint32), label
    (the genre)."""

    _COLUMNS = ["waveform", "sample_rate", "label"]

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        self.usage = check_usage(usage, ("train", "valid", "test", "all"), "all")
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler)
        if self.usage == "all":
            for genre in _GENRES:
                folder = os.path.join(dataset_dir, genre)
                if os.path.isdir(folder):
                    self._items += [(os.path.join(folder, n), genre) for n in sorted(os.listdir(folder))
                                    if n.endswith(".wav") and "." in n[:-4]]
        else:
            for genre, name in _gtzan_split(self.usage):
                path = os.path.join(dataset_dir, genre, name + ".wav")
                if os.path.exists(path):
                    self._items.append((path, genre))
        if not self._items:
            raise RuntimeError(f"Invalid data, no valid data found in path:{dataset_dir}")

    def _row(self, item):
        wave, rate = _checked_rate(item[0], 22050, "GTZAN")
        return wave, rate, np.array(item[1])


_ARCTIC = ("aew", "ahw", "aup", "awb", "axb", "bdl", "clb", "eey", "fem", "gka", "jmk", "ksp", "ljm", "lnh", "rms",
           "rxr", "slp", "slt")


class CMUArcticDataset(_AudioSource):
    """CMU Arctic: cmu_us_<name>_arctic/etc/txt.done.data lines `( arctic_a0001 "text" )` in file
    order, audio wav/arctic_a0001.wav. Rows waveform, sample_rate (uint32), transcript,
    utterance_id (the id without 'arctic_')."""

    _COLUMNS = ["waveform", "sample_rate", "transcript", "utterance_id"]

    def __init__(self, dataset_dir, name=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        if name is not None:
            if not isinstance(name, str):
                raise TypeError(f"Argument name with value {name} is not of type [<class 'str'>], but got "
                                f"{type(name)}.")
            if name not in _ARCTIC:
                raise ValueError(f"Input name is not within the valid set of {list(_ARCTIC)}.")
        self.name = name or "aew"
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler)
        self._base = os.path.join(dataset_dir, f"cmu_us_{self.name}_arctic")
        labels = os.path.join(self._base, "etc", "txt.done.data")
        if not os.path.isfile(labels):
            raise RuntimeError(f"Invalid file, failed to open file: {labels}")
        with open(labels, encoding="utf-8") as f:
            for line in f:
                match = re.match(r'\s*\(\s*(\S+)\s+"(.*)"\s*\)', line)
                if match:
                    self._items.append((match.group(1), match.group(2)))
        self._found()

    def _row(self, item):
        wave, rate = read_wave(os.path.join(self._base, "wav", item[0] + ".wav"))
        utterance = item[0][len("arctic_"):] if item[0].startswith("arctic_") else item[0]
        return wave, np.array(rate, np.uint32), np.array(item[1]), np.array(utterance)


_LIBRITTS = ("dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100", "train-clean-360",
             "train-other-500")


class LibriTTSDataset(_AudioSource):
    """LibriTTS: <usage>/<speaker>/<chapter>/ with a <speaker>_<chapter>.trans.tsv listing
    `utterance\\toriginal\\tnormalized` lines (in its order) and <utterance>.wav (24000 Hz); 'all'
    reads the seven usages in the standard order. Rows waveform, sample_rate (uint32),
    original_text, normalized_text, speaker_id / chapter_id (uint32), utterance_id."""

    _COLUMNS = ["waveform", "sample_rate", "original_text", "normalized_text", "speaker_id", "chapter_id",
                "utterance_id"]

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        self.usage = check_usage(usage, _LIBRITTS + ("all",), "all")
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler)
        for part in (_LIBRITTS if self.usage == "all" else (self.usage,)):
            for label_file in self._label_files(os.path.join(dataset_dir, part)):
                self._read_labels(part, label_file)
        if not self._items:
            raise RuntimeError("Invalid data, no valid data matching the dataset API LibriTTSDataset. Please check "
                               f"dataset API or file path: {dataset_dir}.")

    def _label_files(self, folder):
        """The first *.trans.tsv of each folder, folders walked depth-first in sorted order."""
        if not os.path.isdir(folder):
            return []
        found = []
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if os.path.isdir(path):
                found += self._label_files(path)
            elif len(name) > len(".trans.tsv") and name.endswith(".trans.tsv"):
                return found + [path]
        return found

    def _read_labels(self, part, label_file):
        with open(label_file, encoding="utf-8") as f:
            for line in f.read().split("\n"):
                if not line:
                    continue
                fields = line.split("\t")
                utterance = fields[0]
                pieces = utterance.split("_")
                if len(pieces) != 4 or not pieces[0].isdigit() or not pieces[1].isdigit():
                    raise RuntimeError(f"Invalid file, the file may not be a LibriTTS dataset file: {label_file}")
                self._items.append((part, utterance, fields[1] if len(fields) > 1 else "",
                                    fields[2] if len(fields) > 2 else "", int(pieces[0]), int(pieces[1])))

    def _row(self, item):
        part, utterance, original, normalized, speaker, chapter = item
        path = os.path.join(self.dataset_dir, part, str(speaker), str(chapter), utterance + ".wav")
        wave, rate = _checked_rate(path, 24000, "LibriTTS")
        return (wave, rate, np.array(original), np.array(normalized), np.array(speaker, np.uint32),
                np.array(chapter, np.uint32), np.array(utterance))


def read_sph(path, start_time, end_time):
    """(waveform float32 (1, n), sample rate) of the 16-bit PCM samples [int(start * rate),
    int(end * rate)) of a NIST SPHERE file: the header's size on its second line, sample_rate and
    sample_byte_format ('01' little-endian, '10' or none big-endian) in it; each sample divided by
    32767 as MindSpore divides them."""
    try:
        with open(path, "rb") as f:
            head = f.read(1024)
            tokens = head.split(b"end_head")[0].split()
            size = int(tokens[1]) if len(tokens) > 1 and tokens[1].isdigit() else 1024
            fields = {tokens[i].decode(): tokens[i + 2].decode() for i in range(len(tokens) - 2)
                      if tokens[i] in (b"sample_rate", b"sample_byte_format")}
            rate = int(fields.get("sample_rate", 0))
            first, last = int(start_time * rate), int(end_time * rate)
            f.seek(size + 2 * first)
            data = f.read(2 * (last - first))
    except (OSError, ValueError) as e:
        raise RuntimeError(f"Invalid file, failed to read sph file: {path}: {e}") from None
    if len(data) != 2 * (last - first):
        raise RuntimeError(f"Invalid data, failed to read data part from sph file: {path}, re-download dataset(make "
                           "sure the data is true).")
    order = "<i2" if fields.get("sample_byte_format") == "01" else ">i2"
    wave = (np.frombuffer(data, order).astype(np.float64) / 32767.0).astype(np.float32)
    return wave[None, :], rate


class TedliumDataset(_AudioSource):
    """TED-LIUM release 1 / 2 (<usage>/stm/<talk>.stm and <usage>/sph/<talk>.sph for usage
    'train', 'test', 'dev' or 'all') and release 3 (data/stm, data/sph; usage 'all'). A row per
    stm line `talk channel speaker start end identifier transcript`, rows ordered as MindSpore
    orders them: by the line's number (as a string), then talk, then folder. Rows waveform (the
    segment [start, end) of the talk's audio), sample_rate (int32), transcript, talk_id,
    speaker_id, identifier (strings).

    MindSpore 2.10 returns every waveform as zeros (its reader fills a buffer it sized first and
    then appends to it); the segment's samples are returned here, as documented."""

    _COLUMNS = ["waveform", "sample_rate", "transcript", "talk_id", "speaker_id", "identifier"]

    def __init__(self, dataset_dir, release, usage=None, extensions=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dir(dataset_dir)
        if not isinstance(release, str):
            raise TypeError(f"Argument release with value {release} is not of type [<class 'str'>], but got "
                            f"{type(release)}.")
        if release not in ("release1", "release2", "release3"):
            raise ValueError("Input release is not within the valid set of ['release1', 'release2', 'release3'].")
        valid = ("all",) if release == "release3" else ("train", "test", "dev", "all")
        self.release, self.usage = release, check_usage(usage, valid, "all")
        self.extensions = ".sph" if extensions is None else extensions
        if self.extensions != ".sph":
            raise RuntimeError(f"TedliumNode: extension {self.extensions} is not supported.")
        super().__init__(dataset_dir, num_samples, shuffle, num_shards, shard_id, sampler)
        folders = ["data"] if release == "release3" else (["train", "test", "dev"] if self.usage == "all"
                                                          else [self.usage])
        for folder in folders:
            stm = os.path.join(dataset_dir, folder, "stm")
            if not os.path.isdir(stm):
                raise RuntimeError(f"Invalid file, failed to open folder: {stm}")
            for name in os.listdir(stm):
                if name.endswith(".stm"):
                    lines = _stm_lines(os.path.join(stm, name))
                    self._items += [(str(k), line.split(" ", 1)[0], folder) for k, line in enumerate(lines)]
        self._items.sort()
        if not self._items:
            raise RuntimeError("Invalid data, no valid data matching the dataset API TedliumDataset. Please check "
                               "file path or dataset API.")

    def _row(self, item):
        number, talk, folder = item
        stm = os.path.join(self.dataset_dir, folder, "stm", talk + ".stm")
        fields = _stm_lines(stm)[int(number)].split(" ", 6)
        if len(fields) != 7:
            raise RuntimeError("Invalid data, stm data was broken.")
        wave, rate = read_sph(os.path.join(self.dataset_dir, folder, "sph", talk + self.extensions),
                              float(fields[3]), float(fields[4]))
        return (wave, np.array(rate, np.int32), np.array(fields[6]), np.array(fields[0]), np.array(fields[2]),
                np.array(fields[5]))


def _stm_lines(path):
    with open(path, encoding="utf-8") as f:
        data = f.read()
    lines = data.split("\n")
    return lines[:-1] if data.endswith("\n") or not data else lines
