package permission

import (
	"encoding/json"
	"path"
	"strings"
)

// kind says how a tool call touches a path, which decides the rules that
// apply to it.
type kind uint8

const (
	// kindFile: the file is created, changed or removed.
	kindFile kind = iota
	// kindDir: a folder is created or removed (mkdir, rmdir).
	kindDir
	// kindTree: anything under the folder may change (rm -r, tar x, rsync
	// --delete), so files already there are checked too.
	kindTree
	// kindLink: a new link points at this path; it becomes writable under
	// another name, so only the deny rules apply.
	kindLink
	// kindRepo: a git operation rewrites tracked files or the repository
	// itself; a role confined to one folder cannot do that.
	kindRepo
)

// rawTarget is a path a call writes, absolute but not yet resolved.
type rawTarget struct {
	path string
	kind kind
	via  string
	// noFollow: the call replaces the last component itself (ln makes a
	// new link there) instead of writing through it.
	noFollow bool
	// download: the file is written with what was fetched from url.
	download bool
	url      string
	// computed: the path comes from the file system when the command runs
	// (a glob's match, a find match, a listing fed to xargs or $(...), a
	// folder too large to list), not from the command's words: the policy
	// leaves a protected one to the net (Request.Net).
	computed bool
}

// unknownTarget is a write whose target could not be resolved.
type unknownTarget struct {
	text string // the word, command or code that names the target
	via  string
}

// effects is everything a tool call may write, as far as it can be told
// without running it.
type effects struct {
	targets  []rawTarget
	unknown  []unknownTarget
	opaque   []string   // programs whose writes cannot be told (scripts, make)
	programs []string   // every program a shell command runs ("" if unknown)
	calls    [][]string // argv of every simple command; unknown words are "\x00"
	runs     []Run      // the same commands with their folder and stdin program (Runs)
	hits     []hit      // approvals and forbidden operations the analysis found
	globbed  []string   // what the command's globs expanded to (absolute)
	root     string     // the resolved project root
	unparsed bool
	links    map[string]string // symlinks the command itself creates
	source   string            // the whole command, scanned with unknown targets
}

// toolInput holds the fields of tool_input that name what a tool writes.
type toolInput struct {
	FilePath     *string `json:"file_path"`
	NotebookPath *string `json:"notebook_path"`
	Command      *string `json:"command"`
}

// collect works out what req writes. root is the resolved project root and
// cwd the directory relative paths start from (both slash paths).
func collect(req Request, root, cwd, home string) *effects {
	eff := &effects{root: root}
	switch req.ToolName {
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		var in toolInput
		if err := json.Unmarshal(req.ToolInput, &in); err != nil {
			eff.unparsed = true
			eff.unknown = append(eff.unknown, unknownTarget{text: string(req.ToolInput), via: req.ToolName})
			return eff
		}
		p := in.FilePath
		if req.ToolName == "NotebookEdit" && in.NotebookPath != nil {
			p = in.NotebookPath
		}
		if p == nil || *p == "" {
			eff.unparsed = true
			eff.unknown = append(eff.unknown, unknownTarget{text: string(req.ToolInput), via: req.ToolName + " without a path"})
			return eff
		}
		eff.targets = append(eff.targets, rawTarget{path: join(cwd, expandHome(*p, home)), kind: kindFile, via: req.ToolName})
	case "Bash":
		var in toolInput
		if err := json.Unmarshal(req.ToolInput, &in); err != nil || in.Command == nil {
			eff.unparsed = true
			eff.unknown = append(eff.unknown, unknownTarget{text: string(req.ToolInput), via: "Bash"})
			return eff
		}
		eff.source = *in.Command
		analyzeShell(eff, *in.Command, cwd, root, home)
	case "PowerShell":
		// No PowerShell parser here: every write is unknown, and the text is
		// scanned for protected names.
		var in toolInput
		text := string(req.ToolInput)
		if err := json.Unmarshal(req.ToolInput, &in); err == nil && in.Command != nil {
			text = *in.Command
		}
		eff.unparsed = true
		eff.unknown = append(eff.unknown, unknownTarget{text: text, via: "PowerShell"})
	default:
		if strings.HasPrefix(req.ToolName, "mcp__") {
			collectMCP(eff, req, cwd, home)
		}
	}
	return eff
}

