"""mindspore.dataset.text's UnicodeScriptTokenizer and FilterWikipediaXML, as MindSpore 2.10 computes
them (its ICU 74 kernels; checked against the wheel in tests/conformance/cases_text_script.py).

UnicodeScriptTokenizer splits a string where the Unicode Script property changes, or where a
White_Space character meets a non-whitespace one. Common (punctuation, digits, emoji, symbols)
and Inherited (combining marks) are scripts like any other there: "x.y" is three tokens, and
"e" + U+0301 two. Python's unicodedata has no Script property; the `regex` package (the `text`
extra) answers `\\p{sc=...}` from the Unicode Character Database of its release and is kept up
to date, so it is asked instead of a table copied here. ICU 74 knows Unicode 15.1, where later
characters are Unknown: the scripts encoded after it (Unicode 16 to 18) are left out of the list
below, and the characters those versions added to older scripts are listed (`_AFTER_15_1`), so every
code point gets the wheel's script with any `regex` from Unicode 15.1 to 18 (the conformance case
tscript_every_code_point checks them all). A `regex` on a later Unicode assigns more characters,
which then need adding to that list.

FilterWikipediaXML reduces Wikipedia markup to lower-case words: MindSpore applies a fixed list
of regular-expression replacements, trimming the text after each, to the first element of its
input (the others come out empty) and empties any text that holds "#redirect" or "#REDIRECT".
"""
from __future__ import annotations

import bisect
import functools
import itertools
import re

import numpy as np

from pycompile.dataset.transforms._base import TensorOperation

# ISO 15924 codes of the scripts of Unicode 15.1 (ICU 74), the usual ones first for speed
_SCRIPTS = """Zyyy Latn Hani Zinh Cyrl Arab Hira Kana Hang Grek Hebr Deva Thai Beng Taml Telu Knda Mlym Gujr Guru
Orya Sinh Tibt Mymr Geor Ethi Armn Khmr Laoo Thaa Syrc Nkoo Samr Mand Bopo Copt Cher Cans Ogam Runr Tglg Hano
Buhd Tagb Mong Limb Tale Talu Bugi Lana Bali Sund Batk Lepc Olck Brai Glag Tfng Yiii Lisu Vaii Bamu Sylo Phag
Saur Kali Rjng Java Cham Tavt Mtei Linb Lyci Cari Ital Goth Perm Ugar Xpeo Dsrt Shaw Osma Osge Elba Aghb Vith
Lina Cprt Armi Palm Nbat Hatr Phnx Lydi Mero Merc Khar Sarb Narb Mani Avst Prti Phli Phlp Orkh Hung Rohg Yezi
Sogo Sogd Ougr Chrs Elym Brah Kthi Sora Cakm Mahj Shrd Khoj Mult Sind Gran Newa Tirh Sidd Modi Takr Ahom Dogr
Wara Diak Nand Zanb Soyo Pauc Bhks Marc Gonm Gong Maka Kawi Xsux Cpmn Egyp Hluw Mroo Tnsa Bass Hmng Medf Plrd
Tang Nshu Kits Dupl Sgnw Hmnp Toto Wcho Nagm Mend Adlm""".split()
_UNKNOWN = "Zzzz"     # unassigned and private-use code points, and scripts ICU 74 does not know
# code points Unicode 16.0 to 18.0 assigned to scripts of 15.1: unassigned (Unknown) for ICU 74
_AFTER_15_1 = """558 58B-58C 5C8-5C9 88F 897 B53-B54 C5C CDC 1ACF-1AF0 1B4E-1B4F 1B7F 1C89-1C8A 208F 209D-209F 20C1-20C4
2427-2429 2B96 2E60-2E63 31E4-31E5 A7CB-A7CF A7D2 A7D4 A7DA-A7DD A7E2 A7F1 AB6C-AB6D FBC3-FBD2 FD90-FD91 FDC8-FDCE
107BB-107BF 10EC2-10EC7 10EC9-10EEE 10EF0-10EFC 116D0-116E3 11B0A 11B60-11B67 11DF0-11DF1 11F5A 1246F 12475-1247F
12550-125A7 1264C-12686 13460-143FA 16FF2-16FF6 187F8-187FF 18CD6-18CDA 18CFF 18D09-18D20 18D80-18DF2 1B123-1B128
1B168 1CC00-1CCFC 1CD00-1CEB3 1CEBA-1CED0 1CED2-1CED4 1CEDD-1CEFD 1D127-1D128 1D1EB-1D1FF 1D250-1D281 1D6A6
1DB00-1DB1C 1DF1F-1DF24 1DF2B-1DF81 1DF90-1DF96 1DFCD-1DFFF 1F1AE 1F6D8-1F6D9 1F777-1F77A 1F7DA-1F7DB 1F7F1-1F7FF
1F8B2-1F8BB 1F8C0-1F8C1 1F8D0-1F8D8 1FA54-1FA57 1FA89-1FA8F 1FABE 1FAC6 1FAC8 1FACC-1FACD 1FADC-1FADD 1FADF
1FAE9-1FAEB 1FAEF 1FAF9-1FAFA 1FBCB-1FBEF 1FBFA 2B73A-2B73F 2B81E 2CEA2-2CEAD 323B0-33479"""


