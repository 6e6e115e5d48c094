package brief

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vibe-science/vibe/internal/verdict"
)

// The languages Signature reads.
const (
	LangGo     = "go"
	LangPython = "python"
	LangR      = "r"
)

// Anchor ties the brief to a place in the code: Path relative to the project
// root and Symbol inside it (empty: the whole file). Lang comes from the
// extension. Signature and Hash are what Pin recorded at ingest.
type Anchor struct {
	Path      string `json:"path"`
	Symbol    string `json:"symbol,omitempty"`
	Lang      string `json:"lang,omitempty"`
	Signature string `json:"signature,omitempty"`
	Hash      string `json:"hash,omitempty"`
}

// ParseAnchor reads "path#Symbol" or a bare path.
func ParseAnchor(s string) (Anchor, error) {
	s = strings.TrimSpace(s)
	p, sym := s, ""
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		p, sym = s[:i], strings.TrimSpace(s[i+1:])
		if sym == "" {
			return Anchor{}, fmt.Errorf("nothing after '#': write path#Symbol, or the bare path for the whole file")
		}
	}
	p = cleanRel(p)
	if p == "" || p == "." {
		return Anchor{}, fmt.Errorf("no file path: write path#Symbol")
	}
	return Anchor{Path: p, Symbol: sym, Lang: LangOf(p)}, nil
}

// cleanRel normalises a relative path to forward slashes without "./".
func cleanRel(p string) string {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	if p == "" {
		return ""
	}
	return path.Clean(p)
}

// LangOf names the language of a file by its extension, or "" if Signature
// cannot read it.
func LangOf(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".go":
		return LangGo
	case ".py":
		return LangPython
	case ".r":
		return LangR
	}
	return ""
}

// String renders the anchor as "path#Symbol" (or the bare path).
func (a Anchor) String() string {
	if a.Symbol == "" {
		return a.Path
	}
	return a.Path + "#" + a.Symbol
}

// UnmarshalJSON accepts an anchor object or its "path#Symbol" string.
func (a *Anchor) UnmarshalJSON(raw []byte) error {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '"' {
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return err
		}
		got, err := ParseAnchor(s)
		if err != nil {
			return fmt.Errorf("anchor %q: %w", s, err)
		}
		*a = got
		return nil
	}
	type plain Anchor
	var p plain
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return err
	}
	p.Path = cleanRel(p.Path)
	if p.Lang == "" {
		p.Lang = LangOf(p.Path)
	}
	*a = Anchor(p)
	return nil
}

// validate reports an anchor vibe could never check.
func (a Anchor) validate() error {
	if a.Path == "" || a.Path == "." {
		return fmt.Errorf("no file path: write path#Symbol")
	}
	if err := relativePath(a.Path); err != nil {
		return err
	}
	if a.Symbol == "" {
		return nil
	}
	switch a.Lang {
	case LangGo:
		if _, _, _, err := splitGoSymbol(a.Symbol); err != nil {
			return err
		}
	case LangPython, LangR:
		if !validScriptSymbol(a.Lang, a.Symbol) {
			return fmt.Errorf("symbol %q is not a %s function name (Python: name or Class.method)", a.Symbol, a.Lang)
		}
	default:
		return fmt.Errorf("symbols can be anchored only in .go, .py and .R files: anchor the whole file (drop #%s) instead", a.Symbol)
	}
	return nil
}

// AnchorStatus is what re-checking an anchor found.
type AnchorStatus string

// The anchor statuses.
const (
	// Verified: the signature hashes as recorded.
	Verified AnchorStatus = "Verified"
	// Drifted: the symbol is there but its signature changed.
	Drifted AnchorStatus = "Drifted"
	// Missing: the file or the symbol is gone (or the file does not parse).
	Missing AnchorStatus = "Missing"
	// Unrecorded: no hash was pinned at ingest, so there is nothing to compare.
	Unrecorded AnchorStatus = "Unrecorded"
)

// AnchorResult is one anchor re-checked: the recorded anchor, what was found,
// and the current signature and hash when the symbol was found.
type AnchorResult struct {
	Anchor    Anchor       `json:"anchor"`
	Status    AnchorStatus `json:"status"`
	Signature string       `json:"signature,omitempty"`
	Hash      string       `json:"hash,omitempty"`
	Reason    string       `json:"reason"`
}

// hashOf is the anchor hash of a signature (or of a file's bytes).
func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// current reads an anchor's present signature and hash from src.
func current(a Anchor, src []byte) (sig, hash string, err error) {
	if a.Symbol == "" {
		return "", hashOf(src), nil
	}
	sig, err = signature(a.Lang, src, a.Symbol)
	if err != nil {
		return "", "", err
	}
	return sig, hashOf([]byte(sig)), nil
}

