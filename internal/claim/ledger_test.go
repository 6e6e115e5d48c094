package claim

import (
	"reflect"
	"strings"
	"testing"
)

func TestNormaliseID(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"C-001", "C-001", true},
		{"c-001", "C-001", true},
		{"C001", "C-001", true},
		{"c001", "C-001", true},
		{" **C-042** ", "C-042", true},
		{"`C-1234`", "C-1234", true},
		{"C-0001", "C-0001", true},
		{"C-01", "", false},
		{"C1", "", false},
		{"C-", "", false},
		{"C--001", "", false},
		{"C-001a", "", false},
		{"D-001", "", false},
		{"CLAIM-001", "", false},
		{"", "", false},
		{"C-00 1", "", false},
	}
	for _, tt := range tests {
		got, ok := NormaliseID(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("NormaliseID(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCompareIDs(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"C-001", "C-002", -1},
		{"C-999", "C-1000", -1},
		{"C-1000", "C-999", 1},
		{"C-001", "C-001", 0},
		{"C-001", "C-0001", 1}, // same number: plain string order decides
		{"A", "B", -1},
		{"C-001", "x.md", -1},
	}
	for _, tt := range tests {
		if got := compareIDs(tt.a, tt.b); got != tt.want {
			t.Errorf("compareIDs(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestParseLedger(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Claim
		errs []string
	}{
		{name: "empty"},
		{name: "prose only", in: "# Claim ledger\n\nNo claims yet.\n- status: PROMOTED\n"},
		{
			name: "all fields",
			in: "## C-001: Rate rises\n- status: PROMOTED\n- type: predictive\n- tier: 3\n- confidence: 0.5\n" +
				"- evidence: a.json#x; b.md\n- depends-on: C-002\n- kill-reason: ARTIFACT\n- salvaged-seed: seed-20260101-002\n" +
				"## C-002: Base\n- status: VERIFIED\n- type: descriptive\n",
			want: []Claim{
				{ID: "C-001", Title: "Rate rises", Status: StatusPromoted, Type: TypePredictive, Tier: 3, Confidence: 0.5, HasConfidence: true,
					Evidence: []string{"a.json#x", "b.md"}, DependsOn: []string{"C-002"}, KillReason: KillArtifact, SalvagedSeed: "SEED-20260101-002", Line: 1},
				{ID: "C-002", Title: "Base", Status: StatusVerified, Type: TypeDescriptive, Tier: 0, Line: 10},
			},
		},
		{
			name: "heading variants",
			in: "## C-001\n- status: PROVISIONAL\n### C002 Plain title\n- status: PROVISIONAL\n" +
				"## `C-003` — Dash title\n- status: PROVISIONAL\n## C-004 - Hyphen title ##\n- status: PROVISIONAL\n",
			want: []Claim{
				{ID: "C-001", Status: StatusProvisional, Tier: 3, Line: 1},
				{ID: "C-002", Title: "Plain title", Status: StatusProvisional, Tier: 3, Line: 3},
				{ID: "C-003", Title: "Dash title", Status: StatusProvisional, Tier: 3, Line: 5},
				{ID: "C-004", Title: "Hyphen title", Status: StatusProvisional, Tier: 3, Line: 7},
			},
		},
		{
			name: "a non-claim heading ends the claim",
			in:   "## C-001: A\n- status: PROVISIONAL\n## Retired\n- status: KILLED\n- kill-reason: ARTIFACT\n",
			want: []Claim{{ID: "C-001", Title: "A", Status: StatusProvisional, Tier: 3, Line: 1}},
		},
		{
			name: "a level-4 heading stays inside the claim",
			in:   "## C-001: A\n#### C-002: Details\n- status: PROVISIONAL\n",
			want: []Claim{{ID: "C-001", Title: "A", Status: StatusProvisional, Tier: 3, Line: 1}},
		},
		{
			name: "keys in bold and any case, values in any case",
			in: "## C-001: A\n**Status:** Verified\n* **TYPE**: Causal\n+ Kill_Reason: logically false\n" +
				"- **Confidence:** **0.8**\n- Depends On: c-002, C003\n## C-002: B\n- status: provisional\n## C-003: C\n- status: disputed\n",
			want: []Claim{
				{ID: "C-001", Title: "A", Status: StatusVerified, Type: TypeCausal, Tier: 3, Confidence: 0.8, HasConfidence: true,
					DependsOn: []string{"C-002", "C-003"}, KillReason: KillLogicallyFalse, Line: 1},
				{ID: "C-002", Title: "B", Status: StatusProvisional, Tier: 3, Line: 7},
				{ID: "C-003", Title: "C", Status: StatusDisputed, Tier: 3, Line: 9},
			},
		},
		{
			name: "remarks after values",
			in: "## C-001: A\n- status: PROVISIONAL (waiting for R2)\n- type: correlative # by the orchestrator\n" +
				"- confidence: 0.4 — after the harness\n- tier: 2 (raised)\n",
			want: []Claim{{ID: "C-001", Title: "A", Status: StatusProvisional, Type: TypeCorrelative, Tier: 2,
				Confidence: 0.4, HasConfidence: true, Line: 1}},
		},
		{
			name: "nested evidence list and a field after it",
			in: "## C-001: A\n- evidence:\n  - `x.json#a`\n  * [fig](figs/b.png)\n    - https://doi.org/10.1/x\n" +
				"- status: PROVISIONAL\n  - not-evidence.md\n- depends-on:\n  - C-002 C-003\n" +
				"## C-002: B\n- status: PROVISIONAL\n## C-003: C\n- status: PROVISIONAL\n",
			want: []Claim{
				{ID: "C-001", Title: "A", Status: StatusProvisional, Tier: 3,
					Evidence:  []string{"x.json#a", "figs/b.png", "https://doi.org/10.1/x"},
					DependsOn: []string{"C-002", "C-003"}, Line: 1},
				{ID: "C-002", Title: "B", Status: StatusProvisional, Tier: 3, Line: 10},
				{ID: "C-003", Title: "C", Status: StatusProvisional, Tier: 3, Line: 12},
			},
		},
		{
			name: "empty list placeholders",
			in:   "## C-001: A\n- status: PROVISIONAL\n- evidence: none\n- depends-on: n/a\n",
			want: []Claim{{ID: "C-001", Title: "A", Status: StatusProvisional, Tier: 3, Line: 1}},
		},
		{
			name: "remarks after evidence items",
			in:   "## C-001: A\n- status: PROVISIONAL\n- evidence: a.json#auc (main result), `b (1).md`, [c](c.md)\n",
			want: []Claim{{ID: "C-001", Title: "A", Status: StatusProvisional, Tier: 3, Evidence: []string{"a.json#auc", "b (1).md", "c.md"}, Line: 1}},
		},
		{
			name: "tiers default from the type and may be raised",
			in: "## C-001: A\n- status: PROVISIONAL\n- type: descriptive\n## C-002: B\n- status: PROVISIONAL\n- type: correlative\n" +
				"## C-003: C\n- status: PROVISIONAL\n- type: predictive\n## C-004: D\n- status: PROVISIONAL\n- type: causal\n" +
				"## C-005: E\n- status: PROVISIONAL\n- type: descriptive\n- tier: 2\n## C-006: F\n- status: PROVISIONAL\n- tier: 1\n",
			want: []Claim{
				{ID: "C-001", Title: "A", Status: StatusProvisional, Type: TypeDescriptive, Tier: 0, Line: 1},
				{ID: "C-002", Title: "B", Status: StatusProvisional, Type: TypeCorrelative, Tier: 1, Line: 4},
				{ID: "C-003", Title: "C", Status: StatusProvisional, Type: TypePredictive, Tier: 2, Line: 7},
				{ID: "C-004", Title: "D", Status: StatusProvisional, Type: TypeCausal, Tier: 3, Line: 10},
				{ID: "C-005", Title: "E", Status: StatusProvisional, Type: TypeDescriptive, Tier: 2, Line: 13},
				{ID: "C-006", Title: "F", Status: StatusProvisional, Tier: 1, Line: 17},
			},
		},
		{
			name: "percent confidence and bounds",
			in:   "## C-001: A\n- status: PROVISIONAL\n- confidence: 62%\n## C-002: B\n- status: PROVISIONAL\n- confidence: 0\n## C-003: C\n- status: PROVISIONAL\n- confidence: 1\n",
			want: []Claim{
				{ID: "C-001", Title: "A", Status: StatusProvisional, Tier: 3, Confidence: 0.62, HasConfidence: true, Line: 1},
				{ID: "C-002", Title: "B", Status: StatusProvisional, Tier: 3, Confidence: 0, HasConfidence: true, Line: 4},
				{ID: "C-003", Title: "C", Status: StatusProvisional, Tier: 3, Confidence: 1, HasConfidence: true, Line: 7},
			},
		},
		{
			name: "kill reasons as people write them",
			in: "## C-001: A\n- status: KILLED\n- kill-reason: insufficient evidence\n## C-002: B\n- status: KILLED\n- kill-reason: Logically-False\n" +
				"## C-003: C\n- status: KILLED\n- kill-reason: premature, R2 asked for more seeds\n",
			want: []Claim{
				{ID: "C-001", Title: "A", Status: StatusKilled, Tier: 3, KillReason: KillInsufficientEvidence, Line: 1},
				{ID: "C-002", Title: "B", Status: StatusKilled, Tier: 3, KillReason: KillLogicallyFalse, Line: 4},
				{ID: "C-003", Title: "C", Status: StatusKilled, Tier: 3, KillReason: KillPremature, Line: 7},
			},
		},
		{
			name: "fenced code and comments are skipped",
			in: "```markdown\n## C-001: example\n- status: PROVISIONAL\n```\n~~~\n## C-002: x\n~~~\n" +
				"<!-- ## C-003: one-line comment -->\n<!--\n## C-004: hidden\n- status: KILLED\n-->\n## C-005: real\n- status: PROVISIONAL\n<!-- - status: KILLED -->\n",
			want: []Claim{{ID: "C-005", Title: "real", Status: StatusProvisional, Tier: 3, Line: 13}},
		},
		{
			// A 4-backtick example block may quote a 3-backtick one: the
			// inner fence does not close the outer (issue 16, finding 4).
			name: "nested fences are code to the end of the outer one",
			in: "````markdown\n```\n## C-001: quoted fence\n```\n## C-002: still an example\n- status: PROMOTED\n````\n" +
				"~~~~\n~~~ inner\n## C-003: tilde example\n~~~~\n" +
				"```\n## C-004: a closing fence needs no info string\n``` not-closing\n## C-005: still code\n```\n" +
				"    ```\n## C-006: four spaces in is no fence\n- status: PROVISIONAL\n",
			want: []Claim{{ID: "C-006", Title: "four spaces in is no fence", Status: StatusProvisional, Tier: 3, Line: 18}},
		},
		{
			name: "CRLF and a byte-order mark",
			in:   "\ufeff## C-001: A\r\n- status: PROMOTED\r\n- type: descriptive\r\n- evidence: a.json, b.md\r\n",
			want: []Claim{{ID: "C-001", Title: "A", Status: StatusPromoted, Type: TypeDescriptive, Tier: 0,
				Evidence: []string{"a.json", "b.md"}, Line: 1}},
		},
		{
			name: "unknown fields and prose are ignored",
			in:   "## C-001: A\nThe claim: it holds.\n- notes: see below\n- r2: ACCEPT\n- status: PROVISIONAL\n- just a bullet\n",
			want: []Claim{{ID: "C-001", Title: "A", Status: StatusProvisional, Tier: 3, Line: 1}},
		},
		{
			name: "table form",
			in: "| ID | Status | Type | Tier | Confidence | Evidence | Depends on | Kill reason | Salvaged seed | Owner |\n" +
				"|:---|:---:|---|---|---|---|---|---|---|---|\n" +
				"| **C-010** | killed | correlative | | 0.3 | a\\|b.json, c.md | | confounded | SEED-20260102-003 | ana |\n" +
				"| c011 (was C-11) | PROVISIONAL | causal | 3 | | | C-010 | | | |\n" +
				"|  |  |  |  |  |  |  |  |  |  |\n" +
				"\n## C-012: after the table\n- status: PROVISIONAL\n",
			want: []Claim{
				{ID: "C-010", Status: StatusKilled, Type: TypeCorrelative, Tier: 1, Confidence: 0.3, HasConfidence: true,
					Evidence: []string{"a|b.json", "c.md"}, KillReason: KillConfounded, SalvagedSeed: "SEED-20260102-003", Line: 3},
				{ID: "C-011", Status: StatusProvisional, Type: TypeCausal, Tier: 3, DependsOn: []string{"C-010"}, Line: 4},
				{ID: "C-012", Title: "after the table", Status: StatusProvisional, Tier: 3, Line: 7},
			},
		},
		{
			name: "a table without id and status columns is not a claim table",
			in:   "## C-001: A\n- status: PROVISIONAL\n| metric | value |\n|---|---|\n| C-002 | 0.8 |\n- type: causal\n",
			want: []Claim{{ID: "C-001", Title: "A", Status: StatusProvisional, Type: TypeCausal, Tier: 3, Line: 1}},
		},
		{
			name: "malformed values",
			in: "## C-001: A\n- status: DONE\n- type: anecdotal\n- tier: 4\n- confidence: high\n- kill-reason: boredom\n" +
				"- salvaged-seed: SEED-1\n- depends-on: C-002, foo\n- status: PROVISIONAL\n## C-002: B\n- status: PROVISIONAL\n",
			want: []Claim{
				{ID: "C-001", Title: "A", Tier: 3, DependsOn: []string{"C-002"}, Line: 1},
				{ID: "C-002", Title: "B", Status: StatusProvisional, Tier: 3, Line: 10},
			},
			errs: []string{
				`line 2: C-001: status "DONE" is not a claim status; use one of PROVISIONAL, PROMOTED, VERIFIED, DISPUTED, KILLED`,
				`line 3: C-001: type "anecdotal" is not a claim type; use one of descriptive, correlative, predictive, causal`,
				`line 4: C-001: tier "4" is not a tier; write a whole number from 0 to 3 or leave it out to default from the type`,
				`line 5: C-001: confidence "high" is not a number from 0 to 1; write it like 0.62 (or 62%)`,
				`line 6: C-001: kill-reason "boredom" is not a kill reason; use one of INSUFFICIENT_EVIDENCE, CONFOUNDED, ARTIFACT, LOGICALLY_FALSE, PREMATURE`,
				`line 7: C-001: salvaged-seed "SEED-1" is not a seed id; seed ids look like SEED-20260101-001`,
				`line 8: C-001: depends-on lists "foo", which is not a claim id; list ids like C-001 separated by commas`,
				`line 9: C-001: field status is given twice (first at line 2); keep one`,
			},
		},
		{
			name: "missing status, promoted without type, killed without reason",
			in:   "## C-001: A\n- type: causal\n## C-002: B\n- status: PROMOTED\n## C-003: C\n- status: KILLED\n- type: causal\n",
			want: []Claim{
				{ID: "C-001", Title: "A", Type: TypeCausal, Tier: 3, Line: 1},
				{ID: "C-002", Title: "B", Status: StatusPromoted, Tier: 3, Line: 3},
				{ID: "C-003", Title: "C", Status: StatusKilled, Type: TypeCausal, Tier: 3, Line: 5},
			},
			errs: []string{
				"line 1: C-001: claim has no status; add `- status: PROVISIONAL` (or fill its status cell) with one of PROVISIONAL, PROMOTED, VERIFIED, DISPUTED, KILLED",
				"line 3: C-002: claim is PROMOTED without a type; add `- type:` with one of descriptive, correlative, predictive, causal",
				"line 5: C-003: claim is KILLED without a kill-reason; add `- kill-reason:` with one of INSUFFICIENT_EVIDENCE, CONFOUNDED, ARTIFACT, LOGICALLY_FALSE, PREMATURE",
			},
		},
		{
			name: "a tier below the type's floor is raised and reported",
			in:   "## C-001: A\n- status: PROVISIONAL\n- type: predictive\n- tier: 0\n",
			want: []Claim{{ID: "C-001", Title: "A", Status: StatusProvisional, Type: TypePredictive, Tier: 2, Line: 1}},
			errs: []string{"line 4: C-001: tier 0 is below tier 2 of a predictive claim, so the gates of tier 2 apply; raise the tier or correct the type"},
		},
		{
			name: "duplicates across forms and bad ids",
			in: "## C-001: A\n- status: PROVISIONAL\n| id | status |\n|---|---|\n| C001 | KILLED |\n| C-7 | PROVISIONAL |\n" +
				"\n## C1: short\n- status: PROVISIONAL\n## Conclusions\n",
			want: []Claim{{ID: "C-001", Title: "A", Status: StatusProvisional, Tier: 3, Line: 1}},
			errs: []string{
				"line 5: C-001: claim is already defined at line 1; give this entry a new id or merge the two",
				`line 6: table row id "C-7" is not a claim id; claim ids are C- followed by at least 3 digits, e.g. C-001`,
				`line 8: heading "C1: short" does not start with a valid claim id; claim ids are C- followed by at least 3 digits, e.g. C-001`,
			},
		},
		{
			name: "a self-dependency parses; the evidence graph reports it",
			in:   "## C-001: A\n- status: PROVISIONAL\n- depends-on: C-001, C-001\n",
			want: []Claim{{ID: "C-001", Title: "A", Status: StatusProvisional, Tier: 3, DependsOn: []string{"C-001"}, Line: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, errs := ParseLedger([]byte(tt.in))
			if !reflect.DeepEqual(l.Claims, tt.want) {
				t.Errorf("claims:\n%#v\nwant\n%#v", l.Claims, tt.want)
			}
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
				if pe, ok := e.(*ParseError); !ok || pe.Line < 1 {
					t.Errorf("error %v is not a *ParseError with a line", e)
				}
			}
			if !reflect.DeepEqual(got, tt.errs) {
				t.Errorf("errors:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.errs, "\n"))
			}
		})
	}
}

func TestLedgerFind(t *testing.T) {
	l, _ := ParseLedger([]byte("## C-001: A\n- status: PROVISIONAL\n## C-002: B\n- status: KILLED\n- kill-reason: ARTIFACT\n"))
	tests := []struct {
		id     string
		want   string
		wantOK bool
	}{
		{"C-002", "B", true},
		{"c002", "B", true},
		{"C-003", "", false},
		{"nonsense", "", false},
	}
	for _, tt := range tests {
		c, ok := l.Find(tt.id)
		if c.Title != tt.want || ok != tt.wantOK {
			t.Errorf("Find(%q) = %q, %v; want %q, %v", tt.id, c.Title, ok, tt.want, tt.wantOK)
		}
	}
}
