"""Builds a large dict of small objects, drops it at once, then carries on with small work.

heaplab records this to see what allocators give back after a large free phase: the
dict's entries (keys, tuples, strings, lists) are freed together when it is deleted, and
the program goes on calling malloc and free for a while after, so an allocator that
returns memory only when it is next called, after a delay, has its chance to.
"""
import random

rng = random.Random(1)
big = {}
for i in range(30_000):
    big[f"key-{i:07d}"] = (i, str(rng.random()), [i] * (i % 5))
total = sum(v[0] for v in big.values())
del big
small = {}
for i in range(40_000):
    small[i % 500] = f"value-{i}"
print(total, len(small))
