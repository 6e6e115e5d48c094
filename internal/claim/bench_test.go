package claim

import (
	"fmt"
	"strings"
	"testing"
)

// benchLedger is a ledger of n claims in heading form, each resting on the
// one before, the shape a long project reaches.
func benchLedger(n int) []byte {
	var b strings.Builder
	b.WriteString("# Claim ledger\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "## C-%03d: Claim number %d\n- status: PROVISIONAL\n- type: correlative\n- confidence: 0.%02d\n", i, i, i%100)
		fmt.Fprintf(&b, "- evidence: RQ-001/FINDINGS.json#m%d, RQ-001/FINDINGS.md\n", i)
		if i > 1 {
			fmt.Fprintf(&b, "- depends-on: C-%03d\n", i-1)
		}
		b.WriteString("\nSome prose about the claim.\n\n")
	}
	return []byte(b.String())
}

func BenchmarkParseLedger200(b *testing.B) {
	src := benchLedger(200)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		ParseLedger(src)
	}
}

func BenchmarkDiff200(b *testing.B) {
	old, _ := ParseLedger(benchLedger(200))
	new, _ := ParseLedger([]byte(strings.Replace(string(benchLedger(200)), "## C-100: Claim number 100\n- status: PROVISIONAL", "## C-100: Claim number 100\n- status: PROMOTED", 1)))
	b.ReportAllocs()
	for b.Loop() {
		Diff(old, new)
	}
}

func BenchmarkSupportCycles200(b *testing.B) {
	l, _ := ParseLedger(benchLedger(200))
	g := BuildGraph(l, nil)
	b.ReportAllocs()
	for b.Loop() {
		g.SupportCycles("C-200")
	}
}
