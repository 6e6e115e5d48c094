package lineage

import (
	"context"
	"fmt"
	"strings"
)

// Change is one thing that is no longer as a record found it.
type Change struct {
	// What changed: "artifact" (the result itself), "script", "input",
	// "environment file", "interpreter" or "packages".
	What string `json:"what"`
	// File is the file that changed (project-relative), or the
	// interpreter.
	File string `json:"file"`
	// Was and Now are its hashes (or versions) then and now; Now is ""
	// when it is gone.
	Was string `json:"was"`
	Now string `json:"now"`
}

// String says the change in a line.
func (c Change) String() string {
	if c.Now == "" {
		return fmt.Sprintf("%s %s is gone (was %s)", c.What, c.File, short(c.Was))
	}
	return fmt.Sprintf("%s %s changed: %s → %s", c.What, c.File, short(c.Was), short(c.Now))
}

// short cuts a hash for a message; versions stay whole.
func short(s string) string {
	if len(s) == 64 && !strings.ContainsAny(s, " .") {
		return s[:12]
	}
	return s
}

// Check compares a record with the files as they are now: the result
// itself, its script, its inputs, the environment files and, with
// opt.Exec, the interpreter's version and package list. Files recorded
// without a hash (too large) are compared by size.
func Check(ctx context.Context, root string, rec Record, opt Options) []Change {
	var out []Change
	cmp := func(what string, f File) {
		sum, size, ok := HashFile(Abs(root, f.Path), MaxHashBytes)
		switch {
		case !ok:
			out = append(out, Change{What: what, File: f.Path, Was: hashOr(f)})
		case f.SHA256 != "" && sum != "" && sum != f.SHA256:
			out = append(out, Change{What: what, File: f.Path, Was: f.SHA256, Now: sum})
		case f.SHA256 == "" && size != f.Size:
			out = append(out, Change{What: what, File: f.Path, Was: hashOr(f), Now: fmt.Sprintf("%d bytes", size)})
		}
	}
	cmp("artifact", File{Path: rec.Path, SHA256: rec.SHA256, Size: rec.Size})
	if rec.Script != nil {
		cmp("script", *rec.Script)
	}
	for _, in := range rec.Inputs {
		cmp("input", in)
	}
	if rec.Env == nil {
		return out
	}
	for _, f := range rec.Env.Files {
		cmp("environment file", f)
	}
	if !opt.Exec || rec.Env.Interpreter == "" {
		return out
	}
	p := probeOf(ctx, rec.Env.Interpreter, rec.Program, opt.Now)
	if p.version == "" {
		if !isFile(rec.Env.Interpreter) {
			out = append(out, Change{What: "interpreter", File: rec.Env.Interpreter, Was: rec.Env.Version})
		}
		return out // it did not answer: nothing more can be told
	}
	if rec.Env.Version != "" && p.version != "" && p.version != rec.Env.Version {
		out = append(out, Change{What: "interpreter", File: rec.Env.Interpreter, Was: rec.Env.Version, Now: p.version})
	}
	if rec.Env.Freeze != "" {
		if list := freeze(ctx, p, rec.Program, opt.Cache, opt.Path, opt.Now); list != nil && Sum(list) != rec.Env.Freeze {
			out = append(out, Change{What: "packages", File: rec.Env.Interpreter, Was: rec.Env.Freeze, Now: Sum(list)})
		}
	}
	return out
}

func hashOr(f File) string {
	if f.SHA256 != "" {
		return f.SHA256
	}
	return fmt.Sprintf("%d bytes", f.Size)
}
