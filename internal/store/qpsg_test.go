//go:build cgo

package store

import (
	"context"
	"strings"
	"testing"
)

// queryPlan is EXPLAIN QUERY PLAN's detail lines for q run with args.
func queryPlan(t *testing.T, s *Store, q string, args ...any) string {
	t.Helper()
	rows, err := s.DB().QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return strings.Join(plan, "; ")
}

func TestPlansDoNotDependOnBoundValues(t *testing.T) {
	s := openTest(t)
	if _, err := s.DB().Exec(`CREATE TEMP TABLE t (x TEXT); CREATE INDEX temp.t_a ON t(x) WHERE x = 'a'`); err != nil {
		t.Fatal(err)
	}
	// A planner that peeks at the bound 'a' uses the partial index, and
	// then re-prepares the statement on every run (stablePlans).
	if plan := queryPlan(t, s, "SELECT x FROM t WHERE x = ?", "a"); strings.Contains(plan, "t_a") {
		t.Errorf("the plan depends on the bound value (query planner stability is off): %s", plan)
	}
	if plan := queryPlan(t, s, "SELECT x FROM t WHERE x = 'a'"); !strings.Contains(plan, "t_a") {
		t.Errorf("a literal should still select the partial index: %s", plan)
	}
	// The one lookup that needs a partial index says its WHERE.
	plan := queryPlan(t, s, `SELECT id FROM spine_entries
WHERE session_id = ? AND tool_use_id = ? AND tool_use_id <> ''`, "s1", "toolu_1")
	if !strings.Contains(plan, "idx_spine_tool_use") {
		t.Errorf("AddSpine's lookup does not use idx_spine_tool_use: %s", plan)
	}
}
