package worker

import (
	"sync"
	"time"
)

// meter keeps per-second counts of embedded texts and embedding time for
// the last minute, so status can say both how fast the queue moves
// (throughput) and how fast the model is (embed rate).
type meter struct {
	mu      sync.Mutex
	buckets [60]struct {
		sec   int64
		texts int
		busy  time.Duration
	}
}

func (m *meter) add(now time.Time, texts int, busy time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	sec := now.Unix()
	b := &m.buckets[sec%60]
	if b.sec != sec {
		b.sec, b.texts, b.busy = sec, 0, 0
	}
	b.texts += texts
	b.busy += busy
}

// rates are texts per second over the minute before now, and texts per
// second of embedding time in it (0 when nothing was embedded).
func (m *meter) rates(now time.Time) (throughput, embedRate float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	sec := now.Unix()
	texts, busy := 0, time.Duration(0)
	for _, b := range m.buckets {
		if b.sec > sec-60 && b.sec <= sec {
			texts += b.texts
			busy += b.busy
		}
	}
	throughput = float64(texts) / 60
	if busy > 0 {
		embedRate = float64(texts) / busy.Seconds()
	}
	return throughput, embedRate
}
