"""The conformance table: mindspore.dataset.text's UnicodeScriptTokenizer, FilterWikipediaXML and
CharNGram (through ToVectors): tokens, offsets, cleaned text, vectors, dtypes and shapes, eagerly and
in pipelines, and the wheel's errors (class and its own words: the "[ERROR] ..." line of a pipeline
error, else the first line). Ids start with ``tscript_``. All run on the host (the pipeline, not
graph code); vector files are written by the cases into a temporary directory."""
group("text_script")

_ts_PIPE = dict(graph=False, reason="the dataset pipeline runs on the host")
TSDS = ms.dataset
TSTX = ms.dataset.text


def _ts_plain(o):
    """An output array as the table can hold it: strings as (dtype, shape, nested str lists)."""
    a = np.asarray(o)
    if a.dtype.kind == "U":
        return str(a.dtype), list(a.shape), a.tolist()
    return a


def _ts_out(out):
    return tuple(_ts_plain(o) for o in out) if isinstance(out, (tuple, list)) else _ts_plain(out)


def _ts_error(fn, root=None):
    """The exception's class and MindSpore's own words, with the temporary directory as <dir>."""
    return error_words(fn, [(root, "<dir>")] if root else ())


def _ts_rows(data):
    return [tuple(_ts_plain(c) for c in row) for row in data.create_tuple_iterator(output_numpy=True, num_epochs=1)]


# ---- UnicodeScriptTokenizer ---------------------------------------------------------------------------
_TS_SCRIPT_TEXTS = {
    "latin": "Hello World, MindSpore!",
    "cjk_latin_digits": "我爱MindSpore 123 abc",
    "japanese": "日本語テキストです。カー、ー日本",
    "cyrillic_punct": "Привет, мир! hello",
    "arabic_digits": "مرحبا بالعالم 2024 ١٢٣abc",
    "greek_hebrew": "αβγ שלום abc",
    "hangul_thai_devanagari": "한국어 ภาษาไทย हिन्दी",
    "emoji": "a😀b 😀😀 c👍🏽!",
    "combining": "e\u0301x café naïve a\u0308\u0323b",
    "digits_punct": "abc123def x.y,z!? (1+2)=3 ½ ① Ⅻ",
    "whitespace": "  lead\t\ttab\nline\u3000ideo\u00a0nbsp\u1680 ogham\u2028end  ",
    "zero_width": "ab\u200bcd\u200d\ufeffef\x1cgh",
    "empty": "",
    "spaces_only": "   ",
}


def _ts_script_case(name, s):
    def run():
        return tuple(_ts_out(TSTX.UnicodeScriptTokenizer(keep, offsets)(np.array(s)))
                     for keep in (False, True) for offsets in (False, True))
    add(f"tscript_ust_{name}", "dataset.text.UnicodeScriptTokenizer", run, **_ts_PIPE)


for _ts_name, _ts_s in _TS_SCRIPT_TEXTS.items():
    _ts_script_case(_ts_name, _ts_s)


@case("dataset.text.UnicodeScriptTokenizer", **_ts_PIPE)
def tscript_ust_defaults_and_plain_str():
    op = TSTX.UnicodeScriptTokenizer()
    return _ts_out(op(np.array("Chinese中国 text"))), _ts_out(op("plain str 文字")), op.keep_whitespace, op.with_offsets


@case("dataset.text.UnicodeScriptTokenizer", **_ts_PIPE)
def tscript_ust_pipeline():
    texts = ["北 京", "123", "Hi你好", "   ", "مرحبا 2"]
    plain = TSDS.NumpySlicesDataset(texts, column_names=["text"], shuffle=False)
    plain = plain.map(TSTX.UnicodeScriptTokenizer(), input_columns=["text"])
    offs = TSDS.NumpySlicesDataset(texts, column_names=["text"], shuffle=False)
    offs = offs.map(TSTX.UnicodeScriptTokenizer(keep_whitespace=True, with_offsets=True), input_columns=["text"],
                    output_columns=["token", "offsets_start", "offsets_limit"])
    return _ts_rows(plain), _ts_rows(offs), offs.get_col_names()


@case("dataset.text.UnicodeScriptTokenizer", **_ts_PIPE)
def tscript_ust_errors():
    U = TSTX.UnicodeScriptTokenizer
    return (_ts_error(lambda: U(keep_whitespace=1)), _ts_error(lambda: U(with_offsets="x")),
            _ts_error(lambda: U(None, None)), _ts_error(lambda: U(True, True, 3))[0],
            _ts_error(lambda: U()(np.array(["a b", "c"]))), _ts_error(lambda: U()(np.array(5))),
            _ts_error(lambda: U()(np.array(b"ab cd"))), _ts_error(lambda: U()(np.array([["a"]]))),
            _ts_error(lambda: U()(np.array([]))))


def _ts_code_points():
    """Every code point but the surrogates, in order and in two fixed shuffles (pure Python, so both
    frameworks see the same strings), in chunks of 8192."""
    cps = [c for c in range(1, 0x110000) if not 0xD800 <= c <= 0xDFFF]
    orders = [cps] + [sorted(cps, key=lambda c, k=k: (c * k) % 2 ** 32) for k in (2654435761, 40503)]
    return ["".join(map(chr, o[i:i + 8192])) for o in orders for i in range(0, len(o), 8192)]


