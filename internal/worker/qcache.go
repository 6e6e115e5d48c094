package worker

import (
	"sync"

	"github.com/vibe-science/vibe/internal/embed"
)

// DefaultQueryCache is how many recent query embeddings the worker keeps:
// a prompt recalled again (a retry, the same question in another session)
// skips the model.
const DefaultQueryCache = 512

// queryCache maps (embedder, text) to the vector it gave, holding the most
// recent n. Entries name the embedder instance, so a model reloaded from
// changed files never answers from the old one's vectors.
type queryCache struct {
	mu    sync.Mutex
	n     int
	items map[string]*qentry
	head  *qentry // most recent
	tail  *qentry
}

type qentry struct {
	key        string
	owner      embed.Embedder
	vec        []float32
	prev, next *qentry
}

func newQueryCache(n int) *queryCache {
	return &queryCache{n: n, items: make(map[string]*qentry, n)}
}

func (c *queryCache) get(owner embed.Embedder, text string) ([]float32, bool) {
	if c == nil || c.n <= 0 {
		return nil, false
	}
	key := owner.Model() + "\x00" + text
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok || e.owner != owner {
		return nil, false
	}
	c.unlink(e)
	c.pushFront(e)
	return e.vec, true
}

func (c *queryCache) put(owner embed.Embedder, text string, vec []float32) {
	if c == nil || c.n <= 0 {
		return
	}
	key := owner.Model() + "\x00" + text
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		e.owner, e.vec = owner, vec
		c.unlink(e)
		c.pushFront(e)
		return
	}
	e := &qentry{key: key, owner: owner, vec: vec}
	c.items[key] = e
	c.pushFront(e)
	if len(c.items) > c.n {
		old := c.tail
		c.unlink(old)
		delete(c.items, old.key)
	}
}

func (c *queryCache) pushFront(e *qentry) {
	e.prev, e.next = nil, c.head
	if c.head != nil {
		c.head.prev = e
	}
	c.head = e
	if c.tail == nil {
		c.tail = e
	}
}

func (c *queryCache) unlink(e *qentry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		c.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		c.tail = e.prev
	}
	e.prev, e.next = nil, nil
}
