package verdict

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Result is the outcome of one check.
type Result string

// The results, from harmless to hardest.
const (
	Pass      Result = "PASS"
	Warn      Result = "WARN"
	Block     Result = "BLOCK"
	HardBlock Result = "HARD_BLOCK"
)

// Severity says how much a non-passing result matters.
type Severity string

// The severities.
const (
	Low  Severity = "LOW"
	Med  Severity = "MED"
	High Severity = "HIGH"
)

// rank orders results so the hardest one wins when verdicts are combined.
func (r Result) rank() int {
	switch r {
	case Warn:
		return 1
	case Block:
		return 2
	case HardBlock:
		return 3
	}
	return 0
}

// Blocks reports whether r stops the action it judged.
func (r Result) Blocks() bool { return r == Block || r == HardBlock }

// Valid reports whether r is one of the four results.
func (r Result) Valid() bool {
	switch r {
	case Pass, Warn, Block, HardBlock:
		return true
	}
	return false
}

// Evidence is what a verdict rests on: files, claims, numbers, free notes.
type Evidence struct {
	Paths   []string `json:"paths,omitempty"`
	Claims  []string `json:"claims,omitempty"`
	Numbers []string `json:"numbers,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// Verdict is the decision envelope. Reason is the sentence a person (or
// Claude) reads; Recommendation is the one next step that fixes it.
type Verdict struct {
	Check          string          `json:"check"`
	Result         Result          `json:"result"`
	Severity       Severity        `json:"severity"`
	Reason         string          `json:"reason"`
	Evidence       Evidence        `json:"evidence"`
	Recommendation string          `json:"recommendation,omitempty"`
	Input          json.RawMessage `json:"input,omitempty"`
	DecisionHash   string          `json:"decision_hash"`
}

// New builds a verdict and computes its decision hash over check, input and
// result. input may be nil; it is canonicalised, so key order never changes
// the hash.
func New(check string, result Result, sev Severity, reason string, input any) Verdict {
	v := Verdict{Check: check, Result: result, Severity: sev, Reason: reason}
	if input != nil {
		if raw, err := Canonical(input); err == nil {
			v.Input = raw
		}
	}
	v.DecisionHash = Hash(v.Check, v.Input, v.Result)
	return v
}

// Hash is SHA-256 over the canonical JSON object {"check","input","result"}.
func Hash(check string, input json.RawMessage, result Result) string {
	var in any
	if len(input) > 0 {
		in = input
	}
	raw, err := Canonical(map[string]any{"check": check, "input": in, "result": string(result)})
	if err != nil {
		// Canonical only fails on values JSON cannot hold; fall back to the
		// parts themselves so the hash still changes with them.
		raw = []byte(fmt.Sprintf("%q|%s|%q", check, input, result))
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// Canonical renders v as canonical JSON: object keys sorted, no insignificant
// whitespace, no HTML escaping, numbers kept as written.
func Canonical(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := writeCanonical(&buf, tree); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeCanonical(buf *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			if err := writeCanonical(buf, t[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeCanonical(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case string:
		writeString(buf, t)
	case json.Number:
		buf.WriteString(t.String())
	case bool:
		if t {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case nil:
		buf.WriteString("null")
	default:
		return fmt.Errorf("canonical json: unexpected %T", v)
	}
	return nil
}

func writeString(buf *bytes.Buffer, s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	buf.Write(bytes.TrimRight(b.Bytes(), "\n"))
}

// Worst returns the hardest result among vs (PASS when vs is empty).
func Worst(vs []Verdict) Result {
	w := Pass
	for _, v := range vs {
		if v.Result.rank() > w.rank() {
			w = v.Result
		}
	}
	return w
}

// Sort orders verdicts hardest first, then by check name, so replies that list
// several reasons are deterministic.
func Sort(vs []Verdict) {
	sort.SliceStable(vs, func(i, j int) bool {
		if a, b := vs[i].Result.rank(), vs[j].Result.rank(); a != b {
			return a > b
		}
		return vs[i].Check < vs[j].Check
	})
}

// AddedFix is recommendation when it says something reason does not
// already say, else "": what a message shows after the reason as its fix.
func AddedFix(reason, recommendation string) string {
	if recommendation == "" || strings.Contains(reason, recommendation) {
		return ""
	}
	return recommendation
}
