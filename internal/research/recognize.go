package research

import (
	"bytes"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/literature"
)

// Kinds of research artifact. The gate input kinds are gate's file kinds,
// so what was recorded under them stays valid.
const (
	// KindFeatures is a model's feature table: a data table with a label
	// column and numeric features (DQ1, DD0).
	KindFeatures = gate.FileFeatures
	// KindMetrics is a model's held-out scores where DQ2 reads them.
	KindMetrics = gate.FileMetrics
	// KindCalibration is a coverage calibration result where DQ3 reads it.
	KindCalibration = gate.FileCalibration
	// KindFindings is a findings file: reported numbers under finding ids
	// or a findings title (DQ4).
	KindFindings = gate.FileFindings
	// KindDictionary is a data dictionary, named by the domain's
	// dictionary patterns (DD0 of the tables it documents).
	KindDictionary = gate.FileDictionary
	// KindFindingsSource is the JSON a findings file reports from: keyed
	// by finding ids, or beside a findings file of the same name. When it
	// changes, DQ4 judges the findings file again.
	KindFindingsSource = "findings-source"
	// KindDesign is a research question's DESIGN.md, DESIGN.json or
	// DEVIATIONS.md (DC0).
	KindDesign = "design"
	// KindTable is any other data table: raw data, predictions, samples
	// too small to be a feature table, a table without a label.
	KindTable = "table"
	// KindEvaluation is evaluation output no gate reads: accuracy, F1,
	// RMSE, loss histories, ECE and Brier scores, per-model results.
	KindEvaluation = "evaluation"
	// KindDirection is a note that sets a research direction (L-1).
	KindDirection = "direction"
	// KindBrainstorm is a brainstorm note.
	KindBrainstorm = "brainstorm"
	// KindLedger is a claim ledger, by its name or by its format.
	KindLedger = "ledger"
)

// gates says which gates a change to each kind of artifact runs: the one
// place that decides it for the hooks and for `vibe gate check`. Kinds
// absent here are recognised and judged by no gate on change (the claim
// ledger and the direction are judged by their own nets).
var gates = map[string][]string{
	KindFeatures:       {"DQ1", "DD0"},
	KindMetrics:        {"DQ2"},
	KindCalibration:    {"DQ3"},
	KindFindings:       {"DQ4"},
	KindFindingsSource: {"DQ4"},
	KindDictionary:     {"DD0"},
	KindDesign:         {"DC0"},
}

// netted are the kinds the hooks track though no gate runs on their
// change: a net of the hook judges them (a direction needs the session's
// literature searches for L-1).
var netted = map[string]bool{KindDirection: true}

// Tracked reports whether the hooks track changes to artifacts of kind:
// a gate or a net judges them.
func Tracked(kind string) bool { return len(gates[kind]) > 0 || netted[kind] }

// Gates lists the gates a change to an artifact of kind runs, nil for none.
func Gates(kind string) []string { return gates[kind] }

