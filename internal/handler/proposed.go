package handler

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/hook"
)

// The content a file-writing tool call would leave on disk (Write, Edit,
// MultiEdit), so PreToolUse judges a write before it happens. It reads the
// current file and nothing else; the edit semantics themselves (exact,
// unique matching) live in internal/claim.ApplyEdit.

// writeTarget is the tool input's file path made absolute against the event's
// cwd and cleaned ("" when the call names no file).
func writeTarget(ev *hook.Event) string {
	p := ev.Files().FilePath
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(ev.Cwd, p)
	}
	return filepath.Clean(p)
}

// proposedWrite returns the file's current content and the content the call
// would produce. ok is false when the call cannot be judged from its input:
// an edit whose old text is not in the file (the tool itself will refuse
// it), a tool that is not Write/Edit/MultiEdit, an unreadable file.
func proposedWrite(ev *hook.Event, abs string) (old, proposed []byte, ok bool) {
	old, err := os.ReadFile(abs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, false
	}
	in := ev.Files()
	switch ev.ToolName {
	case "Write":
		return old, []byte(in.Content), true
	case "Edit":
		p, err := claim.ApplyEdit(old, in.OldString, in.NewString, in.ReplaceAll)
		return old, p, err == nil
	case "MultiEdit":
		ops := make([]claim.EditOp, len(in.Edits))
		for i, e := range in.Edits {
			ops[i] = claim.EditOp{OldString: e.OldString, NewString: e.NewString, ReplaceAll: e.ReplaceAll}
		}
		p, err := claim.ApplyEdits(old, ops)
		return old, p, err == nil
	}
	return nil, nil, false
}
