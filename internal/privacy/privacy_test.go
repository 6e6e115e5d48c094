package privacy

import (
	"testing"

	"github.com/vibe-science/vibe/internal/privacy/shapes"
)

func TestScrub(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "AUC was 0.81 on held-out guides", "AUC was 0.81 on held-out guides"},
		{"private block", "keep <private>patient 42 is Ana</private> this", "keep [private] this"},
		{"private case and newline", "a <PRIVATE>x\ny</Private> b", "a [private] b"},
		{"unclosed private", "a <private>rest of it", "a [private]"},
		{"two private", "<private>a</private> mid <private>b</private>", "[private] mid [private]"},
		{"anthropic key", "export ANTHROPIC=sk-ant-api03-abcdefghijklmnopqrstu", "export ANTHROPIC=[REDACTED]"},
		{"openai key", "key sk-proj1234567890abcdefgh end", "key [REDACTED] end"},
		{"github token", "ghp_abcdefghijklmnopqrstuvwxyz0123", "[REDACTED]"},
		{"aws", "AKIAQWERTYUIOPASDFGH", "[REDACTED]"},
		{"aws documentation example (allowed by gitleaks)", "AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"},
		{"bearer", "curl -H 'Authorization: Bearer abcdef1234567890xyz'", "curl -H 'Authorization: Bearer [REDACTED]'"},
		{"url password", "git clone https://ana:hunter2secret@example.org/r.git", "git clone https://ana:[REDACTED]@example.org/r.git"},
		{"env password", "DB_PASSWORD=hunter2 python run.py", "DB_PASSWORD=[REDACTED] python run.py"},
		{"json api key", `{"api_key": "abc123"}`, `{"api_key": "[REDACTED]"}`},
		{"pem", "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\ny", "x\n[REDACTED]\ny"},
		{"jwt", "tok eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop", "tok [REDACTED]"},
		{"key word alone", "the key finding is robust", "the key finding is robust"},
	}
	for _, c := range cases {
		if got := Scrub(c.in); got != c.want {
			t.Errorf("%s: Scrub(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

func FuzzScrub(f *testing.F) {
	f.Add("a <private>b</private> sk-ant-abcdefghijklmnopqrstuv")
	for _, s := range shapes.All() {
		f.Add(s.Text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Scrub(s)
		if Scrub(out) != out {
			t.Fatalf("Scrub is not idempotent on %q", s)
		}
	})
}
