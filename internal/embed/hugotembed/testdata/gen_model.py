#!/usr/bin/python3
"""Write a BERT encoder with all-MiniLM-L6-v2's shape and random weights.

The graph has the inputs and output of the sentence-transformers ONNX export
(input_ids, attention_mask, token_type_ids -> last_hidden_state), so hugot's
feature-extraction pipeline treats it exactly as it would treat the real
model: same tokenizer ids, same tensor shapes, same compute per token. The
weights are random, so the vectors carry no meaning; tests use it to prove
the plumbing and benchmarks use it to measure speed, never recall quality.

Only fp32 MatMul is used: hugot 0.6.1's pure-Go backend crashes on the
MatMulInteger op of quantised exports.

With --static DIMS it writes instead a static-embedding model in the shape
of Model2Vec's potion-base-8M: one float32 "embeddings" matrix (a row per
tokenizer id, DIMS wide) in model.safetensors and a Model2Vec config.json;
vibe reads it natively (tokenise, look up rows, mean, normalise).

Usage: /usr/bin/python3 gen_model.py OUTDIR [--layers 6] [--seed 1] [--vocab-buckets 0] [--static DIMS]
Needs Debian's python3-onnx (which brings numpy).
"""

import argparse
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

VOCAB = 30522      # bert-base-uncased WordPiece ids, as in tokenizer.json
HIDDEN = 384
HEADS = 12
FFN = 1536
MAX_POS = 512
TYPES = 2
OPSET = 17         # LayerNormalization is a standard op from 17 on


class Graph:
    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.inits = []
        self.n = 0

    def name(self, base):
        self.n += 1
        return "%s_%d" % (base, self.n)

    def weight(self, base, shape, std=0.02):
        n = self.name(base)
        arr = (self.rng.standard_normal(shape) * std).astype(np.float32)
        self.inits.append(numpy_helper.from_array(arr, n))
        return n

    def const(self, base, arr):
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def op(self, kind, inputs, **attrs):
        out = self.name(kind.lower())
        self.nodes.append(helper.make_node(kind, inputs, [out], name=out, **attrs))
        return out

    def linear(self, x, fan_in, fan_out):
        w = self.weight("w", (fan_in, fan_out))
        b = self.const("b", np.zeros(fan_out, dtype=np.float32))
        return self.op("Add", [self.op("MatMul", [x, w]), b])

    def layer_norm(self, x):
        scale = self.const("ln_scale", np.ones(HIDDEN, dtype=np.float32))
        bias = self.const("ln_bias", np.zeros(HIDDEN, dtype=np.float32))
        return self.op("LayerNormalization", [x, scale, bias], axis=-1, epsilon=1e-12)