// MCP tools: which input keys carry a path the tool may write, and which
// carry a path it only removes or renames from.
var (
	mcpPathKeys = map[string]bool{
		"path": true, "paths": true, "file": true, "files": true, "filepath": true, "filepaths": true,
		"filename": true, "filenames": true, "target": true, "targetpath": true, "targetfile": true,
		"destination": true, "destinationpath": true, "dest": true, "destpath": true, "output": true,
		"outputpath": true, "outputfile": true, "out": true, "notebookpath": true, "newpath": true,
		"directory": true, "dir": true, "folder": true, "uri": true,
	}
	mcpSourceKeys = map[string]bool{
		"source": true, "sourcepath": true, "src": true, "from": true, "oldpath": true,
	}
	mcpWriteVerbs = []string{
		"write", "edit", "create", "delete", "remove", "move", "rename", "copy", "put", "update",
		"append", "save", "patch", "insert", "mkdir", "upload", "set", "replace", "modify", "touch",
		"truncate", "overwrite", "apply", "commit", "unlink", "rm", "mv", "cp",
	}
	mcpReadVerbs = []string{
		"read", "get", "list", "search", "find", "stat", "info", "view", "show", "query", "fetch",
		"describe", "tree", "glob", "grep", "cat", "head", "tail", "exists", "diff", "ls",
	}
)

// collectMCP treats the path-like fields of an MCP tool's input as write
// targets unless the tool's name says it only reads. A name that says
// neither counts as a write: protected paths fail closed.
func collectMCP(eff *effects, req Request, cwd, home string) {
	name := strings.ToLower(req.ToolName)
	if i := strings.LastIndex(name, "__"); i >= 0 {
		name = name[i+2:]
	}
	words := strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	has := func(verbs []string) bool {
		for _, w := range words {
			for _, v := range verbs {
				if w == v || strings.HasPrefix(w, v) && len(w) <= len(v)+2 {
					return true
				}
			}
		}
		return false
	}
	writes := has(mcpWriteVerbs)
	if !writes && has(mcpReadVerbs) {
		return
	}
	moves := false
	for _, w := range words {
		switch w {
		case "move", "rename", "mv", "delete", "remove", "rm", "unlink":
			moves = true
		}
	}
	var in any
	if err := json.Unmarshal(req.ToolInput, &in); err != nil {
		eff.unparsed = true
		eff.unknown = append(eff.unknown, unknownTarget{text: string(req.ToolInput), via: req.ToolName})
		return
	}
	walkMCP(eff, in, cwd, home, req.ToolName, moves, 0)
}

func walkMCP(eff *effects, v any, cwd, home, via string, moves bool, depth int) {
	if depth > 4 {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			key := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(k))
			if mcpPathKeys[key] || moves && mcpSourceKeys[key] {
				addMCPPath(eff, x, cwd, home, via)
				continue
			}
			switch x.(type) {
			case map[string]any, []any:
				walkMCP(eff, x, cwd, home, via, moves, depth+1)
			}
		}
	case []any:
		for _, x := range t {
			walkMCP(eff, x, cwd, home, via, moves, depth+1)
		}
	}
}

func addMCPPath(eff *effects, v any, cwd, home, via string) {
	switch t := v.(type) {
	case string:
		p := strings.TrimPrefix(t, "file://")
		if p == "" || strings.Contains(p, "://") {
			return
		}
		eff.targets = append(eff.targets, rawTarget{path: join(cwd, expandHome(p, home)), kind: kindFile, via: via})
	case []any:
		for _, x := range t {
			addMCPPath(eff, x, cwd, home, via)
		}
	}
}

// expandHome turns a leading "~" or "~/" into the home folder, as Claude
// Code's file tools do; without a known home the path is left as it is.
func expandHome(p, home string) string {
	if home == "" || p == "" || p[0] != '~' {
		return p
	}
	if p == "~" {
		return home
	}
	if p[1] == '/' || p[1] == '\\' {
		return strings.TrimSuffix(home, "/") + "/" + p[2:]
	}
	return p
}

// cleanAbs cleans an absolute slash path lexically, keeping a drive letter.
func cleanAbs(p string) string {
	vol := volume(p)
	return vol + path.Clean("/"+strings.TrimPrefix(p[len(vol):], "/"))
}
