package privacy

import (
	"encoding/json"
	"html/template"
	"reflect"
	"testing"
)

type treeLeaf struct {
	Text   string
	hidden string
	HTML   template.HTML
	Input  json.RawMessage
	Sum    []byte
	Number float64
}

type treeNode struct {
	Name  string
	Leaf  *treeLeaf
	Leafs []treeLeaf
	ByKey map[string]string
	Any   any
	Self  *treeNode
}

// TestScrubAll: every string of a nested value is scrubbed in a copy; the
// value itself, unexported fields, markup, bytes and numbers stay.
func TestScrubAll(t *testing.T) {
	const tok = "ghp_Q9xv2LmP7sR4tW8zK3nB6cJ1dF5gH0aE2iU4"
	leaf := &treeLeaf{Text: "token " + tok, hidden: tok, HTML: template.HTML("<b>" + tok + "</b>"),
		Input: json.RawMessage(`{"command":"export API_KEY=\"hunter22\""}`), Sum: []byte(tok), Number: 0.81}
	in := &treeNode{Name: "GITHUB_TOKEN=" + tok, Leaf: leaf, Leafs: []treeLeaf{*leaf},
		ByKey: map[string]string{"k " + tok: "v " + tok}, Any: []string{"x " + tok}}
	in.Self = in
	orig := *leaf
	out := ScrubAll(in)
	want := treeLeaf{Text: "token [REDACTED]", hidden: tok, HTML: template.HTML("<b>" + tok + "</b>"),
		Input: json.RawMessage(`{"command":"export API_KEY=\"[REDACTED]\""}`), Sum: []byte(tok), Number: 0.81}
	if out.Name != "GITHUB_TOKEN=[REDACTED]" || !reflect.DeepEqual(*out.Leaf, want) || !reflect.DeepEqual(out.Leafs[0], want) ||
		!reflect.DeepEqual(out.ByKey, map[string]string{"k [REDACTED]": "v [REDACTED]"}) ||
		!reflect.DeepEqual(out.Any, []string{"x [REDACTED]"}) || out.Self != out {
		t.Errorf("ScrubAll = %+v (leaf %+v)", out, *out.Leaf)
	}
	if !reflect.DeepEqual(*leaf, orig) || in.Name != "GITHUB_TOKEN="+tok || in.Self != in {
		t.Error("ScrubAll changed its argument")
	}
}
