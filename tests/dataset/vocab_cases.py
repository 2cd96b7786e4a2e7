"""Vocab cases (stdlib only) for tests/oracle/record_vocab_order.py and
tests/dataset/test_vocab_order_data35.py: the order Vocab.vocab() lists its words in."""

CASES = {
    "list_3": ("from_list", {"word_list": ["a", "b", "c"]}),
    "list_8": ("from_list", {"word_list": [f"w{i}" for i in range(8)]}),
    "list_30": ("from_list", {"word_list": [f"w{i}" for i in range(30)]}),
    "list_700_special": ("from_list", {"word_list": [f"t{i}" for i in range(700)], "special_tokens": ["<s>"]}),
    "list_special_first": ("from_list", {"word_list": ["x", "y", "z"], "special_tokens": ["<pad>", "<unk>"],
                                         "special_first": True}),
    "list_special_last": ("from_list", {"word_list": ["x", "y", "z"], "special_tokens": ["<pad>", "<unk>"],
                                        "special_first": False}),
    "dict_4": ("from_dict", {"word_dict": {"q": 3, "b": 9, "zz": 1, "k": 0}}),
    "dict_40": ("from_dict", {"word_dict": {f"d{i}": i * 3 for i in range(40)}}),
    "dict_300": ("from_dict", {"word_dict": {f"e{i}": i for i in range(300)}}),
    "list_unicode": ("from_list", {"word_list": ["北京", "é", "ß", "naïve", "a longer word than eight bytes"]}),
}
