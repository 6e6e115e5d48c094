// Package fault holds vibe's one error type: an error with a kind (Invalid,
// NotFound, Blocked, Unavailable, Internal) and the operation that failed.
// hookrun and cli each map kinds to exit codes in one table; nothing else
// decides an exit code. Standard library only.
package fault

import (
	"errors"
	"fmt"
)

// Kind classifies an error by what the caller can do about it.
type Kind int

// The kinds.
const (
	Internal    Kind = iota // a bug or an unexpected state
	Invalid                 // bad input: malformed JSON, a wrong flag, a broken config file
	NotFound                // a named thing does not exist
	Blocked                 // a check refused the action
	Unavailable             // a dependency is out of reach: locked or corrupt database, full disk, worker down
)

func (k Kind) String() string {
	switch k {
	case Invalid:
		return "invalid"
	case NotFound:
		return "not found"
	case Blocked:
		return "blocked"
	case Unavailable:
		return "unavailable"
	}
	return "internal"
}

// Error is an error with a kind and the operation it came from.
type Error struct {
	Kind Kind
	Op   string
	Err  error
}

func (e *Error) Error() string {
	if e.Op == "" {
		return e.Err.Error()
	}
	return e.Op + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// E wraps err with a kind and an operation; a nil err stays nil.
func E(kind Kind, op string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: kind, Op: op, Err: err}
}

// Errorf makes a new error of the given kind.
func Errorf(kind Kind, op, format string, args ...any) error {
	return &Error{Kind: kind, Op: op, Err: fmt.Errorf(format, args...)}
}

// KindOf returns the kind of the outermost *Error in err's chain, Internal
// when there is none.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}
