"""pywork.py -- the python3 workload: an interpreter that allocates
heavily (dicts, lists, tuples, strings, objects, JSON), as a web service's
request handling does.  Under PYTHONMALLOC=malloc every object goes
through malloc; under the default pymalloc only arenas and large objects
do.

usage: python3 pywork.py [rounds]    (default 300000)
"""
import json
import random
import sys


class Record:
    __slots__ = ("key", "values", "meta")

    def __init__(self, key, values, meta):
        self.key = key
        self.values = values
        self.meta = meta


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 300000
    rng = random.Random(1)
    table = {}
    total = 0
    for i in range(rounds):
        k = "key-%d" % rng.randrange(50000)
        rec = Record(k, [i, str(i), (i, k)], {"n": i, "tags": ["a" * (i % 40), k]})
        table[k] = rec
        if i % 3 == 0:
            table.pop("key-%d" % rng.randrange(50000), None)
        if i % 1000 == 0:
            blob = json.dumps([[r.key, r.values[1], r.meta] for r in list(table.values())[:200]])
            total += len(json.loads(blob))
        total += len(rec.values)
    words = sorted("".join(chr(97 + (i * j) % 26) for j in range(1 + i % 24)) for i in range(rounds // 4))
    print(total, len(table), len(words))


main()
