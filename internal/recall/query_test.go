package recall

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"GUIDE-seq C-012 (KILLED)", []string{"guide", "seq", "c", "012", "killed"}},
		{`"a" OR b* NEAR(x y) title:z ^q`, []string{"a", "or", "b", "near", "x", "y", "title", "z", "q"}},
		{"Zellzählung über 5 Proben", []string{"zellzählung", "über", "5", "proben"}},
		{"didn't pass", []string{"didn", "t", "pass"}},
	}
	for _, tt := range tests {
		if got := Words(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMatchQuery(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"stop words only", "what did we do about it?", ""},
		{"empty", "", ""},
		{"plain", "Why did DQ1 fail on GUIDE-seq?", `"dq1" OR "fail" OR "guide" OR "seq"`},
		{"duplicates once", "batch batch Batch effect", `"batch" OR "effect"`},
		{"one-rune words dropped", "a b c gate", `"gate"`},
		{"FTS5 operators are words", `x" OR 1=1 -- NEAR(a b) AND NOT title:y *`, `"near" OR "title"`},
		{"quote injection", `"gate" OR "x"*`, `"gate"`},
		{"column filter", "memories_fts:secret {text kind}: foo", `"memories" OR "fts" OR "secret" OR "text" OR "foo"`},
		{"ly adverb gets its adjective by prefix", "significantly different", `("significantly" OR "significant"*) OR "different"`},
		{"short ly word stays plain", "only early apply", `"early" OR "apply"`},
	}
	for _, tt := range tests {
		if got := MatchQuery(tt.in); got != tt.want {
			t.Errorf("%s: MatchQuery(%q) = %s, want %s", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestTermsKeepsLongestWordsInOrder(t *testing.T) {
	var words []string
	for i := 0; i < 30; i++ {
		words = append(words, strings.Repeat("x", i%5+2)+string(rune('a'+i%26))+strings.Repeat("q", i/26))
	}
	got := Terms(strings.Join(words, " "))
	if len(got) != MaxQueryTerms {
		t.Fatalf("kept %d terms, want %d", len(got), MaxQueryTerms)
	}
	// The 6 dropped words are the shortest (length 3): positions 0, 5, 10,
	// 15, 20, 25.
	want := []string{}
	for i, w := range words {
		if i%5 != 0 {
			want = append(want, `"`+w+`"`)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Terms kept %v, want %v", got, want)
	}
}

// FuzzMatchQuery runs whatever text a user may type through FTS5: the
// expression must always parse, so no input can make recall fail or
// change what MATCH means.
func FuzzMatchQuery(f *testing.F) {
	for _, s := range []string{`"`, `a" OR "b`, "NEAR(a b, 3)", "x:y", "^a*", "(((", "a AND", "NOT", "\x00", "é*", "significantly*"} {
		f.Add(s)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(f.TempDir(), "fuzz.db"), store.Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	if _, err := AddMemory(ctx, st, nil, record.NewMemory{ProjectPath: "/p", Kind: record.KindNote, Text: "gate near title significant", At: time.Unix(0, 0)}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if _, err := Search(ctx, st, nil, Query{Project: "/p", Text: text, Limit: 3}); err != nil {
			t.Fatalf("Search(%q): %v (match %s)", text, err, MatchQuery(text))
		}
	})
}
