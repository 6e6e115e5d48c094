package store

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestNotices: a notice is per session, project, check and path; adding
// one twice keeps one.
func TestNotices(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "v.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	for i := 0; i < 2; i++ {
		if err := st.Tx(ctx, func(tx *Tx) error {
			return tx.AddNotices(ctx, "s1", "/p", "DC0", []string{"a.csv", "b.csv"}, at)
		}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.Noticed(ctx, "s1", "/p", "DC0", []string{"a.csv", "c.csv", "b.csv"})
	if err != nil || !reflect.DeepEqual(got, map[string]bool{"a.csv": true, "b.csv": true}) {
		t.Fatalf("Noticed = %v, %v", got, err)
	}
	for _, other := range [][3]string{{"s2", "/p", "DC0"}, {"s1", "/q", "DC0"}, {"s1", "/p", "DQ1"}} {
		if got, _ := st.Noticed(ctx, other[0], other[1], other[2], []string{"a.csv"}); len(got) != 0 {
			t.Errorf("%v: %v", other, got)
		}
	}
	var n int
	st.DB().QueryRow("SELECT count(*) FROM session_notices").Scan(&n)
	if n != 2 {
		t.Errorf("%d rows, want 2", n)
	}
	if got, err := st.Noticed(ctx, "s1", "/p", "DC0", nil); err != nil || len(got) != 0 {
		t.Errorf("no paths: %v %v", got, err)
	}
}
