package worker

import (
	"testing"

	"github.com/vibe-science/vibe/internal/embed"
)

func TestQueryCache(t *testing.T) {
	a, b := &fakeEmbedder{name: "m", dims: 1}, &fakeEmbedder{name: "m", dims: 1}
	c := newQueryCache(2)
	c.put(a, "x", []float32{1})
	c.put(a, "y", []float32{2})
	if v, ok := c.get(a, "x"); !ok || v[0] != 1 {
		t.Fatalf("get x = %v, %v", v, ok)
	}
	c.put(a, "z", []float32{3}) // evicts y, the least recent
	if _, ok := c.get(a, "y"); ok {
		t.Error("y survived eviction")
	}
	if v, ok := c.get(a, "z"); !ok || v[0] != 3 {
		t.Errorf("get z = %v, %v", v, ok)
	}
	// Another instance of the same model name (reloaded files) misses.
	if _, ok := c.get(b, "x"); ok {
		t.Error("a reloaded model answered from the old one's vectors")
	}
	var f embed.Embedder = embed.Fallback{}
	if _, ok := c.get(f, "x"); ok {
		t.Error("another model answered")
	}
	if _, ok := (*queryCache)(nil).get(a, "x"); ok {
		t.Error("nil cache hit")
	}
}
