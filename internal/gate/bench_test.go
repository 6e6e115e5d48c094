package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchFindings is a findings file of realistic size: 200 lines of prose
// with numbers, ids, citations and a table.
func benchFindings() ([]byte, []byte) {
	var md, js strings.Builder
	js.WriteString(`{"values": [`)
	for i := 0; i < 200; i++ {
		v := 0.5 + float64(i)/1000
		fmt.Fprintf(&md, "Claim C-%03d reached AUC %.3f on n = %d sites (Smith et al., 2020), see Figure %d; coverage %.1f%%.\n", i, v, 100+i, i, v*100)
		if i > 0 {
			js.WriteString(",")
		}
		fmt.Fprintf(&js, "%.5f, %d", v, 100+i)
	}
	js.WriteString("]}")
	return []byte(md.String()), []byte(js.String())
}

func BenchmarkDQ4(b *testing.B) {
	md, js := benchFindings()
	d, _ := ShippedDomain(GenericDomain)
	b.ReportAllocs()
	b.SetBytes(int64(len(md)))
	for i := 0; i < b.N; i++ {
		if r := DQ4("FINDINGS.md", md, js, d); r.Status != StatusPass {
			b.Fatalf("%s", r.Reason())
		}
	}
}

func BenchmarkDQ1(b *testing.B) {
	body := rows("id,gc,mm,cfd,label", 10000, func(i int) string {
		return fmt.Sprintf("s%d,%.3f,%d,%.2f,%d", i, 0.3+float64(i%97)/300, 2+i%6, float64(i%13)/13, i%2)
	})
	d, _ := ShippedDomain("crispr-off-target")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		dq1(strings.NewReader(body), "features.csv", d)
	}
}

// BenchmarkPathologicalLines measures lines that a quadratic scan would
// choke on (unclosed brackets, backticks, angle brackets, derived markers,
// many numbers); each should cost about as much as a plain line.
func BenchmarkPathologicalLines(b *testing.B) {
	for _, unit := range []string{"[", "`a ", "<a ", "(derived ", "((((1 ", "1 ", "[^", "doi:", "](", "plain text "} {
		line := []byte(strings.Repeat(unit, 100000/len(unit)))
		b.Run(strings.TrimSpace(unit), func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for i := 0; i < b.N; i++ {
				extractNumbers(line)
			}
		})
	}
}

// BenchmarkDQ1Wide is the hooks' budget case: a 10k × 50 table of mixed
// columns (an id, a grouping column, integers, floats with a point mass,
// and two columns that almost agree), with every inference at work.
func BenchmarkDQ1Wide(b *testing.B) {
	header := []string{"site_id", "guide_id"}
	for j := 0; j < 47; j++ {
		header = append(header, fmt.Sprintf("f%02d", j))
	}
	header = append(header, "label")
	body := rows(strings.Join(header, ","), 10000, func(i int) string {
		cells := []string{fmt.Sprintf("s%d", i), fmt.Sprintf("G%03d", i/40)}
		for j := 0; j < 47; j++ {
			v := (i*(j+7) + j*j) % 1009
			switch {
			case j%5 == 0:
				cells = append(cells, fmt.Sprint(v%9))
			case j == 1 && i%7 == 0:
				cells = append(cells, "-999")
			case j == 3:
				w := (i*(2+7) + 4) % 1009 // f02's value, off on every 50th row
				if i%50 == 0 {
					w++
				}
				cells = append(cells, fmt.Sprintf("%.3f", float64(w)/7))
			default:
				cells = append(cells, fmt.Sprintf("%.3f", float64(v)/7))
			}
		}
		cells = append(cells, fmt.Sprint(i%2))
		return strings.Join(cells, ",")
	})
	d, _ := ShippedDomain(GenericDomain)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dq1(strings.NewReader(body), "features.csv", d)
	}
}

// BenchmarkGroupsKept is the work after a script wrote a 10k × 50 table
// grouped by guide from another of the same size: both tables' groups.
func BenchmarkGroupsKept(b *testing.B) {
	dir := b.TempDir()
	table := func(name string, guides int) string {
		header := []string{"site_id", "guide_id"}
		for j := 0; j < 48; j++ {
			header = append(header, fmt.Sprintf("f%02d", j))
		}
		body := rows(strings.Join(header, ","), 10000, func(i int) string {
			cells := []string{fmt.Sprintf("s%d", i), fmt.Sprintf("G%03d", i%guides)}
			for j := 0; j < 48; j++ {
				cells = append(cells, fmt.Sprintf("%.3f", float64((i*(j+7))%1009)/7))
			}
			return strings.Join(cells, ",")
		})
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		return p
	}
	src, out := table("matrix.csv", 250), table("subset.csv", 100)
	d, _ := ShippedDomain(GenericDomain)
	written, err := DQ1(out, d) // the hooks have the written table's groups from DQ1
	if err != nil || written.Groups == nil {
		b.Fatalf("%v %+v", err, written)
	}
	known := map[string]*TableGroups{out: written.Groups}
	for _, cold := range []bool{true, false} {
		name := "source read"
		if !cold {
			name = "source remembered"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if cold {
					sourceMemo.Lock()
					sourceMemo.m = map[string]map[string]bool{}
					sourceMemo.Unlock()
				}
				if c := GroupsKept([]string{src}, []string{out}, known, d); c[out].Status != StatusFail {
					b.Fatalf("%+v", c)
				}
			}
		})
	}
}
