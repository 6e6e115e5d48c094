package permission

import (
	"reflect"
	"testing"
)

func TestLiteralWrites(t *testing.T) {
	cwd := "/p"
	tests := []struct {
		cmd  string
		want []LiteralWrite
	}{
		{`echo "AUC was 0.99" >> FINDINGS.md`, []LiteralWrite{{Path: "/p/FINDINGS.md", Append: true, Known: true, Text: []byte("AUC was 0.99\n")}}},
		{`echo -n x y > /q/a.md`, []LiteralWrite{{Path: "/q/a.md", Known: true, Text: []byte("x y")}}},
		{`printf '# Direction\nmore\n' > d/direction.md`, []LiteralWrite{{Path: "/p/d/direction.md", Known: true, Text: []byte("# Direction\nmore\n")}}},
		{`printf '%s\n' "$X" > f.md`, []LiteralWrite{{Path: "/p/f.md"}}},
		{`echo "$AUC" >> f.md`, []LiteralWrite{{Path: "/p/f.md", Append: true}}},
		{"cat > f.md <<'EOF'\nAUC 0.9 $HOME\nEOF\n", []LiteralWrite{{Path: "/p/f.md", Known: true, Text: []byte("AUC 0.9 $HOME\n")}}},
		{"cat > f.md <<EOF\nAUC $X\nEOF\n", []LiteralWrite{{Path: "/p/f.md"}}},
		{`python3 make.py > out.md`, []LiteralWrite{{Path: "/p/out.md"}}},
		{`echo x 2> err.log`, nil},
		{`cd sub && echo x > f.md`, nil},
		{`echo x > "$OUT"`, nil},
		{`ls`, nil},
		{`echo (`, nil},
	}
	for _, tt := range tests {
		got := LiteralWrites(tt.cmd, cwd)
		for i := range got {
			if len(got[i].Text) == 0 && !got[i].Known {
				got[i].Text = nil
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("LiteralWrites(%q)\n got %+v\nwant %+v", tt.cmd, got, tt.want)
		}
	}
}
