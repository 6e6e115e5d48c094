package claim

import (
	"errors"
	"testing"
)

func TestApplyEdit(t *testing.T) {
	const ledger = "## C-001: A\n- status: PROVISIONAL\n## C-002: B\n- status: PROVISIONAL\n"
	tests := []struct {
		name             string
		old              string
		from, to         string
		all              bool
		want             string
		wantErr          error
		wantErrorMessage string
	}{
		{name: "one match", old: ledger, from: "## C-001: A\n- status: PROVISIONAL", to: "## C-001: A\n- status: PROMOTED",
			want: "## C-001: A\n- status: PROMOTED\n## C-002: B\n- status: PROVISIONAL\n"},
		{name: "replace all", old: ledger, from: "PROVISIONAL", to: "DISPUTED", all: true,
			want: "## C-001: A\n- status: DISPUTED\n## C-002: B\n- status: DISPUTED\n"},
		{name: "replace all with one match", old: ledger, from: "C-002", to: "C-003", all: true,
			want: "## C-001: A\n- status: PROVISIONAL\n## C-003: B\n- status: PROVISIONAL\n"},
		{name: "deletion", old: ledger, from: "## C-002: B\n- status: PROVISIONAL\n", to: "",
			want: "## C-001: A\n- status: PROVISIONAL\n"},
		{name: "ambiguous", old: ledger, from: "PROVISIONAL", to: "KILLED", wantErr: ErrEditAmbiguous,
			wantErrorMessage: "apply edit: old_string occurs more than once and replace_all is false (2 matches)"},
		{name: "not found", old: ledger, from: "C-009", to: "C-010", wantErr: ErrEditNotFound,
			wantErrorMessage: "apply edit: old_string does not occur in the file"},
		{name: "no change", old: ledger, from: "C-001", to: "C-001", wantErr: ErrEditNoChange,
			wantErrorMessage: "apply edit: old_string and new_string are the same, so the edit changes nothing"},
		{name: "empty old_string creates", old: "", from: "", to: "## C-001: A\n", want: "## C-001: A\n"},
		{name: "empty old_string on a blank file", old: " \n", from: "", to: "x", want: "x"},
		{name: "empty old_string on content", old: ledger, from: "", to: "x", wantErr: ErrEditNotEmpty,
			wantErrorMessage: "apply edit: an empty old_string only creates a file, and this file already has content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyEdit([]byte(tt.old), tt.from, tt.to, tt.all)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || err.Error() != tt.wantErrorMessage || got != nil {
					t.Fatalf("ApplyEdit = %q, %v; want nil, %q", got, err, tt.wantErrorMessage)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("ApplyEdit = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestApplyEditLeavesInputAlone(t *testing.T) {
	old := []byte("a b a")
	if _, err := ApplyEdit(old, "a", "c", true); err != nil {
		t.Fatal(err)
	}
	if string(old) != "a b a" {
		t.Fatalf("input changed to %q", old)
	}
}

func TestApplyEdits(t *testing.T) {
	const ledger = "## C-001: A\n- status: PROVISIONAL\n"
	got, err := ApplyEdits([]byte(ledger), []EditOp{
		{OldString: "PROVISIONAL", NewString: "PROMOTED"},
		{OldString: "- status: PROMOTED\n", NewString: "- status: PROMOTED\n- type: descriptive\n"},
		{OldString: "A", NewString: "Alpha", ReplaceAll: true},
	})
	if want := "## C-001: Alpha\n- status: PROMOTED\n- type: descriptive\n"; err != nil || string(got) != want {
		t.Fatalf("ApplyEdits = %q, %v; want %q", got, err, want)
	}
	// The second edit looks for text the first one removed: the whole call fails.
	got, err = ApplyEdits([]byte(ledger), []EditOp{
		{OldString: "PROVISIONAL", NewString: "PROMOTED"},
		{OldString: "PROVISIONAL", NewString: "KILLED"},
	})
	if got != nil || !errors.Is(err, ErrEditNotFound) || err.Error() != "multi-edit 2 of 2: apply edit: old_string does not occur in the file" {
		t.Fatalf("ApplyEdits = %q, %v; want a failure of edit 2", got, err)
	}
	if got, err := ApplyEdits([]byte(ledger), nil); err != nil || string(got) != ledger {
		t.Fatalf("ApplyEdits with no edits = %q, %v", got, err)
	}
}
