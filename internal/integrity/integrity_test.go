package integrity

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/verdict"
)

func TestDedup(t *testing.T) {
	a := verdict.New("c", verdict.Warn, verdict.Med, "a", map[string]int{"x": 1})
	a2 := verdict.New("c", verdict.Warn, verdict.Med, "same decision, other words", map[string]int{"x": 1})
	b := verdict.New("c", verdict.Block, verdict.High, "b", map[string]int{"x": 1})
	c := verdict.New("d", verdict.Pass, verdict.Low, "c", nil)
	nohash := verdict.Verdict{Check: "raw", Result: verdict.Warn}
	in := []verdict.Verdict{a, b, a2, nohash, c, nohash, b}
	stored := map[string]bool{c.DecisionHash: true}

	got := Dedup(in, func(h string) bool { return stored[h] })
	want := []verdict.Verdict{a, b, nohash, nohash}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Dedup = %v, want %v", checks(got), checks(want))
	}
	once := Dedup(in, nil)
	if len(once) != 5 {
		t.Fatalf("Dedup with nil seen kept %d, want 5", len(once))
	}
	if again := Dedup(once, nil); !reflect.DeepEqual(again, once) {
		t.Fatal("Dedup is not idempotent")
	}
	if in[2].Reason != "same decision, other words" {
		t.Fatal("input modified")
	}
}

func checks(vs []verdict.Verdict) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Check + "/" + v.Reason
	}
	return out
}

func TestBreakersOn(t *testing.T) {
	b := DefaultBreakers()
	fail := errors.New("dial unix /tmp/w.sock: connect: connection refused")
	tests := []struct {
		dep     string
		mode    Mode
		result  verdict.Result
		proceed bool
		reason  string
	}{
		{DepDatabase, ModeWarn, verdict.Warn, true, "The vibe database is unavailable, so this call was not recorded and the gates that need the database did not run (circuit breaker database: warn); run `vibe doctor` to find why the database cannot be opened."},
		{DepWorker, ModeSkip, verdict.Pass, true, "The embed worker is unavailable, so recall is lexical only and new text waits in the embed queue (circuit breaker worker: skip)."},
		{DepVec, ModeSkip, verdict.Pass, true, "The sqlite-vec extension is unavailable, so recall uses full-text search only (circuit breaker vec: skip)."},
		{DepBrief, ModeWarn, verdict.Warn, true, "The research brief is unavailable, so the research brief's constraints were not checked (circuit breaker brief: warn); run `vibe brief validate` to see what is wrong with the brief."},
		{"gpu", ModeWarn, verdict.Warn, true, "The gpu is unavailable, so the features that use it did not run (circuit breaker gpu: warn); run `vibe doctor` to find the cause."},
	}
	for _, tt := range tests {
		t.Run(tt.dep, func(t *testing.T) {
			if b.Mode(tt.dep) != tt.mode {
				t.Fatalf("mode = %s, want %s", b.Mode(tt.dep), tt.mode)
			}
			v, proceed := b.On(tt.dep, fail)
			if v.Result != tt.result || proceed != tt.proceed || v.Reason != tt.reason || v.Check != CheckBreaker {
				t.Fatalf("got %s %v %q", v.Result, proceed, v.Reason)
			}
			if len(v.Evidence.Notes) != 1 || v.Evidence.Notes[0] != tt.dep+": "+fail.Error() {
				t.Fatalf("notes = %v", v.Evidence.Notes)
			}
		})
	}

	strict := Breakers{DepDatabase: ModeFail}
	v, proceed := strict.On(DepDatabase, fail)
	if proceed || v.Result != verdict.Block || v.Severity != verdict.High ||
		v.Reason != "The vibe database is unavailable and its circuit breaker database is set to fail, so vibe stopped this action; run `vibe doctor` to find why the database cannot be opened, or set the database breaker to warn." ||
		v.Recommendation != "Run `vibe doctor` to find why the database cannot be opened." {
		t.Fatalf("fail mode: %v %+v", proceed, v)
	}
	other, _ := strict.On(DepDatabase, errors.New("database is locked"))
	if other.DecisionHash != v.DecisionHash {
		t.Fatal("one outage with different error texts must keep one decision hash")
	}
	if zero, ok := b.On(DepDatabase, nil); !ok || !reflect.DeepEqual(zero, verdict.Verdict{}) {
		t.Fatal("a nil error must report nothing and proceed")
	}
	if (Breakers{DepWorker: "bogus"}).Mode(DepWorker) != ModeSkip {
		t.Fatal("an invalid mode must fall back to the default")
	}
}

func TestBreakersJSON(t *testing.T) {
	var b Breakers
	if err := json.Unmarshal([]byte(`{"worker":"WARN","vec":"fail"}`), &b); err != nil {
		t.Fatal(err)
	}
	want := Breakers{DepDatabase: ModeWarn, DepWorker: ModeWarn, DepVec: ModeFail, DepBrief: ModeWarn}
	if !reflect.DeepEqual(b, want) {
		t.Fatalf("got %v, want %v", b, want)
	}
	raw, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != `{"brief":"warn","database":"warn","vec":"fail","worker":"warn"}` {
		t.Fatalf("marshal = %s", raw)
	}
	var back Breakers
	if err := json.Unmarshal(raw, &back); err != nil || !reflect.DeepEqual(back, b) {
		t.Fatalf("round trip: %v %v", back, err)
	}
	errs := map[string]string{
		`{"databse":"warn"}`: `unknown dependency "databse"`,
		`{"worker":"pause"}`: `circuit-breaker mode "pause" is not one of skip, warn, fail`,
		`{"worker":3}`:       "want a string",
		`[]`:                 "circuit breakers:",
	}
	for in, want := range errs {
		var b Breakers
		if err := json.Unmarshal([]byte(in), &b); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Unmarshal(%s) err = %v, want %q", in, err, want)
		}
	}
}
