package lineage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MirrorFile is the project's copy of the lineage records, relative to
// the root: one JSON object a line, appended after each capture, meant to
// be committed so CI (`vibe gate check`) and a fresh clone know how each
// result was made. A line is a Record, or a package list
// ({"freeze_sha256": …, "packages": …}) written once before the first
// record that names it.
const MirrorFile = ".vibe-science/lineage.jsonl"

// maxMirrorBytes bounds what Read reads of the mirror.
const maxMirrorBytes = 64 << 20

// freezeLine is a package list in the mirror.
type freezeLine struct {
	Freeze   string `json:"freeze_sha256"`
	Packages string `json:"packages"`
}

// Mirror is the project's mirror as read.
type Mirror struct {
	// Records are its records, oldest first.
	Records []Record
	// Freezes are the package lists by their hash.
	Freezes map[string]string
}

// ReadMirror reads the project's mirror; a project without one has an
// empty Mirror. Lines that do not parse are passed over.
func ReadMirror(root string) (Mirror, error) {
	m := Mirror{Freezes: map[string]string{}}
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(MirrorFile)))
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, fmt.Errorf("read %s: %w", MirrorFile, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxMirrorBytes))
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if bytes.HasPrefix(line, []byte(`{"freeze_sha256"`)) {
			var fl freezeLine
			if json.Unmarshal(line, &fl) == nil && fl.Freeze != "" {
				m.Freezes[fl.Freeze] = fl.Packages
			}
			continue
		}
		var r Record
		if json.Unmarshal(line, &r) == nil && r.Path != "" && r.SHA256 != "" {
			m.Records = append(m.Records, r)
		}
	}
	if err := sc.Err(); err != nil {
		return m, fmt.Errorf("read %s: %w", MirrorFile, err)
	}
	return m, nil
}

// Rows are the mirror's records of a content hash.
func (m Mirror) Rows(sha string) []Row {
	var out []Row
	for _, r := range m.Records {
		if r.SHA256 == sha {
			out = append(out, Row{Path: r.Path, SHA256: r.SHA256, Writer: r.Writer, By: r.By, At: r.At})
		}
	}
	return out
}

// Latest is the newest record of a path.
func (m Mirror) Latest(path string) (Record, bool) {
	for i := len(m.Records) - 1; i >= 0; i-- {
		if m.Records[i].Path == path {
			return m.Records[i], true
		}
	}
	return Record{}, false
}

// Paths lists the paths the mirror has records of, in the order of their
// first record.
func (m Mirror) Paths() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range m.Records {
		if !seen[r.Path] {
			seen[r.Path] = true
			out = append(out, r.Path)
		}
	}
	return out
}

// AppendMirror adds a record to the project's mirror, and before it the
// package list it names when the mirror does not hold it yet. Each line
// is one write to a file opened for appending, so records of hooks that
// run at once do not interleave.
func AppendMirror(root string, rec Record, packages []byte) error {
	p := filepath.Join(root, filepath.FromSlash(MirrorFile))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", MirrorFile, err)
	}
	var buf bytes.Buffer
	if rec.Env != nil && rec.Env.Freeze != "" && len(packages) > 0 && !hasFreeze(p, rec.Env.Freeze) {
		line, err := json.Marshal(freezeLine{Freeze: rec.Env.Freeze, Packages: string(packages)})
		if err != nil {
			return fmt.Errorf("write %s: %w", MirrorFile, err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("write %s: %w", MirrorFile, err)
	}
	buf.Write(line)
	buf.WriteByte('\n')
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", MirrorFile, err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", MirrorFile, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", MirrorFile, err)
	}
	return nil
}

// hasFreeze reports whether the mirror at p holds the package list sha.
func hasFreeze(p, sha string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	want := `{"freeze_sha256":"` + sha + `"`
	sc := bufio.NewScanner(io.LimitReader(f, maxMirrorBytes))
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), want) {
			return true
		}
	}
	return false
}
