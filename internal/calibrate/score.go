package calibrate

import (
	"context"
	"fmt"
	"math"

	"github.com/vibe-science/vibe/internal/store/record"
)

// MinOutcomes is how many outcomes the Brier score and ECE wait for:
// below it, one claim moves them too much to mean anything.
const MinOutcomes = 10

// DefaultBins is the number of equal-width confidence bins of the ECE.
const DefaultBins = 10

// Point is one prediction and what happened.
type Point struct {
	ClaimID    string  `json:"claim_id"`
	Confidence float64 `json:"confidence"`
	Held       bool    `json:"held"`
}

// Bin is one confidence bin: [Lo, Hi), the last one closed at 1.
type Bin struct {
	Lo             float64 `json:"lo"`
	Hi             float64 `json:"hi"`
	N              int     `json:"n"`
	MeanConfidence float64 `json:"mean_confidence"`
	HeldRate       float64 `json:"held_rate"`
	Gap            float64 `json:"gap"`
}

// Calibration is the score of a set of predictions.
type Calibration struct {
	N     int     `json:"n"`
	Brier float64 `json:"brier"`
	ECE   float64 `json:"ece"`
	Bins  []Bin   `json:"bins"`
}

// Points turns the calibration log into one point per claim: its latest
// outcome with the confidence predicted for it, so a claim verified, then
// reopened and killed counts once, as killed. Points come in the order of
// each claim's first entry.
func Points(entries []record.CalibrationEntry) []Point {
	idx := map[string]int{}
	var out []Point
	for _, e := range entries {
		p := Point{ClaimID: e.ClaimID, Confidence: e.Predicted, Held: Held(e.Outcome)}
		if i, ok := idx[e.ClaimID]; ok {
			out[i] = p
			continue
		}
		idx[e.ClaimID] = len(out)
		out = append(out, p)
	}
	return out
}

// Score computes the Brier score, mean((confidence − outcome)²) with
// outcome 1 for a claim that held and 0 for one that fell, and the expected
// calibration error: the points are put in bins equal-width bins of
// confidence, [0, 1/bins), …, [1 − 1/bins, 1]; each bin's gap is |share
// held − mean confidence|, and ECE is the mean of the gaps weighted by the
// bins' sizes. bins < 1 means DefaultBins. Empty input scores 0.
func Score(points []Point, bins int) Calibration {
	if bins < 1 {
		bins = DefaultBins
	}
	c := Calibration{N: len(points), Bins: make([]Bin, bins)}
	for i := range c.Bins {
		c.Bins[i].Lo, c.Bins[i].Hi = float64(i)/float64(bins), float64(i+1)/float64(bins)
	}
	if len(points) == 0 {
		return c
	}
	sumConf := make([]float64, bins)
	sumHeld := make([]float64, bins)
	for _, p := range points {
		y := 0.0
		if p.Held {
			y = 1
		}
		c.Brier += (p.Confidence - y) * (p.Confidence - y)
		b := binOf(p.Confidence, bins)
		c.Bins[b].N++
		sumConf[b] += p.Confidence
		sumHeld[b] += y
	}
	n := float64(len(points))
	c.Brier /= n
	for i := range c.Bins {
		b := &c.Bins[i]
		if b.N == 0 {
			continue
		}
		b.MeanConfidence = sumConf[i] / float64(b.N)
		b.HeldRate = sumHeld[i] / float64(b.N)
		b.Gap = math.Abs(b.HeldRate - b.MeanConfidence)
		c.ECE += float64(b.N) / n * b.Gap
	}
	return c
}

// binOf is the bin of confidence p. The small epsilon keeps a value such
// as 0.7, whose float times 10 lands a hair under 7, in the bin it is
// written to start.
func binOf(p float64, bins int) int {
	b := int(math.Floor(p*float64(bins) + 1e-9))
	if b < 0 {
		return 0
	}
	if b >= bins {
		return bins - 1
	}
	return b
}

// ProjectCalibration reads the project's calibration log and scores it. The
// score is meaningful only when N reaches MinOutcomes; callers say how many
// more are needed before that.
func ProjectCalibration(ctx context.Context, st Entries, project string, bins int) (Calibration, []Point, error) {
	es, err := st.CalibrationEntries(ctx, project)
	if err != nil {
		return Calibration{}, nil, fmt.Errorf("calibration: %w", err)
	}
	pts := Points(es)
	return Score(pts, bins), pts, nil
}
