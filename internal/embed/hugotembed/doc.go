// Package hugotembed holds the model-backed embed.Embedder implementations:
// hugot's feature-extraction pipeline on its pure-Go (simplego) backend,
// mean pooled and L2-normalised, over an fp32 ONNX graph and an HF
// tokenizer.json; and Static, a Model2Vec static-embedding model (a token
// table in model.safetensors) read natively with hugot's Go tokenizer
// (sugarme/tokenizer), the default because it answers a query in
// microseconds. Load picks one by the files a model directory holds. It is
// the only package in vibe that imports github.com/knights-analytics/hugot;
// only the embed worker binary may import it, never a hook or the CLI
// (`make deps-check` enforces this). hugot 0.6.1's Go backend panics on
// MatMulInteger, so quantised graphs are refused by a recovered panic, not
// supported.
package hugotembed