@case("dataset.text.UnicodeScriptTokenizer", **_ts_PIPE)
def tscript_every_code_point():
    """Where the tokens start, for every code point next to its neighbours: each chunk's number of
    tokens and a digest of their start offsets (equal digests: equal scripts, run by run)."""
    import hashlib
    op = TSTX.UnicodeScriptTokenizer(keep_whitespace=True, with_offsets=True)
    out = []
    for s in _ts_code_points():
        tokens, starts, _ = op(np.array(s))
        out.append([len(tokens), hashlib.sha256(np.asarray(starts, np.uint32).tobytes()).hexdigest()])
    return out


# ---- FilterWikipediaXML -------------------------------------------------------------------------------
_TS_WIKI_TEXTS = {
    "links": ["'''Anarchism''' is a [[political philosophy]] that advocates [[self-governance|self-governed]].",
              "See [http://example.com/page Example Site] and [[de:Albert Einstein]] [[fr:Albert]].",
              "[[Category:Physicists]]", "[[category:German physicists|Einstein]]",
              "[[image:Einstein_1921.jpg|thumb|right|200px|Albert Einstein in 1921]]"],
    "templates": ["{{Infobox person | name = Albert Einstein | birth_date = {{birth date|1879|3|14}} }}",
                  "{{a}} b {c} d {{e|f}}", "x|thumb|left|right|10px y"],
    "tables": ["{| class=\"wikitable\"\n|-\n! Year !! Event\n|-\n| 1905 || Annus Mirabilis\n|}",
               "{| border=1\n| a || b\n|-\n| c || d\n|}"],
    "refs_tags": ["He was born in 1879 in [[Ulm]].<ref>{{cite book|title=Einstein}}</ref> He moved.",
                  "<ref name=\"a\">x</ref> y <ref>z</ref> w", "<ef>removed</ef> kept",
                  "<text xml:space=\"preserve\">Hello <b>World</b> again</text>",
                  "a<b\nc>d", "<a>b\x85c>d", "<a>b\u2028c>d", "<a>b\rc>d", "<a>b\tc>d"],
    "entities": ["AT&amp;T &lt;b&gt; &quot;quoted&quot; &nbsp; text", "&amp;amp; &#160; &unterminated text"],
    "digits_case": ["0123456789", "e = mc^2 ± 3.14", "Welcome    to    China", "RRR Rome River",
                    "Ölfeld Ästhetik ÜBER", "ﬁve  ＡＢＣ", "ABC", "!!!"],
    "redirect": ["#REDIRECT [[Albert Einstein]]", "#redirect [[X]]", "Some #Redirect text"],
    "newlines": ["line one\n\nline two\n \nline three", "a\n\nb", "a\n b", "a \n b", "\n\nabc\n\n",
                 "\u3000abc\u3000", "\xa0abc\xa0", "\x1cabc\x1f", "Tab\tseparated\tvalues", "", "   "],
}


def _ts_wiki_case(name, lines):
    def run():
        op = TSTX.FilterWikipediaXML()
        return [_ts_plain(op(np.array(s))) for s in lines]
    add(f"tscript_wiki_{name}", "dataset.text.FilterWikipediaXML", run, **_ts_PIPE)


for _ts_name, _ts_lines in _TS_WIKI_TEXTS.items():
    _ts_wiki_case(_ts_name, _ts_lines)


@case("dataset.text.FilterWikipediaXML", **_ts_PIPE)
def tscript_wiki_arrays_and_pipeline():
    """Only an array's first element is filtered (the others come out empty); a pipeline filters
    each row's scalar."""
    op = TSTX.FilterWikipediaXML()
    arrays = [op(np.array(["Hello World", "Second Line"])), op(np.array([["X y", "Z"], ["W", "V"]])),
              op("Plain 12")]
    data = TSDS.NumpySlicesDataset(["Welcome    to    China", "!!!", "[[A|B]] c", "#REDIRECT x"],
                                   column_names=["text"], shuffle=False)
    return [_ts_plain(a) for a in arrays], _ts_rows(data.map(op, input_columns=["text"]))


@case("dataset.text.FilterWikipediaXML", **_ts_PIPE)
def tscript_wiki_errors():
    F = TSTX.FilterWikipediaXML
    return (_ts_error(lambda: F()(np.array(5))), _ts_error(lambda: F()(np.array(b"AB"))),
            _ts_error(lambda: F()(np.array([], dtype=str))), _ts_error(lambda: F(1))[0])


