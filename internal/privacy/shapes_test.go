package privacy

import (
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/privacy/shapes"
)

// TestEveryShapeIsScrubbed: each secret shape loses its secret, keeps its
// context, and a second Scrub changes nothing.
func TestEveryShapeIsScrubbed(t *testing.T) {
	all := shapes.All()
	if len(all) < 40 {
		t.Fatalf("only %d shapes", len(all))
	}
	for _, s := range all {
		got := Scrub(s.Text)
		if strings.Contains(got, s.Secret) {
			t.Errorf("%s: %q kept %q", s.Name, got, s.Secret)
		}
		if !strings.Contains(got, Redacted) && !strings.Contains(got, PrivateMarker) {
			t.Errorf("%s: %q has no marker", s.Name, got)
		}
		if again := Scrub(got); again != got {
			t.Errorf("%s: not idempotent: %q then %q", s.Name, got, again)
		}
	}
}

// TestOrdinaryTextIsKept: commands and prose that look near a rule but
// hold no secret stay as written.
func TestOrdinaryTextIsKept(t *testing.T) {
	for _, s := range []string{
		"the key finding is robust",
		"mkdir -p out && python train.py --epochs 10 --lr 0.01",
		"mysql -u root -p cohort",
		"mysql -h db -P 3306 -u root cohort",
		"git clone https://github.com/o/r.git",
		"curl -s https://api.example.org/v1/data?page=2",
		"python eval.py --password-file ~/.pw --token-count 5",
		"pytest -k 'not slow' -x",
		"the private key idea was dropped",
		"docker run -p 8080:80 nginx",
		"ssh -p 2222 lab@host",
	} {
		if got := Scrub(s); got != s {
			t.Errorf("Scrub(%q) = %q", s, got)
		}
	}
}

// BenchmarkScrub: Scrub runs on every text a hook writes.
func BenchmarkScrub(b *testing.B) {
	texts := map[string]string{
		"command":        "python train.py --epochs 10 --lr 0.01 --data data/cohort.csv && python eval.py > results/metrics.json",
		"summary-1k":     strings.Repeat("AUC 0.81 on held-out guides; calibration ECE 0.04. ", 20),
		"with-secret":    "curl -u alice:S3cretPassw0rd -H 'Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0' https://x",
		"code-edit-16k":  strings.Repeat("def fit(model, X, y):\n    return model.fit(X, y)  # token count, api key lookups\n", 200),
		"prose-no-rules": strings.Repeat("The effect holds in replicate B with n = 42. ", 25),
	}
	for name, s := range texts {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				Scrub(s)
			}
		})
	}
}
