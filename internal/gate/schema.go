package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"strings"
)

// SchemaValidator validates an artifact against a schema file of
// skill/vibe/schemas and returns one line per violation. It is set by the
// programs that validate schemas (the vibe CLI, through internal/cli) and
// left nil in hook binaries: the JSON Schema library compiles every draft's
// meta-schemas when it is loaded (~12 ms), which no tool call should pay.
// Without it, artifacts are still parsed and their arithmetic checked, and
// the result says that the schema was not checked.
var SchemaValidator func(schemaFile string, artifact []byte) (violations []string, err error)

// SchemaFile normalises a schema name as people write it (vigilance-check,
// vigilance-check.schema.json) to its file name.
func SchemaFile(name string) string {
	name = path.Base(strings.TrimSpace(name))
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".json"), ".schema")
	return name + ".schema.json"
}

// ValidateSchema validates a JSON artifact against the schema of that name
// in skill/vibe/schemas/ (draft 2020-12, formats asserted). The result's
// gate is the gate that owns the schema (V0 for vigilance-check …), or
// "schema:<name>" for a schema no gate owns. Each violation is one failed
// check with its JSON pointer. A valid artifact that records its own
// outcome still fails on it: a top-level gate_result or verdict of FAIL
// fails, WEAK_PASS warns; and V0 and J0 artifacts must be arithmetically
// consistent (the mutation score and the total must follow from the
// counts and the dimension scores).
func ValidateSchema(schemaName string, artifact []byte) Result {
	return validateArtifact(schemaName, artifact)
}

func validateArtifact(schemaName string, artifact []byte) Result {
	file := SchemaFile(schemaName)
	id, ok := schemaGate(file)
	if !ok {
		id = "schema:" + strings.TrimSuffix(file, ".schema.json")
	}
	res := newResult(id)
	fix := "fix the artifact to match its schema (`vibe help schemas " + strings.TrimSuffix(file, ".schema.json") + "`)"
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(artifact))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		res.fail("schema", fmt.Sprintf("the artifact is not valid JSON: %v", err), "write the artifact as one JSON object")
		return res
	}
	if SchemaValidator == nil {
		res.pass("schema", "parsed; not checked against "+file+" here (`vibe gate run` and `vibe gate check` validate it)")
	} else {
		violations, err := SchemaValidator(file, artifact)
		if err != nil {
			res.fail("schema", err.Error(), "use one of the schema names in skill/vibe/schemas")
			return res
		}
		for _, v := range violations {
			res.fail("schema", v, fix)
		}
		if len(violations) > 0 {
			return res
		}
		res.pass("schema", "valid against "+file)
	}
	outcome(&res, numbersToFloat(obj))
	switch id {
	case "V0":
		vigilanceArithmetic(&res, numbersToFloat(obj))
	case "J0":
		judgeArithmetic(&res, numbersToFloat(obj))
	}
	return res
}

// numbersToFloat turns json.Number leaves into float64, the shape the
// arithmetic checks read.
func numbersToFloat(m map[string]any) map[string]any {
	var conv func(v any) any
	conv = func(v any) any {
		switch t := v.(type) {
		case json.Number:
			f, _ := t.Float64()
			return f
		case map[string]any:
			for k, x := range t {
				t[k] = conv(x)
			}
			return t
		case []any:
			for i, x := range t {
				t[i] = conv(x)
			}
			return t
		}
		return v
	}
	conv(m)
	return m
}

func outcome(res *Result, obj map[string]any) {
	for _, k := range []string{"gate_result", "verdict"} {
		v, _ := obj[k].(string)
		switch v {
		case "FAIL":
			res.fail("outcome", fmt.Sprintf("the artifact records %s = FAIL", k), "address what it failed on, then write a new artifact")
			return
		case "WEAK_PASS":
			res.warn("outcome", fmt.Sprintf("the artifact records %s = WEAK_PASS", k), "raise the rigour of the next review as the judge's feedback says")
			return
		}
	}
}

// vigilanceArithmetic checks that a V0 record's numbers follow from its
// faults: injected and caught counts, and rms = caught / (injected − equivalent).
func vigilanceArithmetic(res *Result, obj map[string]any) {
	faults, _ := obj["seeded_faults"].([]any)
	metrics, _ := obj["metrics"].(map[string]any)
	caught, equivalent := 0, 0
	for _, f := range faults {
		m, _ := f.(map[string]any)
		if b, _ := m["caught"].(bool); b {
			caught++
		} else if e, _ := m["equivalent"].(bool); e {
			equivalent++
		}
	}
	injected, _ := toFloat(metrics["injected"])
	mc, _ := toFloat(metrics["caught"])
	me, _ := toFloat(metrics["equivalent"])
	rms, _ := toFloat(metrics["rms"])
	ok := true
	if int(injected) != len(faults) {
		ok = false
		res.fail("arithmetic", fmt.Sprintf("metrics.injected is %s but %d seeded faults are listed", formatFloat(injected), len(faults)), "make the counts agree with the list of seeded faults")
	}
	if int(mc) != caught {
		ok = false
		res.fail("arithmetic", fmt.Sprintf("metrics.caught is %s but %d seeded faults are marked caught", formatFloat(mc), caught), "make the counts agree with the list of seeded faults")
	}
	if int(me) != equivalent {
		ok = false
		res.fail("arithmetic", fmt.Sprintf("metrics.equivalent is %s but %d uncaught faults are marked equivalent", formatFloat(me), equivalent), "make the counts agree with the list of seeded faults")
	}
	if denom := injected - me; denom > 0 {
		want := mc / denom
		if math.Abs(want-rms) > 0.005 {
			ok = false
			res.fail("arithmetic", fmt.Sprintf("metrics.rms is %s but caught / (injected − equivalent) = %s", formatFloat(rms), formatFloat(round6(want))), "recompute the mutation score from the counts")
		}
	}
	if ok {
		res.pass("arithmetic", "counts and mutation score agree with the seeded faults")
	}
}

// judgeArithmetic checks that a J0 report's total is the sum of its six
// dimension scores and, in SOLO mode, the lower of its two totals.
func judgeArithmetic(res *Result, obj map[string]any) {
	dims, _ := obj["dimensions"].(map[string]any)
	total, _ := toFloat(obj["total"])
	ok := true
	if mode, _ := obj["mode"].(string); mode == "SOLO" {
		if scores, _ := obj["solo_scores"].([]any); len(scores) == 2 {
			a, _ := toFloat(scores[0])
			b, _ := toFloat(scores[1])
			if low := math.Min(a, b); low != total {
				ok = false
				res.fail("arithmetic", fmt.Sprintf("total is %s but the lower SOLO score is %s", formatFloat(total), formatFloat(low)), "set total to the lower of the two SOLO scores")
			}
		}
	}
	sum := 0.0
	for _, k := range sortedKeys(dims) {
		d, _ := dims[k].(map[string]any)
		s, _ := toFloat(d["score"])
		sum += s
	}
	if sum != total {
		ok = false
		res.fail("arithmetic", fmt.Sprintf("total is %s but the six dimension scores add up to %s", formatFloat(total), formatFloat(sum)), "set total to the sum of the dimension scores (in SOLO mode, those of the lower scoring)")
	}
	if ok {
		res.pass("arithmetic", "total agrees with the dimension scores")
	}
}
