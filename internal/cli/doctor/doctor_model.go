package doctor

import (
	"github.com/vibe-science/vibe/internal/cli/status"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
)

// modelCheck is the embedding model's line: ok when the current model is
// installed; a warning when it is not, since recall then ranks by words
// only (the fallback hashed-token embedder stands in, and its vectors hash
// words; with VIBE_EMBED_FALLBACK=off there are no vectors at all), with
// the command that installs it.
func modelCheck(p config.Paths, model string, getenv func(string) string) Check {
	dir := embed.Dir(p.Models, model)
	if embed.Ready(dir) == nil {
		return Check{"embedding model", true, status.ModelState(p, model, getenv), ""}
	}
	detail := model + " is not installed: semantic recall runs on the fallback hashed-token embedder, which matches words, not meanings"
	if config.EmbedFallbackOff(getenv) {
		detail = model + " is not installed: recall is lexical only (VIBE_EMBED_FALLBACK=off)"
	}
	fix := "`vibe model pull " + model + "` installs it (`vibe setup` offers it too)"
	_, catalogued := embed.Catalog[model]
	switch {
	case !catalogued:
		fix = "place " + embed.ONNXFile + " (or " + embed.StaticFile + ") and " + embed.TokenizerFile + " in " + dir + " (vibe does not know how to download " + model + ")"
	case config.ModelPullOff(getenv):
		detail += "; the worker does not download it (VIBE_MODEL_PULL=off)"
	default:
		detail += "; the worker downloads it when an embedding is needed, if it can reach the network"
	}
	return Check{"embedding model", true, detail, fix}
}
