// Package privacy removes what must never be stored or shown: text inside
// private tags (<private>…</private> in any letter case, with attributes
// such as reason="…" or blanks inside the brackets) and secrets. It is the
// one place the rule lives and the only package that links gitleaks; it
// must not import any other vibe package but lazyre.
//
// Secrets are found by gitleaks' own detector and default rule set
// (github.com/zricethezav/gitleaks/v8, about 220 rule families, each with
// its keywords, expression, entropy floor and allowlists), used as a
// library, and by a small layer of forms those rules leave out or judge
// by entropy alone (rules.go: command-line passwords, URL credentials,
// authorization headers, unclosed private keys; assign.go: a value whose
// name says it is a secret, in every language's assignment, typed
// declarations, XML elements and name/value pairs). Only the value is
// replaced; the name, the operator and the quotes stay. What describes a
// secret rather than holding it stays too: max_tokens=4096,
// "pad_token": "[PAD]", tokenizer = bert-base-uncased, key_size = 256,
// and numbers, checksums, accessions and model names (the provenance
// corpus in corpus/testdata is the test).
//
// gitleaks' rules are loaded once per process (Load: 30-40 ms of CPU on
// the development VM, three quarters of it gitleaks compiling its
// expressions), and each rule's detector is made on the rule's first use:
// the resident process loads them at start, vibe-hook and the CLI on first
// use. A text runs only the rules whose keywords it holds (one pass over
// it finds them), and generic-api-key, whose expression costs half a
// microsecond a byte, runs on a long text only where a keyword is followed
// by an operator. The per-event client binaries never link this package.
//
// Where it runs: store scrubs every text it writes (and the spool; JSON
// string by string, ScrubJSON), the logs are scrubbed as they are written,
// a text is scrubbed before it is cut (Prefix, spine.Clip), and what vibe
// shows or exports (the viewer's pages, RECORD.md, SPINE.md, STATE.md's
// section, --json listings and tables) goes through ScrubAll or Scrub once
// more on its way out, so a record stored before a rule existed is never
// shown; store.RescanSecrets rewrites such records once per rule-set
// version (Version), in the resident process at its start.
package privacy
