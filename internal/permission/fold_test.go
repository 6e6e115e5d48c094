package permission

import "testing"

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"CLAIM-LEDGER.md", "clalm-ledger.md"},
		{"claim-ledger.md", "clalm-ledger.md"},
		{"CLA1M-LEDGER.md", "clalm-ledger.md"},
		{"CL\u0410IM-LEDGER.md", "clalm-ledger.md"},                     // Cyrillic А
		{"\u0421L\u0410\u0406M-L\u0415DG\u0415R.md", "clalm-ledger.md"}, // Cyrillic С А І Е
		{"\uff23\uff2c\uff21\uff29\uff2d-LEDGER\uff0emd", "clalm-ledger.md"},
		{"CLAIM\u200b-LEDGER.md", "clalm-ledger.md"},
		{"CLAIM\u200d-LED\u00adGER.md\ufeff", "clalm-ledger.md"},
		{"CLA\u0399M-LEDGER.md", "clalm-ledger.md"},                                         // Greek Ι
		{"CL\u00c1IM-L\u00c9DGER.md", "clalm-ledger.md"},                                    // Á É
		{"CLA\u0301IM-LEDGER.md", "clalm-ledger.md"},                                        // combining acute
		{"CLAIM\u2010LEDGER.md", "clalm-ledger.md"},                                         // hyphen
		{"CLAIM\u2212LEDGER.md", "clalm-ledger.md"},                                         // minus
		{"\U0001d402\U0001d40b\U0001d400\U0001d408\U0001d40c-LEDGER.md", "clalm-ledger.md"}, // bold
		{"\u24b8LAIM-LEDGER.md", "clalm-ledger.md"},                                         // circled C
		{"CLA\u0130M-LEDGER.md", "clalm-ledger.md"},                                         // dotted capital I
		{"05-reviewer2", "o5-revlewer2"},
		{"O5-reviewer2", "o5-revlewer2"},
		{"**/05-reviewer2/**", "**/o5-revlewer2/**"},
		{"data/日本.csv", "data/日本.csv"},
		{"\xff\xfe", "\xff\xfe"},
	}
	for _, tc := range tests {
		if got := fold(tc.in); got != tc.want {
			t.Errorf("fold(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFoldPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"CLAIM-LEDGER.md.", "clalm-ledger.md"},
		{"CLAIM-LEDGER.md . .", "clalm-ledger.md"},
		{"CLAIM-LEDGER.md::$DATA", "clalm-ledger.md"},
		{"RQ-001/05-reviewer2./x", "rq-ool/o5-revlewer2/x"},
		{"c:/proj/CLAIM-LEDGER.md", "c:/proj/clalm-ledger.md"},
		{"a/../b", "a/../b"},
		{"...", "..."},
	}
	for _, tc := range tests {
		if got := foldPath(tc.in); got != tc.want {
			t.Errorf("foldPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
