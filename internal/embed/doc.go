// Package embed holds what vibe knows about sentence embeddings without
// running a model: the Embedder interface the worker drives, the catalogue
// of models `vibe model pull` can fetch (files, URLs, published SHA-256
// sums), the on-disk layout of VIBE_HOME/models/<name>/, and the download
// and verification of those files. It must not import hugot or any ONNX
// runtime: the one implementation lives in the hugotembed sub-package, which
// only the worker binary links, so the CLI and the hooks stay small.
package embed
