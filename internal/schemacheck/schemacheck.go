// Package schemacheck validates JSON artifacts against the JSON Schema 2020-12
// files of skill/vibe/schemas with a real JSON Schema library. It is the
// only package that imports that library, and hook binaries must not link
// it: the library compiles every draft's meta-schemas when loaded (~12 ms).
// The CLI plugs Skill into gate.SchemaValidator.
package schemacheck

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vibe-science/vibe/skill"
)

// Dir is where the schemas live inside skill.FS.
const Dir = "vibe/schemas"

// Set compiles the schemas of one folder once and keeps them, so a process
// that validates several artifacts parses each schema once.
type Set struct {
	fsys fs.FS
	dir  string

	once     sync.Once
	err      error
	compiler *jsonschema.Compiler
	urls     map[string]string // file name → resource URL

	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema
}

// NewSet reads the *.schema.json files of dir in fsys on first use.
func NewSet(fsys fs.FS, dir string) *Set { return &Set{fsys: fsys, dir: dir} }

var skillSet = NewSet(skill.FS, Dir)

// Skill validates against the schemas shipped in skill/vibe/schemas; it has
// the signature of gate.SchemaValidator.
func Skill(schemaFile string, artifact []byte) ([]string, error) {
	return skillSet.Validate(schemaFile, artifact)
}

// load registers every schema of the folder with the compiler under its $id
// (or a file URL when it has none), so $refs between schemas resolve without
// any network access.
func (s *Set) load() error {
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

func (s *Set) get(file string) (*jsonschema.Schema, error) {
	if err := s.load(); err != nil {
		return nil, err
	}
	url, ok := s.urls[file]
	if !ok {
		names := make([]string, 0, len(s.urls))
		for k := range s.urls {
			names = append(names, k)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("no schema %s in skill/vibe/schemas (have %s)", file, strings.Join(names, ", "))
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

// Validate checks artifact against the schema file and returns one line per
// violation ("at /path: message"), sorted; err is for a schema that cannot
// be found or compiled, or an artifact that is not JSON.
func (s *Set) Validate(schemaFile string, artifact []byte) ([]string, error) {
	sch, err := s.get(schemaFile)
	if err != nil {
		return nil, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(artifact))
	if err != nil {
		return nil, fmt.Errorf("the artifact is not valid JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return []string{err.Error()}, nil
		}
		return leaves(ve), nil
	}
	return nil, nil
}

// leaves flattens a validation error to one line per violation, sorted and
// unique so results do not depend on map order.
func leaves(ve *jsonschema.ValidationError) []string {
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