@functools.lru_cache(maxsize=1)
def _script_pattern():
    try:
        import regex
    except ImportError:
        raise ImportError("UnicodeScriptTokenizer reads the Unicode Script property with the 'regex' package: "
                          "pip install regex (or pycompile[text])") from None
    return regex.compile("|".join(fr"(?P<{s}>\p{{sc={s}}})" for s in _SCRIPTS)), regex.compile(r"\p{White_Space}")


@functools.lru_cache(maxsize=1)
def _after_15_1() -> tuple:
    """_AFTER_15_1 as sorted range starts and their ends."""
    ranges = [[int(v, 16) for v in r.split("-")] for r in _AFTER_15_1.split()]
    return [r[0] for r in ranges], [r[-1] for r in ranges]


@functools.lru_cache(maxsize=1 << 16)
def _run_key(ch: str) -> tuple:
    """(script, is whitespace) of one character: a token is a run of characters with one key."""
    scripts, space = _script_pattern()
    starts, ends = _after_15_1()
    i = bisect.bisect_right(starts, ord(ch)) - 1
    m = None if i >= 0 and ord(ch) <= ends[i] else scripts.match(ch)
    return (m.lastgroup if m else _UNKNOWN), space.match(ch) is not None


def _fail(message: str) -> RuntimeError:
    from pycompile.dataset.workers import pipeline_error
    return pipeline_error(message)


def _string_input(x, op: str, scalar: bool) -> np.ndarray:
    """`x` as a NumPy str array; MindSpore's errors for no data and for what its kernel refuses."""
    a = np.asarray(x)
    if a.size == 0:
        raise _fail("Input Tensor has no data.")
    if a.dtype.kind != "U" or (scalar and a.ndim != 0):
        raise _fail(f"{op}: the input shape should be scalar and the input datatype should be string." if scalar
                    else f"{op}: input is not of type string.")
    return a


