package recall

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Set is a retrieval set: memories to load, queries with the refs of the
// memories that answer them, and the project and time to ask them at. The
// set in testdata/retrieval was written by hand from research-session
// text; nothing in it was produced by this package.
type Set struct {
	Project  string
	Now      time.Time
	Memories string // path of the memories JSONL (ImportLine per line)
	Queries  []SetQuery
}

// SetQuery is one question and the refs of the memories that answer it.
type SetQuery struct {
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
}

// ReadSet reads a set folder: set.json ({"project": …, "now": RFC 3339}),
// memories.jsonl and queries.jsonl.
func ReadSet(dir string) (Set, error) {
	var s Set
	raw, err := os.ReadFile(filepath.Join(dir, "set.json"))
	if err != nil {
		return s, fmt.Errorf("read retrieval set: %w", err)
	}
	var head struct {
		Project string    `json:"project"`
		Now     time.Time `json:"now"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return s, fmt.Errorf("read retrieval set %s: %w", filepath.Join(dir, "set.json"), err)
	}
	s.Project, s.Now, s.Memories = head.Project, head.Now, filepath.Join(dir, "memories.jsonl")
	f, err := os.Open(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		return s, fmt.Errorf("read retrieval set: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var q SetQuery
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return s, fmt.Errorf("read retrieval set: queries.jsonl line %d: %w", n, err)
		}
		if q.Query == "" || len(q.Relevant) == 0 {
			return s, fmt.Errorf("read retrieval set: queries.jsonl line %d: a query needs text and at least one relevant ref", n)
		}
		s.Queries = append(s.Queries, q)
	}
	return s, sc.Err()
}

// Load imports the set s's memories into st under the set's project; the
// import must skip no line.
func Load[W Writes](ctx context.Context, st Memories[W], s Set) (ImportReport, error) {
	f, err := os.Open(s.Memories)
	if err != nil {
		return ImportReport{}, fmt.Errorf("load retrieval set: %w", err)
	}
	defer f.Close()
	rep, err := Import(ctx, st, f, s.Project, s.Now, nil)
	if err != nil {
		return rep, fmt.Errorf("load retrieval set: %w", err)
	}
	if len(rep.Skipped) > 0 {
		return rep, fmt.Errorf("load retrieval set: %s", rep.Skipped[0])
	}
	return rep, nil
}

// QueryScore is one query's outcome in an evaluation.
type QueryScore struct {
	Query  string
	Recall float64  // share of the relevant refs found in the top k
	Top    []string // refs of the top k, in order
	Mode   string
}

// Evaluate runs every query of a loaded set and scores recall at k.
func Evaluate(ctx context.Context, st Reads, vec Vectors, s Set, k int) ([]QueryScore, error) {
	out := make([]QueryScore, 0, len(s.Queries))
	for _, q := range s.Queries {
		res, err := Search(ctx, st, vec, Query{Project: s.Project, Text: q.Query, Limit: k, Now: s.Now})
		if err != nil {
			return nil, err
		}
		qs := QueryScore{Query: q.Query, Mode: res.Mode}
		found := 0
		for _, h := range res.Hits {
			qs.Top = append(qs.Top, h.Ref)
			for _, r := range q.Relevant {
				if h.Ref == r {
					found++
					break
				}
			}
		}
		qs.Recall = float64(found) / float64(len(q.Relevant))
		out = append(out, qs)
	}
	return out, nil
}

// RecallAtK is the mean recall at k over the set's queries (the set must be
// loaded into st): the share of each query's relevant memories that appear
// in its top k. The tests hold words alone (vec = nil) and each kind of
// vectors to it; BenchmarkRetrieval reports it per embedder.
func RecallAtK(ctx context.Context, st Reads, vec Vectors, s Set, k int) (float64, error) {
	scores, err := Evaluate(ctx, st, vec, s, k)
	if err != nil {
		return 0, err
	}
	if len(scores) == 0 {
		return 0, fmt.Errorf("recall at %d: the set has no queries", k)
	}
	sum := 0.0
	for _, q := range scores {
		sum += q.Recall
	}
	return sum / float64(len(scores)), nil
}
