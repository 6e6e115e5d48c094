// Package embed holds what vibe knows about sentence embeddings without
// running a model: the Embedder interface the worker drives, the catalogue
// of models `vibe model pull` can fetch (files, URLs, published SHA-256
// sums; the static potion-base-8M by default, all-MiniLM-L6-v2 by name),
// the on-disk layout of VIBE_HOME/models/<name>/, the download and
// verification of those files, and Fallback, the pure-Go hashed-token
// embedder that stands in, labelled, while no model is installed. It must
// not import hugot, a tokenizer or any ONNX runtime: the model-backed
// implementations live in the hugotembed sub-package, which only the worker
// binary links, so the CLI and the hooks stay small.
package embed
