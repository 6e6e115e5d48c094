package gate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vibe-science/vibe/skill"
)

// schemaDir is where the schemas live inside skill.FS.
const schemaDir = "vibe/schemas"

// schemaSet compiles the schemas of one file system once and keeps them,
// so a process that validates several artifacts parses each schema once.
type schemaSet struct {
	fsys fs.FS
	dir  string

	once     sync.Once
	err      error
	compiler *jsonschema.Compiler
	urls     map[string]string // file name → resource URL

	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema
}

var skillSchemas = &schemaSet{fsys: skill.FS, dir: schemaDir}

// load registers every *.schema.json of the folder with the compiler under
// its $id (or a file URL when it has none), so $refs between schemas
// resolve without any network access.
func (s *schemaSet) load() error {
	s.once.Do(func() {
		entries, err := fs.ReadDir(s.fsys, s.dir)
		if err != nil {
			s.err = fmt.Errorf("read schemas: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		s.urls = map[string]string{}
		s.compiled = map[string]*jsonschema.Schema{}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".schema.json") {
				continue
			}
			raw, err := fs.ReadFile(s.fsys, path.Join(s.dir, name))
			if err != nil {
				s.err = fmt.Errorf("read schema %s: %w", name, err)
				return
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				s.err = fmt.Errorf("parse schema %s: %w", name, err)
				return
			}
			url := "file:///vibe/schemas/" + name
			if m, ok := doc.(map[string]any); ok {
				if id, ok := m["$id"].(string); ok && id != "" {
					url = id
				}
			}
			if err := c.AddResource(url, doc); err != nil {
				s.err = fmt.Errorf("add schema %s: %w", name, err)
				return
			}
			s.urls[name] = url
		}
		s.compiler = c
	})
	return s.err
}

func (s *schemaSet) get(file string) (*jsonschema.Schema, error) {
	if err := s.load(); err != nil {
		return nil, err
	}
	url, ok := s.urls[file]
	if !ok {
		return nil, fmt.Errorf("no schema %s in skill/vibe/schemas (have %s)", file, strings.Join(sortedKeys(s.urls), ", "))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled[file]; ok {
		return sch, nil
	}
	sch, err := s.compiler.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", file, err)
	}
	s.compiled[file] = sch
	return sch, nil
}

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
	return skillSchemas.validate(schemaName, artifact)
}

func (s *schemaSet) validate(schemaName string, artifact []byte) Result {
	file := SchemaFile(schemaName)
	id, ok := schemaGate(file)
	if !ok {
		id = "schema:" + strings.TrimSuffix(file, ".schema.json")
	}
	res := newResult(id)
	fix := "fix the artifact to match skill/vibe/schemas/" + file
	sch, err := s.get(file)
	if err != nil {
		res.fail("schema", err.Error(), "use one of the schema names listed")
		return res
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(artifact))
	if err != nil {
		res.fail("schema", fmt.Sprintf("the artifact is not valid JSON: %v", err), "write the artifact as one JSON object")
		return res
	}
	if err := sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			res.fail("schema", err.Error(), fix)
			return res
		}
		for _, leaf := range schemaLeaves(ve) {
			res.fail("schema", leaf, fix)
		}
		return res
	}
	res.pass("schema", "valid against "+file)
	obj, _ := inst.(map[string]any)
	outcome(&res, obj)
	switch id {
	case "V0":
		vigilanceArithmetic(&res, obj)
	case "J0":
		judgeArithmetic(&res, obj)
	}
	return res
}

// schemaLeaves flattens a validation error to one line per violation,
// "at /path: message", sorted so results do not depend on map order.
func schemaLeaves(ve *jsonschema.ValidationError) []string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			msg := e.Error()
			if u := e.BasicOutput(); u != nil && u.Error != nil {
				msg = u.Error.String()
			}
			out = append(out, fmt.Sprintf("at %s: %s", loc, msg))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	uniq := out[:0]
	for i, s := range out {
		if i == 0 || s != out[i-1] {
			uniq = append(uniq, s)
		}
	}
	return uniq
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
