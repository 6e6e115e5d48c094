package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestTablesRead finds the tables a command reads: named in the command,
// in inline code, or in the scripts it runs, resolved as the script would.
func TestTablesRead(t *testing.T) {
	root := t.TempDir()
	rq := filepath.Join(root, ".vibe-science", "RQ-001")
	for _, p := range []string{"data/raw/guideseq.csv", "data/processed/matrix.tsv", "notes.txt"} {
		writeFile(t, filepath.Join(rq, p), "a,b\n1,2\n")
	}
	writeFile(t, filepath.Join(root, "analysis", "shared.csv"), "a\n1\n")
	writeFile(t, filepath.Join(rq, "scripts", "subsample.py"), `import os, pandas as pd
here = os.path.dirname(os.path.abspath(__file__))
df = pd.read_csv(os.path.join(here, "..", "data/processed/matrix.tsv"), sep="\t")
meta = pd.read_csv("analysis/shared.csv")
df.to_csv(f"{here}/out_{1}.csv")   # a template: not a path
missing = "data/raw/absent.csv"
`)
	tests := []struct {
		command string
		want    []string
	}{
		{"python3 .vibe-science/RQ-001/scripts/subsample.py", []string{filepath.Join(rq, "data/processed/matrix.tsv"), filepath.Join(root, "analysis/shared.csv")}},
		{"cut -d, -f1 .vibe-science/RQ-001/data/raw/guideseq.csv > /tmp/x.csv", []string{filepath.Join(rq, "data/raw/guideseq.csv")}},
		{`python3 -c "import pandas as pd; pd.read_csv('.vibe-science/RQ-001/data/raw/guideseq.csv').head(40).to_csv('head.csv')"`, []string{filepath.Join(rq, "data/raw/guideseq.csv")}},
		{"ls data/*.csv", []string{}},
		{"cat /etc/hosts.txt ../outside.csv", []string{}},
	}
	for _, tt := range tests {
		got := TablesRead(tt.command, root, root)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("TablesRead(%q) = %q, want %q", tt.command, got, tt.want)
		}
	}
}

// TestGroupsKept replays M8 as a table: a derived table keeps 4 of the 12
// guides of the table it was made from; a split into train and test by
// guide, a join with a larger annotation table, and a table without a
// grouping are not subsamples.
func TestGroupsKept(t *testing.T) {
	dir := t.TempDir()
	table := func(name string, guides []int, extra string) string {
		var b strings.Builder
		b.WriteString("Targetsite,Chromosome,site,score,label" + extra + "\n")
		for _, g := range guides {
			for s := 0; s < 10; s++ {
				fmt.Fprintf(&b, "EMX1_%02d,chr%d,s%d_%d,0.%d,%d\n", g, 1+s%5, g, s, s, s%2)
			}
		}
		p := filepath.Join(dir, name)
		writeFile(t, p, b.String())
		return p
	}
	all := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	src := table("guide_site_matrix.csv", all, "")
	annot := table("annotation.csv", append(all, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23), "")
	small := table("matrix_small.csv", []int{0, 3, 5, 9}, "")
	train := table("train.csv", []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, "")
	test := table("test.csv", []int{9, 10, 11}, "")
	full := table("features_all.csv", all, "")
	plain := filepath.Join(dir, "plain.csv")
	writeFile(t, plain, "x,label\n1,0\n2,1\n")

	got := GroupsKept([]string{src, annot}, []string{small, plain}, nil, generic(t))
	want := map[string]Check{small: {Name: "groups_kept", Status: StatusFail,
		Detail: "grouped by `Targetsite`: 4 of 12 groups of guide_site_matrix.csv kept (33.3%, below 80%): the table describes a subsample of the groups",
		Fix:    "keep every group of guide_site_matrix.csv, or report results on this table as a subsample and say how the groups were chosen (lower dq2.min_group_share_kept with the reason if the subsample is the design); if `Targetsite` is not what the rows are grouped by, set dq1.grouping.column in .vibe-science/domain-config.json"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("subsample:\n got %+v\nwant %+v", got, want)
	}
	got = GroupsKept([]string{src}, []string{train, test}, nil, generic(t))
	want = map[string]Check{
		train: {Name: "groups_kept", Status: StatusPass, Detail: "grouped by `Targetsite`: 9 of 12 groups of guide_site_matrix.csv kept, one of 2 tables written from it that together keep 12 (100%): a split"},
		test:  {Name: "groups_kept", Status: StatusPass, Detail: "grouped by `Targetsite`: 3 of 12 groups of guide_site_matrix.csv kept, one of 2 tables written from it that together keep 12 (100%): a split"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("split:\n got %+v\nwant %+v", got, want)
	}
	got = GroupsKept([]string{annot, src}, []string{full}, nil, generic(t))
	want = map[string]Check{full: {Name: "groups_kept", Status: StatusPass, Detail: "grouped by `Targetsite`: 12 of 12 groups of guide_site_matrix.csv kept (100%, at least 80%)"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("join:\n got %+v\nwant %+v", got, want)
	}
	// A table the call both read and wrote is no source of itself.
	if got := GroupsKept([]string{small}, []string{small}, nil, generic(t)); len(got) != 0 {
		t.Errorf("rewritten in place: %+v", got)
	}
	os.Remove(src)
	if got := GroupsKept([]string{src}, []string{small}, nil, generic(t)); len(got) != 0 {
		t.Errorf("unreadable source: %+v", got)
	}
}

// TestColumnValues reads one field of every line, with quoted fields on
// some lines, and refuses a quoted field that runs over lines.
func TestColumnValues(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.csv")
	writeFile(t, p, "note,guide,score\nplain,G1,0.1\n\"a, quoted\",G2,0.2\r\nx,,0.3\ny,NA,0.4\nz, G1 ,0.5\n\"q\"\"x\",\"G3\",0.6")
	col, got, err := tableGroups(p, "guide", generic(t))
	if err != nil || col != "guide" || !reflect.DeepEqual(got, map[string]bool{"G1": true, "G2": true, "G3": true}) {
		t.Fatalf("tableGroups = %q %v %v", col, got, err)
	}
	writeFile(t, p, "note,guide\n\"two\nlines\",G1\n")
	if _, _, err := tableGroups(p, "guide", generic(t)); err == nil || !strings.Contains(err.Error(), "a quoted field runs over lines") {
		t.Fatalf("a field over two lines: %v", err)
	}
}
