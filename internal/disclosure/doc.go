// Package disclosure holds the progressive-disclosure context builder: the
// one token estimator (Tokens), a Build that places parts handed in by other
// packages into layers with token budgets and marks what it cut, and the two
// entry points the hooks call, SessionStartContext (layer 1 state, at most
// 200 tokens; layer 2 memories, alerts, hints and seeds, at most 500; never
// more than Settings.SessionStartTokens together) and PromptContext (the
// top three memories for a prompt, at most Settings.PromptRecallTokens).
// Layer 3, full detail, is the CLI on demand. It reads the database only
// through the Reads interface it declares (store.go) and recall, never
// importing store; it must not import cobra, hugot or a hook handler, and
// it writes nothing.
package disclosure
