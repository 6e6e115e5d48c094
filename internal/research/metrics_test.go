package research

import (
	"testing"

	"github.com/vibe-science/vibe/internal/gate"
)

// TestCrossValidateOutputIsMetrics: scikit-learn's cross_validate writes
// its held-out scores as lists under test_<metric>; recognition reads them
// as DQ2 does (gate.HeldOutScore), while a file that only names a metric
// is no metrics file.
func TestCrossValidateOutputIsMetrics(t *testing.T) {
	d, _ := gate.ShippedDomain(gate.GenericDomain)
	for _, c := range []struct{ json, kind string }{
		{`{"fit_time": [0.41, 0.44], "score_time": [0.01, 0.01], "test_roc_auc": [0.79, 0.83], "train_roc_auc": [0.93, 0.94]}`, KindMetrics},
		{`{"fit_time": [0.41, 0.44], "test_r2": [0.31, 0.35], "train_r2": [0.9, 0.91]}`, KindMetrics},
		{`{"learning_rate": 0.05, "max_depth": 6, "eval_metric": "auc"}`, ""},
		{`{"train_roc_auc": [0.93, 0.94]}`, ""},
	} {
		if a := Recognize(File{Rel: "results/cv_scores.json", Head: []byte(c.json), Size: int64(len(c.json))}, d); a.Kind != c.kind {
			t.Errorf("%s: kind %q (%s), want %q", c.json, a.Kind, a.Why, c.kind)
		}
	}
}
