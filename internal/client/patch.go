package client

import (
	"errors"
	"fmt"
	"strings"
)

// PatchOp is what a patch does to one file.
type PatchOp int

// The operations of Codex's apply_patch format.
const (
	PatchAdd PatchOp = iota
	PatchDelete
	PatchUpdate
)

// FileChange is one file section of an apply_patch patch.
type FileChange struct {
	Op     PatchOp
	Path   string // as written in the patch (relative paths are relative to the event's cwd)
	MoveTo string // Update with "*** Move to:"
	// Content is the whole new file of an Add.
	Content string
	Chunks  []Chunk
}

// Chunk is one "@@" hunk of an Update: the lines it expects (context and
// removed) and the lines it leaves (context and added).
type Chunk struct {
	Anchor string // the text after "@@", a line to find first; may be empty
	Old    []string
	New    []string
	AtEOF  bool // "*** End of File": the hunk ends the file
}

// ParsePatch reads Codex's apply_patch format (`*** Begin Patch` …
// `*** End Patch`) into the files it touches. Anything it cannot read is an
// error, so that a caller can refuse what it cannot judge.
func ParsePatch(text string) ([]FileChange, error) {
	lines := strings.Split(strings.ReplaceAll(strings.TrimSpace(text), "\r\n", "\n"), "\n")
	if len(lines) < 2 || strings.TrimSpace(lines[0]) != "*** Begin Patch" {
		return nil, errors.New("apply_patch: the patch does not start with `*** Begin Patch`")
	}
	if strings.TrimSpace(lines[len(lines)-1]) != "*** End Patch" {
		return nil, errors.New("apply_patch: the patch does not end with `*** End Patch`")
	}
	lines = lines[1 : len(lines)-1]
	var out []FileChange
	var cur *FileChange
	var chunk *Chunk
	flush := func() {
		if chunk != nil && cur != nil {
			cur.Chunks = append(cur.Chunks, *chunk)
		}
		chunk = nil
	}
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "*** Add File: "), strings.HasPrefix(l, "*** Delete File: "), strings.HasPrefix(l, "*** Update File: "):
			flush()
			head, path, _ := strings.Cut(l, ": ")
			path = strings.TrimSpace(path)
			if path == "" {
				return nil, fmt.Errorf("apply_patch line %d: a file header without a path", i+2)
			}
			op := map[string]PatchOp{"*** Add File": PatchAdd, "*** Delete File": PatchDelete, "*** Update File": PatchUpdate}[head]
			out = append(out, FileChange{Op: op, Path: path})
			cur = &out[len(out)-1]
		case cur == nil:
			if strings.TrimSpace(l) == "" {
				continue
			}
			return nil, fmt.Errorf("apply_patch line %d: %q comes before any file header", i+2, l)
		case strings.HasPrefix(l, "*** Move to: "):
			if cur.Op != PatchUpdate {
				return nil, fmt.Errorf("apply_patch line %d: `*** Move to:` outside an Update", i+2)
			}
			cur.MoveTo = strings.TrimSpace(strings.TrimPrefix(l, "*** Move to: "))
		case cur.Op == PatchAdd:
			if !strings.HasPrefix(l, "+") {
				return nil, fmt.Errorf("apply_patch line %d: a line of an added file must start with +", i+2)
			}
			cur.Content += l[1:] + "\n"
		case cur.Op == PatchDelete:
			if strings.TrimSpace(l) != "" {
				return nil, fmt.Errorf("apply_patch line %d: a deleted file has no body", i+2)
			}
		case l == "*** End of File":
			if chunk == nil {
				return nil, fmt.Errorf("apply_patch line %d: `*** End of File` outside a hunk", i+2)
			}
			chunk.AtEOF = true
		case strings.HasPrefix(l, "@@"):
			flush()
			chunk = &Chunk{Anchor: strings.TrimSpace(strings.TrimPrefix(l, "@@"))}
		default:
			if chunk == nil { // the first hunk may omit its @@ line
				chunk = &Chunk{}
			}
			switch {
			case l == "":
				chunk.Old, chunk.New = append(chunk.Old, ""), append(chunk.New, "")
			case l[0] == ' ':
				chunk.Old, chunk.New = append(chunk.Old, l[1:]), append(chunk.New, l[1:])
			case l[0] == '-':
				chunk.Old = append(chunk.Old, l[1:])
			case l[0] == '+':
				chunk.New = append(chunk.New, l[1:])
			default:
				return nil, fmt.Errorf("apply_patch line %d: %q is not a context, removed or added line", i+2, l)
			}
		}
	}
	flush()
	if len(out) == 0 {
		return nil, errors.New("apply_patch: the patch touches no file")
	}
	for _, c := range out {
		if c.Op == PatchUpdate && len(c.Chunks) == 0 && c.MoveTo == "" {
			return nil, fmt.Errorf("apply_patch: the update of %s has no hunk", c.Path)
		}
	}
	return out, nil
}

// Apply returns the file after the update's hunks, matched the way Codex
// matches them (exactly, then ignoring trailing, then surrounding
// whitespace), or an error naming the hunk that does not fit.
func (c FileChange) Apply(old string) (string, error) {
	lines := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	if old == "" {
		lines = nil
	}
	pos := 0
	for n, ch := range c.Chunks {
		if ch.Anchor != "" {
			i := find(lines, []string{ch.Anchor}, pos, false)
			if i < 0 {
				return "", fmt.Errorf("hunk %d of %s: the line %q is not in the file", n+1, c.Path, ch.Anchor)
			}
			pos = i + 1
		}
		if len(ch.Old) == 0 {
			lines = append(lines, ch.New...)
			pos = len(lines)
			continue
		}
		i := find(lines, ch.Old, pos, ch.AtEOF)
		if i < 0 {
			return "", fmt.Errorf("hunk %d of %s: its context and removed lines are not in the file", n+1, c.Path)
		}
		rest := append(append([]string(nil), ch.New...), lines[i+len(ch.Old):]...)
		lines = append(lines[:i], rest...)
		pos = i + len(ch.New)
	}
	if len(lines) == 0 {
		return "", nil
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// find is the first index at or after from where want matches lines,
// trying exact, then right-trimmed, then trimmed comparison.
func find(lines, want []string, from int, atEOF bool) int {
	for _, norm := range []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t") },
		strings.TrimSpace,
	} {
		start := from
		if atEOF && len(lines)-len(want) >= from {
			start = len(lines) - len(want)
		}
	next:
		for i := start; i+len(want) <= len(lines); i++ {
			for j, w := range want {
				if norm(lines[i+j]) != norm(w) {
					continue next
				}
			}
			return i
		}
	}
	return -1
}