# ---- CharNGram ----------------------------------------------------------------------------------------
_TS_NGRAMS = """2gram-#BEGIN#h 0.1 0.2 0.3
2gram-he 1.0 0.0 -1.0
3gram-hel 0.5 0.5 0.5
4gram-hell 2.0 2.0 2.0
2gram-o#END# -0.5 0.25 1.0
2gram-ab 0.0 0.0 0.0
1gram-h 9 9 9
2gram-é 3 3 3
3gram-caf 0.75 -0.25 4
2gram-fé 1.5 1.5 -1.5
4gram-#BEGIN#wor -2 1 0.5
2gram-rd -1 -1 -1
3gram-ld#END# 0.125 0.5 8
2gram-he 7 7 7
3gram-日 1 1 1
4gram-#BEGIN#日 2 0 0
4gram-本#END# 0 0 4
2gram-本 5 5 5
"""
# MindSpore slices the UTF-8 bytes: "日本" meets "3gram-日" and the 4-grams, never "2gram-本"
_TS_TOKENS = ["hello", "Hello", "HELLO", "xyz", "ab", "é", "café", "CAFÉ", "ÉCOLE", "", "h", "o", "world", "World",
              "日本", "本"]


def _ts_ngram_file(fn, text=_TS_NGRAMS, name="charNgram.txt"):
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return fn(path, d)


@case("dataset.text.CharNGram", "dataset.text.ToVectors", **_ts_PIPE)
def tscript_cng_lookup():
    def run(path, _):
        to_vectors = TSTX.ToVectors(TSTX.CharNGram.from_file(path))
        return [to_vectors(np.array(t)) for t in _TS_TOKENS] + [to_vectors(np.array(_TS_TOKENS)),
                                                                to_vectors(_TS_TOKENS[:3]), to_vectors("hello")]
    return _ts_ngram_file(run)


@case("dataset.text.CharNGram", "dataset.text.ToVectors", **_ts_PIPE)
def tscript_cng_unk_and_lower():
    """unk_init replaces a token with no n-gram, and an n-gram vector equal to it is left out of the
    mean; lower_case_backup lowers ASCII letters only."""
    def run(path, _):
        c = TSTX.CharNGram.from_file(path)
        words = np.array(_TS_TOKENS)
        return (TSTX.ToVectors(c, unk_init=[7, 7, 7])(words), TSTX.ToVectors(c, unk_init=(0.1, 0.2, 0.3))(words),
                TSTX.ToVectors(c, unk_init=[])(words), TSTX.ToVectors(c, lower_case_backup=True)(words),
                TSTX.ToVectors(c, unk_init=[-1, 0, 1], lower_case_backup=True)(words))
    return _ts_ngram_file(run)


@case("dataset.text.CharNGram", "dataset.text.ToVectors", **_ts_PIPE)
def tscript_cng_max_vectors_and_shapes():
    def run(path, _):
        tv = [TSTX.ToVectors(TSTX.CharNGram.from_file(path, max_vectors=m)) for m in (None, 0, 2, 5, 100)]
        looked = [t(np.array(["hello", "café", "world"])) for t in tv]
        shapes = [tv[0](x).shape for x in (np.array("hello"), np.array(["hello"]), np.array([["hello", "ab"],
                                                                                                ["xyz", "o"]]))]
        return looked, [list(s) for s in shapes], tv[0](np.array([["hello", "ab"], ["xyz", "o"]]))
    return _ts_ngram_file(run)


@case("dataset.text.CharNGram", "dataset.text.ToVectors", **_ts_PIPE)
def tscript_cng_pipeline():
    def run(path, _):
        c = TSTX.CharNGram.from_file(path)
        data = TSDS.NumpySlicesDataset(["hello world", "Hello", "café xyz"], column_names=["text"], shuffle=False)
        data = data.map(TSTX.WhitespaceTokenizer(), input_columns=["text"])
        data = data.map(TSTX.ToVectors(c, lower_case_backup=True), input_columns=["text"])
        return _ts_rows(data)
    return _ts_ngram_file(run)


@case("dataset.text.CharNGram", "dataset.text.ToVectors", **_ts_PIPE)
def tscript_cng_errors():
    def run(path, d):
        import os
        C = TSTX.CharNGram
        c = C.from_file(path)
        empty = os.path.join(d, "empty.txt")
        open(empty, "w").close()
        dims = os.path.join(d, "dims.txt")
        with open(dims, "w") as f:
            f.write("2gram-ab 1 2 3\n2gram-cd 1 2\n")
        return [_ts_error(f, d) for f in (
            lambda: C.from_file(path, max_vectors=-1), lambda: C.from_file(path, max_vectors=1.5),
            lambda: C.from_file(path, max_vectors=True), lambda: C.from_file(123),
            lambda: C.from_file(os.path.join(d, "missing.txt")), lambda: C.from_file(empty),
            lambda: C.from_file(dims), lambda: TSTX.ToVectors(c, unk_init=5),
            lambda: TSTX.ToVectors(c, unk_init=["a"]), lambda: TSTX.ToVectors(c, unk_init=[True, 1, 1]),
            lambda: TSTX.ToVectors(c, lower_case_backup=1), lambda: TSTX.ToVectors(c, unk_init=[1, 2])(np.array("x")),
            lambda: TSTX.ToVectors(c)(np.array(1)), lambda: TSTX.ToVectors(c)(np.array([b"ab"])))]
    return _ts_ngram_file(run)
