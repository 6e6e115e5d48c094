package integrity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Direction says which way of moving a threshold makes its gate easier to pass.
type Direction string

// The directions. Unknown means the monitor cannot tell, so any change may
// loosen.
const (
	LowerLooser  Direction = "lower_looser"
	HigherLooser Direction = "higher_looser"
	Unknown      Direction = "unknown"
)

// MaxBps caps the basis points one change can count, so a threshold moved
// away from a tiny value cannot overflow a sum.
const MaxBps = 1<<31 - 1

// DefaultDirections returns a fresh copy of the direction table for the keys
// the shipped domain configs use (see the package documentation).
func DefaultDirections() map[string]Direction {
	return map[string]Direction{
		"dq1.mean_mismatch_range[0]":   LowerLooser,
		"dq1.mean_mismatch_range[1]":   HigherLooser,
		"dq1.leakage_corr_threshold":   HigherLooser,
		"dq1.allowed_missing_fraction": HigherLooser,
		"dq1.min_samples":              LowerLooser,
		"dq2.min_auc":                  LowerLooser,
		"dq2.min_r2":                   LowerLooser,
		"dq2.max_dominance":            HigherLooser,
		"dq2.max_fold_cv":              HigherLooser,
		"dq1.max_share_change":         HigherLooser,
		// The inferred checks flag less as these rise, whatever the min_
		// in their names says.
		"dq1.pairs.min_agreement":  HigherLooser,
		"dq1.pairs.min_kappa":      HigherLooser,
		"dq1.point_mass.min_share": HigherLooser,
		"dq2.min_groups_per_fold":  LowerLooser,
		"dq2.min_group_share_kept": LowerLooser,
		"dq4.surprising_effect":    HigherLooser,
		"dq3.max_coverage_gap":     HigherLooser,
		"dq3.max_coverage":         HigherLooser,
	}
}

// ThresholdChange is one numeric threshold of one domain moving from Old to
// New at At. Bps is its size in basis points (see BasisPoints); Loosens is
// true only when the direction is known and the move makes the gate easier to
// pass; AfterFailure is set by MarkAfterFailure.
type ThresholdChange struct {
	Domain       string    `json:"domain"`
	Key          string    `json:"key"`
	Old          float64   `json:"old"`
	New          float64   `json:"new"`
	At           time.Time `json:"at"`
	Direction    Direction `json:"direction"`
	Loosens      bool      `json:"loosens"`
	AfterFailure bool      `json:"after_failure"`
	Bps          int       `json:"bps"`
}

// MayLoosen reports whether c loosens its gate or might: a change of unknown
// direction cannot be shown to tighten, so it is judged as a loosening.
func (c ThresholdChange) MayLoosen() bool {
	return c.Loosens || (c.Direction != LowerLooser && c.Direction != HigherLooser && c.Old != c.New)
}