class UnicodeScriptTokenizer(TensorOperation):
    """A scalar string split into runs of one Unicode script (whitespace runs apart, dropped
    unless `keep_whitespace`); with `with_offsets`, also the UTF-8 byte offsets where each token
    starts and ends (uint32)."""

    def __init__(self, keep_whitespace: bool = False, with_offsets: bool = False):
        if not isinstance(keep_whitespace, bool):
            raise TypeError("Wrong input type for keep_whitespace, should be boolean.")
        if not isinstance(with_offsets, bool):
            raise TypeError("Wrong input type for with_offsets, should be boolean.")
        self.keep_whitespace, self.with_offsets = keep_whitespace, with_offsets

    def _apply(self, x):
        text = str(_string_input(x, "UnicodeScriptTokenizerOp", scalar=True))
        tokens, starts, limits, at = [], [], [], 0
        for (_, space), run in itertools.groupby(text, key=_run_key):
            token = "".join(run)
            size = len(token.encode("utf-8"))
            if self.keep_whitespace or not space:
                tokens.append(token)
                starts.append(at)
                limits.append(at + size)
            at += size
        if not tokens:                  # MindSpore's tokenizers give one empty token for no token
            tokens, starts, limits = [""], [0], [0]
        words = np.array(tokens)
        if not self.with_offsets:
            return words
        return words, np.array(starts, np.uint32), np.array(limits, np.uint32)


# ICU's "." stops at these line terminators; Python's stops at "\n" only
_ICU_DOT = r"[^\n\x0b\x0c\r\x85\u2028\u2029]"
# what ICU's UnicodeString::trim() removes: U+0020 and u_isWhitespace (no no-break spaces)
_ICU_TRIM = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \u1680" + "".join(map(chr, range(0x2000, 0x200b))).replace("\u2007", "") \
    + "\u2028\u2029\u205f\u3000"

# MindSpore's replacements, (pattern, replacement), in Python's syntax. MindSpore holds them in a
# std::map keyed by the pattern, so they run in the order of the patterns' text (sorted below):
# "&[^;]*;" turns every entity into a space before "&amp;" could, digits are spelled out, tags go,
# A-Z are lowered ("R" is deleted: MindSpore's table maps it to ""), everything but a-z and "\n"
# becomes a space, and only then the bracket rules run (finding nothing left to match).
_WIKI_RULES = sorted([
    (r"<.*>", ""), (r"&amp;", "&"), (r"&lt;", "<"), (r"&gt;", ">"), (r"<ef[^<]*<\/ef>", ""), (r"<[^>]*>", ""),
    (r"\[http:[^] ]*", "["), (r"\|thumb", ""), (r"\|left", ""), (r"\|right", ""), (r"\|\d+px", ""),
    (r"\[\[image:[^\[\]]*\|", ""), (r"\[\[category:([^|\]]*)[^]]*\]\]", r"[[\1]]"), (r"\[\[[a-z\-]*:[^\]]*\]\]", ""),
    (r"\[\[[^\|\]]*\|", "[["), (r"\{\{[^\}]*\}\}", ""), (r"\{[^\}]*\}", ""), (r"\[", ""), (r"\]", ""),
    (r"&[^;]*;", " "),
    *((chr(c), "" if chr(c) == "R" else chr(c).lower()) for c in range(ord("A"), ord("Z") + 1)),
    *((str(d), f" {w} ") for d, w in enumerate("zero one two three four five six seven eight nine".split())),
    (r"[^a-z\n]+", " "), (r"\n ", ""), (r"\s+", " "),
    (r"\n\s*\n", "n"),           # ICU reads the replacement "\n" as an escaped "n"
])


@functools.lru_cache(maxsize=1)
def _wiki_rules():
    return [(re.compile(p.replace(".", _ICU_DOT) if p == "<.*>" else p), r) for p, r in _WIKI_RULES]


def _filter_wiki(text: str) -> str:
    if "#redirect" in text or "#REDIRECT" in text:
        return ""
    for pattern, replacement in _wiki_rules():
        text = pattern.sub(replacement, text).strip(_ICU_TRIM)
    return text


class FilterWikipediaXML(TensorOperation):
    """Wikipedia XML text cleaned to lower-case a-z words separated by single spaces. As MindSpore
    does, only the first element of an array is filtered; the others come out empty."""

    def _apply(self, x):
        a = _string_input(x, "RegexReplace", scalar=False)     # sic: MindSpore's kernel names RegexReplace
        out = [""] * a.size
        out[0] = _filter_wiki(str(a.reshape(-1)[0]))
        return np.array(out).reshape(a.shape)
