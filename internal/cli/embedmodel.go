package cli

import (
	"context"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
)

// ModelChoice is where `vibe model use` records the current embedding
// model (*store.Store).
type ModelChoice interface {
	EmbedModel(ctx context.Context) (string, error)
}

// CurrentModel is the embedding model the worker runs, decided as it
// decides it: the one `vibe model use` recorded in the database, else the
// settings' (VIBE_HOME/config.json, else config.Defaults). A nil st (no
// database) reads the settings only.
func CurrentModel(ctx context.Context, st ModelChoice, p config.Paths) (string, error) {
	if st != nil {
		name, err := st.EmbedModel(ctx)
		if err != nil || name != "" {
			return name, err
		}
	}
	s, _ := config.LoadSettings(p) // a broken file: the defaults, as the worker does
	if s.Model == "" {
		return config.Defaults.Model, nil
	}
	return s.Model, nil
}

// MissingModel is the one sentence for an embedding model that is not
// installed: "not installed: " and what a worker started with this
// environment does without it (ModelAbsent).
func MissingModel(p config.Paths, model string, getenv func(string) string) (state string, fallback bool) {
	effect, fallback := ModelAbsent(p, model, getenv)
	return "not installed: " + effect, fallback
}

// ModelAbsent is what a worker started with this environment (getenv; nil:
// the defaults) does without the model, as cmd/vibe-embed-worker reads the
// switches. It embeds with the fallback hashed-token embedder unless
// VIBE_EMBED_FALLBACK=off (then recall stays lexical), and downloads a
// model vibe knows on first need unless VIBE_MODEL_PULL=off. fallback says
// the fallback embedder stands in, as Health.Fallback of a running worker
// says.
func ModelAbsent(p config.Paths, model string, getenv func(string) string) (effect string, fallback bool) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	fallback = !config.EmbedFallbackOff(getenv)
	pullOff := config.ModelPullOff(getenv)
	pull := "`vibe model pull " + model + "`"
	_, catalogued := embed.Catalog[model]
	var until string
	switch {
	case !catalogued:
		until = "until its files are placed in " + embed.Dir(p.Models, model) + " (vibe does not know how to download it)"
	case pullOff && fallback:
		until = "until " + pull + " installs it (VIBE_MODEL_PULL=off: no download on first need)"
	case pullOff:
		until = "until " + pull + " installs it (VIBE_MODEL_PULL=off)"
	case fallback:
		until = "and downloads the model on first need (" + pull + " installs it now)"
	default:
		until = "until the worker, once started, downloads the model on first need (" + pull + " installs it now)"
	}
	if fallback {
		return "once started, the worker embeds with the fallback hashed-token embedder (degraded vectors) " + until, true
	}
	return "recall stays lexical (VIBE_EMBED_FALLBACK=off) " + until, false
}
