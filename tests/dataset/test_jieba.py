"""JiebaTokenizer beyond the conformance table (tests/conformance/cases_text_jieba.py, MindSpore's
recorded outputs): on a random dictionary and HMM, MP is checked against a brute-force search of
the maximum-probability segmentation, HMM against a brute-force search of the best state sequence,
and MIX against MP with its single-character runs cut by the HMM; offsets against the UTF-8 bytes;
worker processes; and the errors pycompile raises where MindSpore's process aborts."""
from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

import pycompile.dataset as ds
from pycompile.dataset.text import JiebaMode, JiebaTokenizer

ALPHABET = "天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏闰余成岁律吕调阳云腾致雨露结为霜"
UNKNOWN = "甲乙丙"                   # in neither file
HMM_CHARS = ALPHABET[:24]           # the others have no emission probability
SEPARATORS = " \t\n\uff0c\u3002"


def _model(seed: int):
    """A random dictionary {word: freq} and HMM (start, trans, emit) over ALPHABET."""
    rng = random.Random(seed)
    words = {}
    while len(words) < 90:          # most over ALPHABET[:12], so that words overlap
        chars = ALPHABET[:12] if len(words) < 60 else ALPHABET
        w = "".join(rng.choice(chars) for _ in range(rng.choice((1, 2, 2, 2, 3, 3, 4))))
        words[w] = rng.randint(1, 5000)
    words.update({"ab": 40, "x1": 7})
    start = [math.log(0.6), -3.14e100, -3.14e100, math.log(0.4)]
    neg = -3.14e100
    trans = [[neg, math.log(0.6), math.log(0.4), neg], [math.log(0.55), neg, neg, math.log(0.45)],
             [neg, math.log(0.7), math.log(0.3), neg], [math.log(0.5), neg, neg, math.log(0.5)]]
    emit = [{c: -rng.uniform(3, 12) for c in HMM_CHARS} for _ in range(4)]
    return words, start, trans, emit


def _write(tmp_path, seed: int):
    words, start, trans, emit = _model(seed)
    mp = tmp_path / f"dict{seed}.utf8"
    mp.write_text("".join(f"{w} {f} n\n" for w, f in words.items()), encoding="utf-8")
    hmm = tmp_path / f"hmm{seed}.utf8"
    lines = ["#start", " ".join(repr(p) for p in start), "#trans"] + [" ".join(repr(p) for p in row) for row in trans]
    for probs in emit:
        lines += ["#emit", ",".join(f"{c}:{p!r}" for c, p in probs.items())]
    hmm.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(hmm), str(mp), (words, start, trans, emit)


def _weights(words):
    total = float(sum(words.values()))
    weights = {w: math.log(f / total) for w, f in words.items()}
    return weights, min(weights.values())


def _best_segmentations(text, weights, min_weight):
    """All segmentations of `text` (pieces: dictionary words or single characters) with the best
    total weight, by exhaustive search."""
    n = len(text)
    best, found = -math.inf, []
    for cuts in itertools.product((False, True), repeat=n - 1):
        pieces, start = [], 0
        for i, cut in enumerate(cuts, 1):
            if cut:
                pieces.append(text[start:i])
                start = i
        pieces.append(text[start:])
        if any(len(p) > 1 and p not in weights for p in pieces):
            continue
        score = sum(weights.get(p, min_weight) for p in pieces)
        if score > best + 1e-9:
            best, found = score, [pieces]
        elif abs(score - best) <= 1e-9:
            found.append(pieces)
    return best, found


def _best_states(text, start, trans, emit):
    """The B/E/M/S sequence of the best score ending in E or S, by exhaustive search; None on a tie."""
    scored = []
    for states in itertools.product(range(4), repeat=len(text)):
        if states[-1] not in (1, 3):
            continue
        score = start[states[0]] + emit[states[0]][text[0]]
        for prev, s, c in zip(states, states[1:], text[1:]):
            score += trans[prev][s] + emit[s][c]
        scored.append((score, states))
    scored.sort(reverse=True)
    if len(scored) > 1 and abs(scored[0][0] - scored[1][0]) <= 1e-9:
        return None
    return scored[0][1]