// GatedKinds lists, sorted, the kinds whose changes run gates: the kinds
// the hooks track.
func GatedKinds() []string {
	out := make([]string, 0, len(gates))
	for k := range gates {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Artifact is what a file is.
type Artifact struct {
	// Kind is one of the Kind constants, "" for a file that is no
	// research artifact.
	Kind string
	// Why says what made the file this kind, in a few words, for messages
	// and `vibe gate check --json`.
	Why string
	// Hinted says a domain-config file pattern named the file.
	Hinted bool
	// Label is the label column of a feature table, when recognition found
	// one ("" when the domain config's own rule applies).
	Label string
}

// Domain returns d as the gates must see it to judge this artifact: a
// feature table recognised by a label column the domain does not name
// (label, target, class…) is judged with that label.
func (a Artifact) Domain(d gate.Domain) gate.Domain {
	if a.Kind == KindFeatures && a.Label != "" && a.Label != d.DQ1.LabelColumn {
		d.DQ1.LabelColumn = a.Label
	}
	return d
}

// Sizes of what recognition reads.
const (
	// HeadBytes is how much of a file recognition reads.
	HeadBytes = 64 << 10
	// JSONHeadBytes is how much of a JSON document it reads: a metrics
	// file with thousands of feature importances is still read whole.
	JSONHeadBytes = 1 << 20
)

// File is what Recognize looks at: a path and the head of the content.
type File struct {
	// Rel is the project-relative path, forward slashes.
	Rel string
	// Head is the first HeadBytes (JSON: JSONHeadBytes) of the file.
	Head []byte
	// Size is the file's size; above len(Head) the head is cut.
	Size int64
	// Sibling returns the head of the file of that name beside this one
	// (the name compared ignoring case), nil when there is none. Nil
	// Sibling: no sibling is looked at.
	Sibling func(name string) []byte
}

func (f File) cut() bool { return f.Size > int64(len(f.Head)) }

// Extensions recognition reads.
var (
	tableExts    = map[string]bool{".csv": true, ".tsv": true, ".tab": true}
	markdownExts = map[string]bool{".md": true, ".markdown": true}
	// noteExts are the other documents a direction or brainstorm note is
	// written in (literature's direction documents).
	noteExts = map[string]bool{".yaml": true, ".yml": true, ".txt": true}
)

// Candidate reports whether a file could be a research artifact by its
// name at all (its extension, or a name the domain config or vibe gives):
// only candidates are read. d may be nil for the extensions alone.
func Candidate(rel string, d *gate.Domain) bool {
	ext := strings.ToLower(path.Ext(rel))
	if tableExts[ext] || markdownExts[ext] || noteExts[ext] || ext == ".json" || ext == ".parquet" {
		return true
	}
	if d != nil && hinted(rel, *d) {
		return true
	}
	return literature.IsDirectionFile(rel)
}

// ReadFile reads the head of the file at abs (project-relative rel) for
// Recognize, with a Sibling that looks beside it.
func ReadFile(abs, rel string) (File, error) {
	fh, err := os.Open(abs)
	if err != nil {
		return File{}, err
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return File{}, err
	}
	limit := int64(HeadBytes)
	if strings.EqualFold(filepath.Ext(abs), ".json") {
		limit = JSONHeadBytes
	}
	head, err := readHead(fh, min(limit, info.Size()))
	if err != nil {
		return File{}, err
	}
	dir := filepath.Dir(abs)
	return File{Rel: rel, Head: head, Size: info.Size(), Sibling: func(name string) []byte {
		p, ok := findFold(dir, name)
		if !ok {
			return nil
		}
		sf, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer sf.Close()
		h, err := readHead(sf, HeadBytes)
		if err != nil {
			return nil
		}
		return h
	}}, nil
}

func readHead(r io.Reader, n int64) ([]byte, error) {
	buf := make([]byte, n)
	got, err := io.ReadFull(r, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	return buf[:got], nil
}

// findFold finds the file name in dir: the exact name, else one equal to
// it ignoring case.
func findFold(dir, name string) (string, bool) {
	p := filepath.Join(dir, name)
	if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
		return p, true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(e.Name(), name) {
			return filepath.Join(dir, e.Name()), true
		}
	}
	return "", false
}

// rqName matches a research-question folder: RQ-001 or RQ-001-slug.
var rqName = regexp.MustCompile(`^RQ-[0-9]{3,}(-.*)?$`)

// IsRQ reports whether a folder name is a research question's.
func IsRQ(name string) bool { return rqName.MatchString(name) }

// designNames are the files of a research question DC0 reads.
var designNames = []string{"design.md", "design.json", "deviations.md"}

// LedgerName is the claim ledger's file name.
const LedgerName = "CLAIM-LEDGER.md"

// Recognize says what a file is, from its path and the head of its
// content, with the domain's patterns and columns as hints. The order:
//
//  1. a domain-config file pattern names it (Hinted);
//  2. the names vibe owns: a research question's DESIGN.md, DESIGN.json
//     or DEVIATIONS.md; CLAIM-LEDGER.md at the root or in .vibe-science/;
//  3. a note that sets a research direction (literature.IsDirection);
//  4. the content: JSON (findings sources, metrics, calibration,
//     evaluation), tables (feature tables, other tables), Markdown (claim
//     ledgers, findings), and brainstorm notes by their folder or title.
func Recognize(f File, d gate.Domain) Artifact {
	rel := strings.ReplaceAll(f.Rel, `\`, "/")
	if k := d.FileKind(rel); k != "" {
		a := Artifact{Kind: k, Hinted: true, Why: "named by the domain config's " + k + " patterns"}
		if k == KindFeatures {
			if t, ok := readTable(f); ok {
				a.Label = t.label(d)
			}
		}
		return a
	}
	base := path.Base(rel)
	lower := strings.ToLower(base)
	ext := path.Ext(lower)
	if parent := path.Base(path.Dir(rel)); IsRQ(parent) && contains(designNames, lower) {
		return Artifact{Kind: KindDesign, Why: "the design of " + parent}
	}
	if dir := path.Dir(rel); strings.EqualFold(base, LedgerName) && (dir == "." || dir == VibeDir) {
		return Artifact{Kind: KindLedger, Why: "the claim ledger"}
	}
	if (markdownExts[ext] || noteExts[ext] || ext == ".json" || ext == "") && literature.IsDirection(rel, f.Head) {
		return Artifact{Kind: KindDirection, Why: "sets a research direction"}
	}
	switch {
	case ext == ".json":
		if a, ok := recognizeJSON(f, d); ok {
			return a
		}
	case tableExts[ext]:
		if a, ok := recognizeTable(f, d); ok {
			return a
		}
	case ext == ".parquet":
		if bytes.HasPrefix(f.Head, []byte("PAR1")) {
			return Artifact{Kind: KindTable, Why: "a Parquet table"}
		}
	case markdownExts[ext]:
		if a, ok := recognizeMarkdown(f); ok {
			return a
		}
	}
	if brainstormNote(rel, ext, f.Head) {
		return Artifact{Kind: KindBrainstorm, Why: "a brainstorm note"}
	}
	return Artifact{}
}

// brainstormNote reports a note in a brainstorm folder or titled as one.
func brainstormNote(rel, ext string, head []byte) bool {
	if !markdownExts[ext] && !noteExts[ext] && ext != ".json" {
		return false
	}
	if strings.Contains(strings.ToLower(rel), "brainstorm") {
		return true
	}
	if markdownExts[ext] {
		t := strings.ToLower(title(head))
		return strings.HasPrefix(t, "brainstorm")
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// MayBeGated reports whether a file could be recognised as a kind the
// gates judge, by its path alone: a domain-config pattern names it, or it
// is a delimited table outside the raw data folders, a JSON document or a
// Markdown file. The hooks read only such files; a false here never hides
// an artifact Recognize would give a gated kind (a test holds the two
// together over the corpus).
func MayBeGated(rel string, d *gate.Domain) bool {
	if d != nil && hinted(rel, *d) {
		return true
	}
	ext := strings.ToLower(path.Ext(rel))
	switch {
	case tableExts[ext]:
		return !rawFolder(rel)
	case ext == ".json", markdownExts[ext]:
		return true
	}
	return false
}

// hinted reports whether any of the domain's file patterns names rel: what
// d.FileKind(rel) != "" says, at a fraction of its cost, since the hooks
// ask it of every file in a research folder (thousands of raw files on a
// first look). A pattern whose extension differs from the file's is passed
// over, and a pattern without a slash is matched against the base name
// alone, as gate.MatchPattern does.
func hinted(rel string, d gate.Domain) bool {
	ext := strings.ToLower(path.Ext(rel))
	base := ""
	for _, pats := range [][]string{d.Files.Findings, d.Files.Features, d.Files.Metrics, d.Files.Calibration, d.Files.Dictionary} {
		for _, p := range pats {
			pl := strings.ToLower(strings.TrimPrefix(filepath.ToSlash(p), "**/"))
			if pe := path.Ext(pl); pe != "" && pe != ext && !strings.ContainsAny(pe, "*?[\\") {
				continue
			}
			if strings.Contains(pl, "/") {
				if gate.MatchPattern(p, rel) {
					return true
				}
				continue
			}
			if base == "" {
				base = strings.ToLower(path.Base(strings.ReplaceAll(rel, `\`, "/")))
			}
			if ok, err := path.Match(pl, base); err == nil && ok {
				return true
			}
		}
	}
	return false
}