// DiffThresholds compares two versions of a domain config (raw JSON objects)
// and returns one change per numeric key whose value differs, sorted by key.
// loosening says which way loosens each key; nil means DefaultDirections.
func DiffThresholds(domain string, old, new []byte, at time.Time, loosening map[string]Direction) ([]ThresholdChange, error) {
	before, err := flattenConfig(old)
	if err != nil {
		return nil, fmt.Errorf("diff thresholds: old config of %s: %w", domain, err)
	}
	after, err := flattenConfig(new)
	if err != nil {
		return nil, fmt.Errorf("diff thresholds: new config of %s: %w", domain, err)
	}
	if loosening == nil {
		loosening = DefaultDirections()
	}
	keys := make([]string, 0, len(after))
	for k := range after {
		if o, ok := before[k]; ok && o != after[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	changes := make([]ThresholdChange, 0, len(keys))
	for _, k := range keys {
		c := ThresholdChange{Domain: domain, Key: k, Old: before[k], New: after[k], At: at}
		c.Direction = directionOf(k, loosening)
		switch c.Direction {
		case LowerLooser:
			c.Loosens = c.New < c.Old
		case HigherLooser:
			c.Loosens = c.New > c.Old
		}
		c.Bps = BasisPoints(c)
		changes = append(changes, c)
	}
	return changes, nil
}

// directionOf looks a key up in the table, then in the min_/max_ naming
// convention, and answers Unknown otherwise.
func directionOf(key string, table map[string]Direction) Direction {
	if d, ok := table[key]; ok && (d == LowerLooser || d == HigherLooser) {
		return d
	}
	last := key
	if i := strings.LastIndexByte(last, '.'); i >= 0 {
		last = last[i+1:]
	}
	switch {
	case strings.HasPrefix(last, "min_"):
		return LowerLooser
	case strings.HasPrefix(last, "max_"):
		return HigherLooser
	}
	return Unknown
}

// flattenConfig decodes a JSON object and returns its numeric leaves by
// dotted key. Numbers JSON cannot turn into a finite float64 are an error,
// because a threshold nobody can compare is a broken config.
func flattenConfig(raw []byte) (map[string]float64, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	obj, ok := tree.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("decode: want a JSON object, got %s", jsonKind(tree))
	}
	out := map[string]float64{}
	if err := flattenInto(out, "", obj); err != nil {
		return nil, err
	}
	return out, nil
}

func flattenInto(out map[string]float64, key string, v any) error {
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			next := k
			if key != "" {
				next = key + "." + k
			}
			if err := flattenInto(out, next, child); err != nil {
				return err
			}
		}
	case []any:
		for i, child := range t {
			if err := flattenInto(out, key+"["+strconv.Itoa(i)+"]", child); err != nil {
				return err
			}
		}
	case json.Number:
		f, err := t.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("threshold %s: %s is not a finite number", key, t)
		}
		out[key] = f
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// BasisPoints is the size of c relative to its old value: |new-old| / |old|
// × 10,000, rounded half away from zero, or |new-old| × 10,000 when old is 0.
// It is computed exactly on the decimals as written and capped at MaxBps.
func BasisPoints(c ThresholdChange) int {
	if c.Old == c.New {
		return 0
	}
	oldR, ok1 := exactDecimal(c.Old)
	newR, ok2 := exactDecimal(c.New)
	if !ok1 || !ok2 {
		return MaxBps
	}
	diff := new(big.Rat).Sub(newR, oldR)
	diff.Abs(diff)
	diff.Mul(diff, big.NewRat(10000, 1))
	if oldR.Sign() != 0 {
		diff.Quo(diff, new(big.Rat).Abs(oldR))
	}
	// diff >= 0 here, so half away from zero is half up.
	q, r := new(big.Int).QuoRem(diff.Num(), diff.Denom(), new(big.Int))
	if r.Lsh(r, 1).Cmp(diff.Denom()) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() || q.Int64() > MaxBps {
		return MaxBps
	}
	return int(q.Int64())
}

// exactDecimal reads f back as the shortest decimal that round-trips, which
// is the number as it was written in the config.
func exactDecimal(f float64) (*big.Rat, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false
	}
	return new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
}

// Failure is a gate failing on a threshold key of a domain at a moment. Key
// may name one key ("dq2.min_auc") or a whole gate block ("dq2"), which then
// covers every key under it.
type Failure struct {
	Domain string    `json:"domain"`
	Key    string    `json:"key"`
	At     time.Time `json:"at"`
}

// DefaultFailureLookback is how long after a gate failure a change to the
// same threshold still counts as made because of that failure.
const DefaultFailureLookback = 7 * 24 * time.Hour

// MarkAfterFailure returns a copy of changes with AfterFailure set on every
// change made at most lookback after a failure on its key (failure at or
// before the change). lookback <= 0 means DefaultFailureLookback.
func MarkAfterFailure(changes []ThresholdChange, failures []Failure, lookback time.Duration) []ThresholdChange {
	if lookback <= 0 {
		lookback = DefaultFailureLookback
	}
	out := make([]ThresholdChange, len(changes))
	copy(out, changes)
	for i := range out {
		c := &out[i]
		for _, f := range failures {
			if f.Domain != c.Domain || !coversKey(f.Key, c.Key) {
				continue
			}
			if !f.At.After(c.At) && c.At.Sub(f.At) <= lookback {
				c.AfterFailure = true
				break
			}
		}
	}
	return out
}

// coversKey reports whether a failure recorded on failKey concerns key.
func coversKey(failKey, key string) bool {
	if failKey == key {
		return true
	}
	return strings.HasPrefix(key, failKey) && len(key) > len(failKey) &&
		(key[len(failKey)] == '.' || key[len(failKey)] == '[')
}

// formatNumber renders a threshold value the way JSON wrote it.
func formatNumber(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}
