package recall

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// repetitive is line i of a repetitive corpus: every line shares most of
// its words with every other (a lab notebook's daily "finding" entries).
func repetitive(i int) string {
	outcome := "passed"
	if i%7 == 0 {
		outcome = "failed"
	}
	return fmt.Sprintf("finding %d: gate DQ2 %s in replicate B with the held-out guides at threshold 0.%d", i, outcome, i%10)
}

// fillRepetitive stores n repetitive memories in project /p directly.
func fillRepetitive(tb testing.TB, st *store.Store, n int) {
	tb.Helper()
	ctx := context.Background()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for start := 0; start < n; start += 5000 {
		err := st.Tx(ctx, func(tx *store.Tx) error {
			for i := start; i < min(n, start+5000); i++ {
				if _, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", Kind: record.KindNote, Text: repetitive(i), At: at}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
}

func importLines(from, n int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "{\"text\": %q}\n", repetitive(i))
	}
	return b.String()
}

// TestImportWorkIsBoundedPerLine: the conflict search of an import does a
// bounded amount of work per line whatever the store holds, so 1,000 lines
// into 20,000 similar memories cost what they cost into 2,000 (it grew
// with the store: 15 s into 83k rows).
func TestImportWorkIsBoundedPerLine(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a store with 20,000 memories")
	}
	work := map[int]int{}
	for _, size := range []int{2000, 20000} {
		st := openStore(t)
		fillRepetitive(t, st, size)
		nearWork = 0
		rep, err := Import(context.Background(), st, strings.NewReader(importLines(size, 1000)), "/p", time.Now(), nil)
		if err != nil || rep.Added != 1000 {
			t.Fatalf("import into %d: %+v %v", size, rep, err)
		}
		if rep.Conflicts == 0 {
			t.Errorf("import into %d found no conflict; the corpus has opposite outcomes", size)
		}
		work[size] = nearWork
	}
	// Unbounded, the work grew tenfold with the store (every similar doc
	// walked); bounded, it is at most maxNearScan postings per rare word.
	if work[20000] > 2*work[2000] || work[20000] > 1000*8*maxNearScan {
		t.Fatalf("conflict search work grows with the store: %v (per line at most %d postings a word)", work, maxNearScan)
	}
}

// BenchmarkImportIntoLargeStore: 1,000 repetitive lines into stores of
// similar memories, up to 83,000 (the case measured at 15 s).
func BenchmarkImportIntoLargeStore(b *testing.B) {
	for _, size := range []int{0, 10000, 83000} {
		b.Run(fmt.Sprintf("store=%d", size), func(b *testing.B) {
			st := openStore(b)
			fillRepetitive(b, st, size)
			from := size
			for b.Loop() {
				if _, err := Import(context.Background(), st, strings.NewReader(importLines(from, 1000)), "/p", time.Now(), nil); err != nil {
					b.Fatal(err)
				}
				from += 1000
			}
		})
	}
}

// TestOppositePolarityIsOpposite: the import's cheap Opposite agrees with
// Opposite on every pair of a corpus of outcomes.
func TestOppositePolarityIsOpposite(t *testing.T) {
	texts := []string{
		"Gate DQ2 passed for claim C-12", "Gate DQ2 failed for claim C-12", "Gate DQ2 did not pass for claim C-12",
		"AUC increased and the gate passed", "AUC decreased and the gate failed", "the effect holds in replicate B",
		"the effect fails in replicate B", "the effect does not hold in replicate B", "no effect was found",
		"an effect was found", "the model is better than baseline", "the model is worse than baseline",
		"accuracy improved", "accuracy did not improve", "accuracy got worse", repetitive(7), repetitive(8),
	}
	for _, a := range texts {
		for _, b := range texts {
			if got, want := oppositePolarity(polarity(a), polarity(b)), Opposite(a, b); got != want {
				t.Errorf("%q vs %q: %v, Opposite says %v", a, b, got, want)
			}
		}
	}
}
