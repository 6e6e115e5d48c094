package hugotembed

import (
	"context"
	"fmt"
	"time"

	"github.com/vibe-science/vibe/internal/embed"
)

// BenchEmbed loads the model in dir, embeds texts in batches of batch and
// returns the throughput (texts per second of embedding, load time and one
// warm-up batch excluded: the Go backend compiles a graph per input shape)
// and the process's peak resident memory. `make bench` reports both next to
// the acceptance floor of 15 texts/s on two cores.
func BenchEmbed(dir string, texts []string, batch int) (textsPerSec float64, rssBytes int64, err error) {
	if len(texts) == 0 || batch <= 0 {
		return 0, 0, fmt.Errorf("bench embed: need texts and a positive batch size")
	}
	e, err := Load(dir)
	if err != nil {
		return 0, 0, fmt.Errorf("bench embed: %w", err)
	}
	defer e.Close()
	ctx := context.Background()
	warm := texts[:min(batch, len(texts))]
	if _, err := e.Embed(ctx, warm); err != nil {
		return 0, 0, fmt.Errorf("bench embed: warm-up: %w", err)
	}
	start := time.Now()
	for i := 0; i < len(texts); i += batch {
		if _, err := e.Embed(ctx, texts[i:min(i+batch, len(texts))]); err != nil {
			return 0, 0, fmt.Errorf("bench embed: %w", err)
		}
	}
	elapsed := time.Since(start)
	mem, err := embed.ReadMemory()
	if err != nil {
		return 0, 0, fmt.Errorf("bench embed: %w", err)
	}
	return float64(len(texts)) / elapsed.Seconds(), mem.Peak, nil
}
