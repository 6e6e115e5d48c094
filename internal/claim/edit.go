package claim

import (
	"bytes"
	"errors"
	"fmt"
)

// The ways an Edit tool call fails, as Claude Code itself refuses them; a
// caller that gets one knows the real tool will fail too and can let it.
var (
	ErrEditNoChange  = errors.New("old_string and new_string are the same, so the edit changes nothing")
	ErrEditNotFound  = errors.New("old_string does not occur in the file")
	ErrEditAmbiguous = errors.New("old_string occurs more than once and replace_all is false")
	ErrEditNotEmpty  = errors.New("an empty old_string only creates a file, and this file already has content")
)

// EditOp is one edit of a MultiEdit call.
type EditOp struct {
	OldString, NewString string
	ReplaceAll           bool
}

// ApplyEdit returns the file an Edit tool call would leave: old with
// oldString replaced by newString, once (oldString must then occur exactly
// once) or everywhere when replaceAll. An empty oldString writes newString
// into an empty or missing file. The match is exact; Claude Code's fallback
// that matches curly quotes against straight ones is not reproduced, so such
// an edit returns ErrEditNotFound here and the caller should not judge it.
func ApplyEdit(old []byte, oldString, newString string, replaceAll bool) ([]byte, error) {
	if oldString == newString {
		return nil, fmt.Errorf("apply edit: %w", ErrEditNoChange)
	}
	if oldString == "" {
		if len(bytes.TrimSpace(old)) != 0 {
			return nil, fmt.Errorf("apply edit: %w", ErrEditNotEmpty)
		}
		return []byte(newString), nil
	}
	from := []byte(oldString)
	switch n := bytes.Count(old, from); {
	case n == 0:
		return nil, fmt.Errorf("apply edit: %w", ErrEditNotFound)
	case n > 1 && !replaceAll:
		return nil, fmt.Errorf("apply edit: %w (%d matches)", ErrEditAmbiguous, n)
	}
	limit := 1
	if replaceAll {
		limit = -1
	}
	return bytes.Replace(old, from, []byte(newString), limit), nil
}

// ApplyEdits applies the edits of a MultiEdit call in order, each to the
// result of the one before; the first failure fails the whole call, as it
// does in Claude Code.
func ApplyEdits(old []byte, edits []EditOp) ([]byte, error) {
	cur := old
	for i, e := range edits {
		next, err := ApplyEdit(cur, e.OldString, e.NewString, e.ReplaceAll)
		if err != nil {
			return nil, fmt.Errorf("multi-edit %d of %d: %w", i+1, len(edits), err)
		}
		cur = next
	}
	return cur, nil
}