// readFunc joins root and the anchor path and reads it with read, or with
// os.ReadFile when read is nil.
func readFunc(root string, read func(string) ([]byte, error)) func(Anchor) ([]byte, error) {
	if read == nil {
		read = os.ReadFile
	}
	return func(a Anchor) ([]byte, error) {
		return read(filepath.Join(root, filepath.FromSlash(a.Path)))
	}
}

// Pin records each anchor's current language, signature and hash, as done at
// ingest. An anchor that cannot be read keeps no hash and yields an error
// naming it; the others are pinned regardless.
func Pin(root string, anchors []Anchor, read func(path string) ([]byte, error)) ([]Anchor, []error) {
	get := readFunc(root, read)
	out := make([]Anchor, len(anchors))
	var errs []error
	for i, a := range anchors {
		if a.Lang == "" {
			a.Lang = LangOf(a.Path)
		}
		a.Signature, a.Hash = "", ""
		src, err := get(a)
		if err != nil {
			errs = append(errs, fmt.Errorf("pin anchor %s: %w", a, err))
			out[i] = a
			continue
		}
		sig, h, err := current(a, src)
		if err != nil {
			errs = append(errs, fmt.Errorf("pin anchor %s: %w", a, err))
			out[i] = a
			continue
		}
		a.Signature, a.Hash = sig, h
		out[i] = a
	}
	return out, errs
}

// CheckAnchors re-reads every recorded anchor under root and compares its
// hash with the one pinned at ingest. read may be nil (os.ReadFile).
func CheckAnchors(root string, recorded []Anchor, read func(path string) ([]byte, error)) []AnchorResult {
	get := readFunc(root, read)
	out := make([]AnchorResult, 0, len(recorded))
	for _, a := range recorded {
		if a.Lang == "" {
			a.Lang = LangOf(a.Path)
		}
		r := AnchorResult{Anchor: a}
		src, err := get(a)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			r.Status, r.Reason = Missing, "file "+a.Path+" no longer exists"
		case err != nil:
			r.Status, r.Reason = Missing, "file "+a.Path+" cannot be read: "+err.Error()
		default:
			sig, h, cerr := current(a, src)
			r.Signature, r.Hash = sig, h
			switch {
			case cerr != nil:
				r.Status, r.Reason = Missing, cerr.Error()
			case a.Hash == "":
				r.Status, r.Reason = Unrecorded, "no hash was recorded at ingest; re-ingest the brief to pin it"
			case h == a.Hash:
				r.Status, r.Reason = Verified, "signature unchanged"
			case a.Symbol == "":
				r.Status, r.Reason = Drifted, "file content changed"
			default:
				r.Status, r.Reason = Drifted, "signature changed from `"+a.Signature+"` to `"+sig+"`"
			}
		}
		out = append(out, r)
	}
	return out
}

// CheckAnchorsName is the check name of reference-rot verdicts.
const CheckAnchorsName = "brief-anchors"

// RotVerdict summarises re-checked anchors: PASS when all are Verified, and
// a WARN naming the anchors that moved when the brief is degraded.
func RotVerdict(results []AnchorResult) verdict.Verdict {
	type entry struct {
		Anchor string       `json:"anchor"`
		Status AnchorStatus `json:"status"`
		Hash   string       `json:"hash,omitempty"`
	}
	in := make([]entry, 0, len(results))
	var moved []string
	var paths []string
	var notes []string
	seenPath := map[string]bool{}
	for _, r := range results {
		in = append(in, entry{r.Anchor.String(), r.Status, r.Hash})
		if r.Status == Verified {
			continue
		}
		moved = append(moved, r.Anchor.String()+" "+strings.ToLower(string(r.Status)))
		notes = append(notes, r.Anchor.String()+": "+string(r.Status)+": "+r.Reason)
		if !seenPath[r.Anchor.Path] {
			seenPath[r.Anchor.Path] = true
			paths = append(paths, r.Anchor.Path)
		}
	}
	if len(moved) == 0 {
		return verdict.New(CheckAnchorsName, verdict.Pass, verdict.Low,
			"All "+strconv.Itoa(len(results))+" anchors of the research brief match the code.", in)
	}
	v := verdict.New(CheckAnchorsName, verdict.Warn, verdict.Med,
		fmt.Sprintf("The research brief is degraded: %d of %d anchors no longer match the code (%s); check that the code still follows the brief, then re-ingest it with `vibe brief ingest FILE`.",
			len(moved), len(results), strings.Join(moved, ", ")), in)
	v.Evidence.Paths = paths
	v.Evidence.Notes = notes
	v.Recommendation = "Compare the moved anchors with the brief's constraints, then re-ingest the brief so its anchors are pinned again."
	return v
}

// AnchorsFor returns the brief's anchors in the file relPath, so a hook can
// re-check them after that file was written.
func (b Brief) AnchorsFor(relPath string) []Anchor {
	p := cleanRel(relPath)
	var out []Anchor
	for _, a := range b.Anchors {
		if a.Path == p {
			out = append(out, a)
		}
	}
	return out
}
