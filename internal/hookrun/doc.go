// Package hookrun runs one hook invocation: it reads the event from stdin
// (size-capped), decodes it, gives the handler an Env and a time budget,
// recovers panics, applies the hook's declared failure policy, records the
// verdicts, and turns them into Claude Code's reply through the one
// verdict → reply table (Reply). Main returns the exit code; only cmd/ calls
// os.Exit. Nothing here knows what a particular hook checks.
package hookrun