def _cut_at_states(text, states):
    words, begin = [], 0
    for i, s in enumerate(states):
        if s in (1, 3):
            words.append(text[begin:i + 1])
            begin = i + 1
    return words


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mp_is_the_maximum_probability_segmentation(tmp_path, seed):
    hmm, mp, (words, *_) = _write(tmp_path, seed)
    weights, min_weight = _weights(words)
    tok = JiebaTokenizer(hmm, mp, mode=JiebaMode.MP)
    rng = random.Random(seed)
    unique = 0
    for _ in range(150):
        text = "".join(rng.choice(ALPHABET[:12] + UNKNOWN) for _ in range(rng.randint(1, 9)))
        got = [str(t) for t in tok(text)]
        assert "".join(got) == text
        assert all(len(p) == 1 or p in weights for p in got)
        best, found = _best_segmentations(text, weights, min_weight)
        assert sum(weights.get(p, min_weight) for p in got) == pytest.approx(best, abs=1e-9)
        if len(found) == 1:
            unique += 1
            assert got == found[0]
    assert unique > 100


@pytest.mark.parametrize("seed", [4, 5])
def test_hmm_is_the_best_state_sequence(tmp_path, seed):
    hmm, mp, (_, start, trans, emit) = _write(tmp_path, seed)
    tok = JiebaTokenizer(hmm, mp, mode=JiebaMode.HMM)
    rng = random.Random(seed)
    for _ in range(60):
        text = "".join(rng.choice(HMM_CHARS) for _ in range(rng.randint(1, 6)))
        states = _best_states(text, start, trans, emit)
        if states is not None:
            assert [str(t) for t in tok(text)] == _cut_at_states(text, states)


def _ranges(text):
    """cppjieba's pieces: the text cut at the separators, each separator a piece of its own."""
    out, begin = [], 0
    for i, c in enumerate(text):
        if c in SEPARATORS:
            out += [text[begin:i], c] if begin < i else [c]
            begin = i + 1
    return out + ([text[begin:]] if begin < len(text) else [])


@pytest.mark.parametrize("seed", [6, 7, 8])
def test_mix_is_mp_with_single_character_runs_cut_by_hmm(tmp_path, seed):
    hmm_path, mp_path, (words, *_) = _write(tmp_path, seed)
    mix = JiebaTokenizer(hmm_path, mp_path)
    mp = JiebaTokenizer(hmm_path, mp_path, mode=JiebaMode.MP)
    hmm = JiebaTokenizer(hmm_path, mp_path, mode=JiebaMode.HMM)
    rng = random.Random(seed)
    ascii_bits = ["ab", "abc1", "x1", "3.5", "42", ".", "-"]
    pool = list(ALPHABET + UNKNOWN) + list(words) + ascii_bits + ["é", "😀"] + list(SEPARATORS)
    for _ in range(200):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(1, 14)))
        expected = []
        for piece in _ranges(text):
            run = ""
            for token in (str(t) for t in mp(piece)):
                if len(token) == 1:
                    run += token
                    continue
                if run:
                    expected += [str(t) for t in hmm(run)]
                    run = ""
                expected.append(token)
            if run:
                expected += [str(t) for t in hmm(run)]
        assert [str(t) for t in mix(text)] == expected, text


