package claim

import (
	"reflect"
	"testing"
)

// mustLedger parses a ledger that the test expects to be well formed.
func mustLedger(t *testing.T, src string) Ledger {
	t.Helper()
	l, errs := ParseLedger([]byte(src))
	if len(errs) != 0 {
		t.Fatalf("ledger does not parse cleanly: %v\n%s", errs, src)
	}
	return l
}

func TestDiff(t *testing.T) {
	const (
		c1prov  = "## C-001: Rate rises\n- status: PROVISIONAL\n- type: correlative\n- confidence: 0.62\n"
		c1prom  = "## C-001: Rate rises\n- status: PROMOTED\n- type: correlative\n- confidence: 0.62\n"
		c1ver   = "## C-001: Rate rises\n- status: VERIFIED\n- type: correlative\n- confidence: 0.62\n"
		c1disp  = "## C-001: Rate rises\n- status: DISPUTED\n- type: correlative\n- confidence: 0.62\n"
		c1kill  = "## C-001: Rate rises\n- status: KILLED\n- type: correlative\n- confidence: 0.62\n- kill-reason: CONFOUNDED\n- salvaged-seed: SEED-20260101-001\n"
		c1conf  = "## C-001: Rate rises\n- status: PROVISIONAL\n- type: correlative\n- confidence: 0.7\n"
		c1noc   = "## C-001: Rate rises\n- status: PROVISIONAL\n- type: correlative\n"
		c1same  = "## C-001: Rate rises, retitled\n- status: PROVISIONAL\n- type: correlative\n- confidence: 0.620\n- evidence: new.json\n"
		c2prov  = "## C-002: Base\n- status: PROVISIONAL\n- type: descriptive\n"
		c2prom  = "## C-002: Base\n- status: PROMOTED\n- type: descriptive\n"
		c999    = "## C-999: Late\n- status: PROVISIONAL\n"
		c1000   = "## C-1000: Later\n- status: PROVISIONAL\n- confidence: 0.1\n"
		c1badst = "## C-001: Rate rises\n- status: PROMOTD\n- type: correlative\n- confidence: 0.62\n"
	)
	tests := []struct {
		name     string
		old, new string
		want     []Event
	}{
		{name: "nothing", old: "", new: ""},
		{
			name: "create", old: "", new: c1prov,
			want: []Event{{ClaimID: "C-001", Type: EventCreated, NewStatus: StatusProvisional, Confidence: 0.62, HasConfidence: true,
				Narrative: "C-001 created as PROVISIONAL: Rate rises"}},
		},
		{
			name: "create straight in as promoted", old: "", new: c2prom,
			want: []Event{
				{ClaimID: "C-002", Type: EventCreated, NewStatus: StatusPromoted, Narrative: "C-002 created as PROMOTED: Base"},
				{ClaimID: "C-002", Type: EventPromoted, NewStatus: StatusPromoted, Narrative: "C-002 promoted at creation"},
			},
		},
		{
			name: "create straight in as killed", old: "", new: c1kill,
			want: []Event{
				{ClaimID: "C-001", Type: EventCreated, NewStatus: StatusKilled, Confidence: 0.62, HasConfidence: true,
					Narrative: "C-001 created as KILLED: Rate rises"},
				{ClaimID: "C-001", Type: EventKilled, NewStatus: StatusKilled, KillReason: KillConfounded, Confidence: 0.62, HasConfidence: true,
					Narrative: "C-001 killed (CONFOUNDED) at creation"},
			},
		},
		{
			name: "promote", old: c1prov, new: c1prom,
			want: []Event{{ClaimID: "C-001", Type: EventPromoted, OldStatus: StatusProvisional, NewStatus: StatusPromoted,
				Confidence: 0.62, HasConfidence: true, Narrative: "C-001 promoted: PROVISIONAL → PROMOTED"}},
		},
		{
			name: "verify", old: c1prom, new: c1ver,
			want: []Event{{ClaimID: "C-001", Type: EventVerified, OldStatus: StatusPromoted, NewStatus: StatusVerified,
				Confidence: 0.62, HasConfidence: true, Narrative: "C-001 verified: PROMOTED → VERIFIED"}},
		},
		{
			name: "dispute", old: c1prom, new: c1disp,
			want: []Event{{ClaimID: "C-001", Type: EventDisputed, OldStatus: StatusPromoted, NewStatus: StatusDisputed,
				Confidence: 0.62, HasConfidence: true, Narrative: "C-001 disputed: PROMOTED → DISPUTED"}},
		},
		{
			name: "kill with its reason", old: c1prom, new: c1kill,
			want: []Event{{ClaimID: "C-001", Type: EventKilled, OldStatus: StatusPromoted, NewStatus: StatusKilled, KillReason: KillConfounded,
				Confidence: 0.62, HasConfidence: true, Narrative: "C-001 killed (CONFOUNDED): PROMOTED → KILLED"}},
		},
		{
			name: "reopen a killed claim", old: c1kill, new: c1prov,
			want: []Event{{ClaimID: "C-001", Type: EventReopened, OldStatus: StatusKilled, NewStatus: StatusProvisional,
				Confidence: 0.62, HasConfidence: true, Narrative: "C-001 reopened: KILLED → PROVISIONAL"}},
		},
		{
			name: "confidence changes", old: c1prov, new: c1conf,
			want: []Event{{ClaimID: "C-001", Type: EventConfidenceUpdated, OldStatus: StatusProvisional, NewStatus: StatusProvisional,
				Confidence: 0.7, HasConfidence: true, Narrative: "C-001 confidence 0.62 → 0.7"}},
		},
		{
			name: "confidence appears", old: c1noc, new: c1prov,
			want: []Event{{ClaimID: "C-001", Type: EventConfidenceUpdated, OldStatus: StatusProvisional, NewStatus: StatusProvisional,
				Confidence: 0.62, HasConfidence: true, Narrative: "C-001 confidence set to 0.62"}},
		},
		{
			name: "confidence disappears", old: c1prov, new: c1noc,
			want: []Event{{ClaimID: "C-001", Type: EventConfidenceUpdated, OldStatus: StatusProvisional, NewStatus: StatusProvisional,
				Narrative: "C-001 confidence removed (was 0.62)"}},
		},
		{name: "same values written differently, new title and evidence", old: c1prov, new: c1same},
		{name: "reordering only", old: c1prov + c2prov + c999, new: c999 + c2prov + c1prov},
		{name: "a removed claim gives no event", old: c1prov + c2prov, new: c2prov},
		{
			name: "several at once, sorted by id then type", old: c1prov + c2prov, new: c1000 + c999 + c2prom + c1kill,
			want: []Event{
				{ClaimID: "C-001", Type: EventKilled, OldStatus: StatusProvisional, NewStatus: StatusKilled, KillReason: KillConfounded,
					Confidence: 0.62, HasConfidence: true, Narrative: "C-001 killed (CONFOUNDED): PROVISIONAL → KILLED"},
				{ClaimID: "C-002", Type: EventPromoted, OldStatus: StatusProvisional, NewStatus: StatusPromoted,
					Narrative: "C-002 promoted: PROVISIONAL → PROMOTED"},
				{ClaimID: "C-999", Type: EventCreated, NewStatus: StatusProvisional, Narrative: "C-999 created as PROVISIONAL: Late"},
				{ClaimID: "C-1000", Type: EventCreated, NewStatus: StatusProvisional, Confidence: 0.1, HasConfidence: true,
					Narrative: "C-1000 created as PROVISIONAL: Later"},
			},
		},
		{
			name: "status and confidence of one claim at once", old: c1prov,
			new: "## C-001: Rate rises\n- status: PROMOTED\n- type: correlative\n- confidence: 0.8\n",
			want: []Event{
				{ClaimID: "C-001", Type: EventPromoted, OldStatus: StatusProvisional, NewStatus: StatusPromoted,
					Confidence: 0.8, HasConfidence: true, Narrative: "C-001 promoted: PROVISIONAL → PROMOTED"},
				{ClaimID: "C-001", Type: EventConfidenceUpdated, OldStatus: StatusProvisional, NewStatus: StatusPromoted,
					Confidence: 0.8, HasConfidence: true, Narrative: "C-001 confidence 0.62 → 0.8"},
			},
		},
		{name: "an unreadable new status gives no status event", old: c1prov, new: c1badst},
		{name: "an unreadable old status gives no status event", old: c1badst, new: c1prom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, _ := ParseLedger([]byte(tt.old))
			new, _ := ParseLedger([]byte(tt.new))
			got := Diff(old, new)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Diff:\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestDiffKeepsTheFirstOfDuplicateIDs(t *testing.T) {
	// Callers may build ledgers by hand; the first entry of an id wins on
	// both sides, as in the parser.
	old := Ledger{Claims: []Claim{{ID: "C-001", Status: StatusProvisional}, {ID: "C-001", Status: StatusKilled}}}
	new := Ledger{Claims: []Claim{{ID: "C-001", Status: StatusPromoted}, {ID: "C-001", Status: StatusKilled}}}
	want := []Event{{ClaimID: "C-001", Type: EventPromoted, OldStatus: StatusProvisional, NewStatus: StatusPromoted,
		Narrative: "C-001 promoted: PROVISIONAL → PROMOTED"}}
	if got := Diff(old, new); !reflect.DeepEqual(got, want) {
		t.Errorf("Diff = %#v, want %#v", got, want)
	}
}

func TestRemoved(t *testing.T) {
	tests := []struct {
		name     string
		old, new Ledger
		want     []string
	}{
		{name: "none", old: Ledger{Claims: []Claim{{ID: "C-001"}}}, new: Ledger{Claims: []Claim{{ID: "C-001"}}}},
		{name: "all", old: Ledger{Claims: []Claim{{ID: "C-1000"}, {ID: "C-002"}, {ID: "C-002"}}}, new: Ledger{}, want: []string{"C-002", "C-1000"}},
		{name: "one", old: Ledger{Claims: []Claim{{ID: "C-001"}, {ID: "C-002"}}}, new: Ledger{Claims: []Claim{{ID: "C-002"}, {ID: "C-003"}}}, want: []string{"C-001"}},
	}
	for _, tt := range tests {
		if got := Removed(tt.old, tt.new); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Removed = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestPromotions(t *testing.T) {
	events := []Event{
		{ClaimID: "C-1000", Type: EventVerified},
		{ClaimID: "C-003", Type: EventCreated},
		{ClaimID: "C-002", Type: EventPromoted},
		{ClaimID: "C-002", Type: EventVerified},
		{ClaimID: "C-004", Type: EventKilled},
		{ClaimID: "C-005", Type: EventConfidenceUpdated},
		{ClaimID: "C-006", Type: EventDisputed},
	}
	if got, want := Promotions(events), []string{"C-002", "C-1000"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Promotions = %q, want %q", got, want)
	}
	if got := Promotions(nil); got != nil {
		t.Errorf("Promotions(nil) = %q, want nil", got)
	}
}

func TestReviewEvents(t *testing.T) {
	got := ReviewEvents("RQ-001/05-reviewer2/R2-1.md", []byte("## C-002 REJECT\n## C-001 ACCEPT\nC-002 again\n"))
	want := []Event{
		{ClaimID: "C-001", Type: EventR2Reviewed, Narrative: "C-001 cited in review RQ-001/05-reviewer2/R2-1.md"},
		{ClaimID: "C-002", Type: EventR2Reviewed, Narrative: "C-002 cited in review RQ-001/05-reviewer2/R2-1.md"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReviewEvents = %#v, want %#v", got, want)
	}
	if got := ReviewEvents("x.md", []byte("no claims")); len(got) != 0 {
		t.Errorf("ReviewEvents of a file citing nothing = %#v, want none", got)
	}
}
