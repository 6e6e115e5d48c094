package lineage

import (
	"bytes"
	"context"
	"path/filepath"
	"time"
)

// Options tune Capture and Check.
type Options struct {
	// Exec lets them run programs: the interpreter (its version, its
	// package list) and git (whether the tree is dirty). Without it a
	// record holds what the files tell.
	Exec bool
	// Cache is the folder package lists are kept in, one per environment,
	// so each is taken once; "" keeps none.
	Cache string
	// Now is the time of the capture.
	Now time.Time
	// Path is the PATH programs are looked up in (the shell's, which the
	// hook's event carries); "" means this process's.
	Path string
}

// maxInputBytes bounds what Capture hashes of a record's inputs in all;
// past it, inputs are recorded by their size.
const maxInputBytes = 512 << 20

// Capture fills in the record of a result the call wrote: for every
// writer the git commit; for a computation (cl.Step) its program, words
// and folder, the script and its hash, the inputs it names and their
// hashes, the seeds the command and the script set, and the environment
// (lock and environment files, the interpreter, its version and package
// list). It returns the package list, for the mirror (nil when none was
// taken). Everything it reads is bounded; programs run only with
// opt.Exec, each for at most ten seconds.
func Capture(ctx context.Context, c Call, cl Class, rec *Record, opt Options) []byte {
	rec.Captured = true
	rec.Git = gitState(ctx, c.Root, opt.Exec, opt.Path, c.Since)
	st := cl.Step
	if st == nil {
		return nil
	}
	rec.Program, rec.Argv, rec.Module = st.Program, st.Argv, st.Module
	if c.Cwd != "" {
		rec.Cwd = relTo(c.Root, c.Cwd)
	}
	var code string
	if st.Script != "" {
		if sum, size, ok := HashFile(st.Script, MaxHashBytes); ok {
			rec.Script = &File{Path: relTo(c.Root, st.Script), SHA256: sum, Size: size}
		}
		if raw, ok := readCapped(st.Script, maxScriptBytes); ok && !bytes.Contains(raw[:min(len(raw), 8000)], []byte{0}) {
			code = string(raw)
		}
	}
	if st.Inline != "" {
		rec.Inline = Sum([]byte(st.Inline))
		code += "\n" + st.Inline
	}
	budget := int64(maxInputBytes)
	for _, p := range c.namedInputs(st, code) {
		rel := relTo(c.Root, p)
		if rel == rec.Path {
			continue
		}
		limit := min(int64(MaxHashBytes), budget)
		sum, size, ok := HashFile(p, limit)
		if !ok {
			continue
		}
		if sum != "" {
			budget -= size
		}
		rec.Inputs = append(rec.Inputs, File{Path: rel, SHA256: sum, Size: size})
	}
	rec.Seeds = Seeds(c.Command, code)
	env := &Env{}
	for _, p := range c.envFiles(st) {
		if sum, size, ok := HashFile(p, MaxHashBytes); ok {
			env.Files = append(env.Files, File{Path: relTo(c.Root, p), SHA256: sum, Size: size})
		}
	}
	var list []byte
	if interp := c.interpreter(st, opt.Path); interp != "" {
		env.Interpreter = interp
		if opt.Exec {
			p := probeOf(ctx, interp, st.Program, opt.Now)
			env.Version = p.version
			if p.exe != "" {
				env.Interpreter = p.exe
			}
			if list = freeze(ctx, p, st.Program, opt.Cache, opt.Path, opt.Now); list != nil {
				env.Freeze = Sum(list)
				env.Packages = bytes.Count(list, []byte("\n"))
			}
		}
	}
	if len(env.Files) > 0 || env.Interpreter != "" {
		rec.Env = env
	}
	return list
}

// Abs is a record's path (project-relative, or absolute outside the
// project) as an absolute path.
func Abs(root, p string) string {
	if filepath.IsAbs(filepath.FromSlash(p)) {
		return filepath.FromSlash(p)
	}
	return filepath.Join(root, filepath.FromSlash(p))
}
