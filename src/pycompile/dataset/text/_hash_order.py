"""The order in which MindSpore's `Vocab.vocab()` lists its words: the iteration order of the
C++ `std::unordered_map<std::string, int32_t>` (GCC's libstdc++, which the wheel is built with)
that the words were inserted into one by one. Reproduced here so a printed vocabulary reads as
MindSpore prints it (the tutorials print one).

libstdc++ hashes a string with `_Hash_bytes` (a 64-bit MurmurHash2 variant, seed 0xc70f6907),
keeps all nodes on one singly linked list with each bucket pointing at the node before its
first one, puts a node that lands in an empty bucket at the front of the list and one that
lands in an occupied bucket right after the bucket's first node, and rehashes to a larger prime
bucket count as the map grows (the counts below, observed for one-at-a-time inserts).
"""
from __future__ import annotations

_MASK = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995
_SEED = 0xC70F6907
# bucket count reached when the map holds n elements (libstdc++'s prime rehash policy, max load 1)
_GROWTH = [(1, 13), (14, 29), (30, 59), (60, 127), (128, 257), (258, 541), (542, 1109), (1110, 2357),
           (2358, 5087), (5088, 10273), (10274, 20753), (20754, 42043), (42044, 85229), (85230, 172933),
           (172934, 351061), (351062, 712697), (712698, 1447153), (1447154, 2938679), (2938680, 5967347)]
_GROW_AT = dict(_GROWTH)


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def string_hash(word: str) -> int:
    """std::hash<std::string> of the word's UTF-8 bytes (libstdc++, 64-bit)."""
    data = word.encode("utf-8")
    n = len(data)
    h = (_SEED ^ (n * _MUL)) & _MASK
    whole = n & ~7
    for i in range(0, whole, 8):
        k = int.from_bytes(data[i:i + 8], "little")
        h = ((h ^ ((_shift_mix((k * _MUL) & _MASK) * _MUL) & _MASK)) * _MUL) & _MASK
    if n & 7:
        h = ((h ^ int.from_bytes(data[whole:], "little")) * _MUL) & _MASK
    h = (_shift_mix(h) * _MUL) & _MASK
    return _shift_mix(h)


def _reserved_buckets(n: int):
    """The bucket count `reserve(n)` gives (libstdc++'s _M_next_bkt: its small table, then the
    least prime of its prime list >= n, read from the C++ runtime), or None where unknown."""
    small = [1, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13]
    if n < len(small):
        return small[n]
    try:
        import ctypes
        table = (ctypes.c_ulong * 256).in_dll(ctypes.CDLL("libstdc++.so.6"), "_ZNSt8__detail12__prime_listE")
    except (OSError, ValueError):
        return None
    return next((p for p in table if p >= n), None)


def unordered_map_order(words, reserve: bool = False) -> list:
    """`words` (inserted in this order, no repeats) in the map's iteration order; reserve: the map
    was sized for them first (pybind11 does that when it converts a Python dict)."""
    head = -1
    nxt = {head: None}
    hashes = [string_hash(w) for w in words]
    nbkt = _reserved_buckets(len(words)) if reserve and words else None
    if nbkt is None and reserve:
        return list(words)
    growth = {} if reserve else _GROW_AT
    nbkt = nbkt or 1
    buckets = [None] * nbkt
    for node, h in enumerate(hashes):
        grown = growth.get(node + 1)
        if grown:                                    # rehash before inserting (_M_rehash_aux)
            nbkt, new = grown, [None] * grown
            p, nxt[head], first_bkt = nxt[head], None, 0
            while p is not None:
                q, b = nxt[p], hashes[p] % nbkt
                if new[b] is None:
                    nxt[p], nxt[head], new[b] = nxt[head], p, head
                    if nxt[p] is not None:
                        new[first_bkt] = p
                    first_bkt = b
                else:
                    nxt[p], nxt[new[b]] = nxt[new[b]], p
                p = q
            buckets = new
        b = h % nbkt
        if buckets[b] is not None:                   # _M_insert_bucket_begin
            nxt[node], nxt[buckets[b]] = nxt[buckets[b]], node
        else:
            nxt[node], nxt[head] = nxt[head], node
            if nxt[node] is not None:
                buckets[hashes[nxt[node]] % nbkt] = node
            buckets[b] = head
    out, p = [], nxt[head]
    while p is not None:
        out.append(words[p])
        p = nxt[p]
    return out
