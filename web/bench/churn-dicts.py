# The program `cargo xtask bench --long` records (with PYTHONMALLOC=malloc, so every
# object is a malloc call) and streams through the page: it builds a dict of small objects
# and drops it, ROUNDS times (the first argument, 6 by default), then exits with almost
# nothing live. Much churn, a modest peak, a large free phase after each round.
import random
import sys

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 6
random.seed(11)
total = 0
for round in range(rounds):
    d = {}
    for i in range(70_000):
        d["key-%d-%d" % (round, i)] = [random.random(), "v" * random.randint(1, 60), (i, i + 1)]
    total += sum(len(v[1]) for v in d.values())
    del d
print(total)