def test_offsets_are_utf8_byte_offsets(tmp_path):
    hmm, mp, _ = _write(tmp_path, 9)
    rng = random.Random(9)
    pool = list(ALPHABET) + ["a", "b1", "2.5", "é", "😀", " ", "\uff0c"]
    for mode in JiebaMode:
        tok = JiebaTokenizer(hmm, mp, mode=mode, with_offsets=True)
        for _ in range(50):
            text = "".join(rng.choice(pool) for _ in range(rng.randint(1, 12)))
            tokens, begins, ends = tok(np.array(text))
            assert begins.dtype == np.uint32 and ends.dtype == np.uint32
            data = text.encode("utf-8")
            assert [data[a:b].decode("utf-8") for a, b in zip(begins, ends)] == tokens.tolist()
            assert begins[0] == 0 and ends[-1] == len(data) and (begins[1:] == ends[:-1]).all()


def test_workers_give_the_eager_result(tmp_path):
    hmm, mp, _ = _write(tmp_path, 10)
    tok = JiebaTokenizer(hmm, mp, with_offsets=True)
    tok.add_word("天地玄黄", 30)
    tok(np.array("天地"))               # a built tokenizer must still reach the workers
    rng = random.Random(10)
    texts = ["".join(rng.choice(ALPHABET + " ab1") for _ in range(rng.randint(1, 15))) for _ in range(24)]
    data = ds.NumpySlicesDataset(texts, column_names=["text"], shuffle=False)
    data = data.map(tok, input_columns=["text"], output_columns=["token", "start", "limit"], num_parallel_workers=2,
                    python_multiprocessing=True)
    rows = list(data.create_tuple_iterator(output_numpy=True, num_epochs=1))
    assert len(rows) == len(texts)
    for text, row in zip(texts, rows):
        for got, want in zip(row, tok(text)):
            np.testing.assert_array_equal(got, want)
            assert got.dtype.kind == want.dtype.kind


def test_changed_file_is_read_again(tmp_path):
    hmm, mp, _ = _write(tmp_path, 11)
    with open(mp, "a", encoding="utf-8") as f:
        f.write("天地玄黄宇 100000 n\n")
    assert JiebaTokenizer(hmm, mp, mode=JiebaMode.MP)("天地玄黄宇").tolist() == ["天地玄黄宇"]
    with open(mp, "a", encoding="utf-8") as f:
        f.write("天 100000000 n\n地玄黄宇 100000000 n\n")
    assert JiebaTokenizer(hmm, mp, mode=JiebaMode.MP)("天地玄黄宇").tolist() == ["天", "地玄黄宇"]


@pytest.mark.parametrize("line", ["零 0 n", "负 -3 n", "字 abc n"])
def test_dictionary_frequency_not_positive(tmp_path, line):
    """MindSpore's process aborts (cppjieba's assert); pycompile raises."""
    hmm, mp, _ = _write(tmp_path, 12)
    with open(mp, "a", encoding="utf-8") as f:
        f.write(line + "\n")
    with pytest.raises(RuntimeError, match="frequency of a dictionary word must be positive"):
        JiebaTokenizer(hmm, mp)("天地")


@pytest.mark.parametrize("emission", ["天-3.0", "天地:-3.0", "天:-3.0,,地:-2.0", "天:-3.0, 地:-2.0"])
def test_malformed_emission_line(tmp_path, emission):
    """MindSpore's process aborts (cppjieba's XCHECK); pycompile raises MindSpore's HMM error."""
    hmm, mp, _ = _write(tmp_path, 13)
    with open(hmm, encoding="utf-8") as f:
        lines = f.read().splitlines()
    lines[-1] = emission
    with open(hmm, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    with pytest.raises(RuntimeError, match="HMMSegment algorithm file format is incorrect"):
        JiebaTokenizer(hmm, mp, mode=JiebaMode.HMM)("天地")


def test_missing_emission_lines(tmp_path):
    hmm, mp, _ = _write(tmp_path, 14)
    with open(hmm, encoding="utf-8") as f:
        lines = f.read().splitlines()
    with open(hmm, "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:-2]) + "\n")
    with pytest.raises(RuntimeError, match="HMMSegment algorithm file format is incorrect"):
        JiebaTokenizer(hmm, mp)("天地")