def build(layers, seed, buckets):
    g = Graph(np.random.default_rng(seed))
    head = HIDDEN // HEADS

    ids, rows = "input_ids", VOCAB
    if buckets:
        # Hash token ids into fewer rows (id mod buckets, with integer ops
        # every backend has) to shrink the file for tests that restart the
        # worker often; the inputs, outputs and widths stay the same.
        n = g.const("buckets", np.array(buckets, dtype=np.int64))
        ids = g.op("Sub", [ids, g.op("Mul", [g.op("Div", [ids, n]), n])])
        rows = buckets
    words = g.op("Gather", [g.weight("word_embeddings", (rows, HIDDEN)), ids], axis=0)
    types = g.op("Gather", [g.weight("token_type_embeddings", (TYPES, HIDDEN)), "token_type_ids"], axis=0)
    seq_len = g.op("Gather", [g.op("Shape", ["input_ids"]), g.const("one", np.array(1, dtype=np.int64))], axis=0)
    positions = g.op("Range", [g.const("zero", np.array(0, dtype=np.int64)), seq_len,
                               g.const("step", np.array(1, dtype=np.int64))])
    pos = g.op("Gather", [g.weight("position_embeddings", (MAX_POS, HIDDEN)), positions], axis=0)
    x = g.layer_norm(g.op("Add", [g.op("Add", [words, types]), pos]))

    # Padding gets a large negative score so attention ignores it.
    mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    mask = g.op("Unsqueeze", [mask, g.const("axes", np.array([1, 2], dtype=np.int64))])
    mask = g.op("Mul", [g.op("Sub", [g.const("one_f", np.array(1.0, dtype=np.float32)), mask]),
                        g.const("neg", np.array(-10000.0, dtype=np.float32))])

    split = g.const("split_heads", np.array([0, 0, HEADS, head], dtype=np.int64))
    merge = g.const("merge_heads", np.array([0, 0, HIDDEN], dtype=np.int64))
    scale = g.const("scale", np.array(1.0 / np.sqrt(head), dtype=np.float32))
    for _ in range(layers):
        def heads(t, perm):
            return g.op("Transpose", [g.op("Reshape", [t, split])], perm=perm)
        q = heads(g.linear(x, HIDDEN, HIDDEN), [0, 2, 1, 3])
        k = heads(g.linear(x, HIDDEN, HIDDEN), [0, 2, 3, 1])
        v = heads(g.linear(x, HIDDEN, HIDDEN), [0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), mask])
        probs = g.op("Softmax", [scores], axis=-1)
        ctx = g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, merge])
        x = g.layer_norm(g.op("Add", [x, g.linear(ctx, HIDDEN, HIDDEN)]))

        h = g.linear(x, HIDDEN, FFN)
        erf = g.op("Erf", [g.op("Div", [h, g.const("sqrt2", np.array(np.sqrt(2.0), dtype=np.float32))])])
        gelu = g.op("Mul", [g.op("Mul", [h, g.const("half", np.array(0.5, dtype=np.float32))]),
                            g.op("Add", [erf, g.const("one_g", np.array(1.0, dtype=np.float32))])])
        x = g.layer_norm(g.op("Add", [x, g.linear(gelu, FFN, HIDDEN)]))

    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))
    dyn = ["batch_size", "sequence_length"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dyn)
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dyn + [HIDDEN])
    graph = helper.make_graph(g.nodes, "minilm_shaped_random", inputs, [output], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="vibe gen_model.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def write_static(outdir, dims, seed):
    """Model2Vec's on-disk shape: safetensors (an 8-byte little-endian header
    length, a JSON header padded to 8 bytes, then the raw tensor)."""
    rng = np.random.default_rng(seed)
    emb = rng.standard_normal((VOCAB, dims)).astype("<f4")
    data = emb.tobytes()
    header = {"embeddings": {"dtype": "F32", "shape": [VOCAB, dims], "data_offsets": [0, len(data)]},
              "__metadata__": {"producer": "vibe gen_model.py (random weights)"}}
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    with open(os.path.join(outdir, "model.safetensors"), "wb") as f:
        f.write(len(raw).to_bytes(8, "little"))
        f.write(raw)
        f.write(data)
    config = {"model_type": "model2vec", "architectures": ["StaticModel"], "hidden_dim": dims,
              "normalize": True, "tokenizer_name": "bert-base-uncased",
              "_comment": "random weights from vibe's gen_model.py; not a trained model"}
    with open(os.path.join(outdir, "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--vocab-buckets", type=int, default=0,
                    help="hash ids into this many embedding rows (0: the full %d-row table)" % VOCAB)
    ap.add_argument("--static", type=int, default=0, metavar="DIMS",
                    help="write a static-embedding (Model2Vec) model of DIMS dims instead of a BERT graph")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    if a.static:
        write_static(a.outdir, a.static, a.seed)
        return
    onnx.save(build(a.layers, a.seed, a.vocab_buckets), os.path.join(a.outdir, "model.onnx"))
    config = {
        "model_type": "bert", "architectures": ["BertModel"], "hidden_size": HIDDEN,
        "num_hidden_layers": a.layers, "num_attention_heads": HEADS, "intermediate_size": FFN,
        "vocab_size": VOCAB, "max_position_embeddings": MAX_POS, "type_vocab_size": TYPES,
        "hidden_act": "gelu", "layer_norm_eps": 1e-12,
        "_comment": "random weights from vibe's gen_model.py; not a trained model",
    }
    if a.vocab_buckets:
        config["_vocab_buckets"] = a.vocab_buckets
    with open(os.path.join(a.outdir, "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
