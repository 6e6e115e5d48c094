package recall

import (
	"math/rand/v2"
	"time"

	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/store/record"
)

// TestWordIndexNearIsExact compares near with comparing every pair: on
// random texts over a small vocabulary (so that many pairs are near),
// both must find the same docs.
func TestWordIndexNearIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vocab := strings.Fields("gate dq1 dq2 claim c12 c13 guide split batch harmony passed failed not significant loss ring muon cell run seq")
	text := func() string {
		var ws []string
		for i := 0; i < 2+r.IntN(7); i++ {
			ws = append(ws, vocab[r.IntN(len(vocab))])
		}
		return strings.Join(ws, " ")
	}
	x := newWordIndex()
	var texts []string
	checked, found := 0, 0
	for i := 0; i < 600; i++ {
		q := text()
		got := x.near(q)
		var want []int
		for d, d2 := range texts {
			if Similar(q, d2) >= ConflictJaccard {
				want = append(want, d)
			}
		}
		sortedGot := append([]int(nil), got...)
		sort.Ints(sortedGot)
		if len(want) == 0 {
			want = nil
		}
		if len(sortedGot) == 0 {
			sortedGot = nil
		}
		if !reflect.DeepEqual(sortedGot, want) {
			t.Fatalf("text %d %q: near %v, every pair %v", i, q, sortedGot, want)
		}
		for k := 1; k < len(got); k++ {
			if Similar(q, texts[got[k-1]]) < Similar(q, texts[got[k]]) {
				t.Fatalf("text %d: near not most similar first: %v", i, got)
			}
		}
		checked++
		found += len(want)
		x.add(int64(i+1), record.KindNote, q, time.Time{}, 1)
		texts = append(texts, q)
	}
	if found < 100 {
		t.Errorf("only %d near pairs in %d texts: the case tests little", found, checked)
	}
}
