import json, random
random.seed(7)
docs = []
for i in range(1500):
    d = {"id": i, "name": "item-%d" % i, "tags": [random.choice("abcdefgh") * random.randint(1, 40) for _ in range(random.randint(1, 8))],
         "values": [random.random() for _ in range(random.randint(0, 30))]}
    docs.append(d)
text = json.dumps(docs)
back = json.loads(text)
words = {}
for d in back:
    for t in d["tags"]:
        words[t] = words.get(t, 0) + 1
del docs, back
print(len(text), len(words))
