// Package scaffold creates a project's .vibe-science tree from the templates
// embedded from its templates/ folder: STATE.md, PROGRESS.md,
// CLAIM-LEDGER.md, SERENDIPITY.md, ASSUMPTION-REGISTER.md,
// domain-config.json, permissions.json in TEAM mode, a .gitignore that keeps
// vibe's exports of call records (SPINE.md, RECORD.md, project_pickup.md)
// out of git, and a research-question
// folder with its numbered subfolders and stubs (RQ.md, DESIGN.md,
// DATA-DICTIONARY.md, FINDINGS.md and FINDINGS.json) that pass their gates
// while empty. It only ever creates: an existing file or folder is left as
// it is, so running it twice changes nothing. It must not import cobra or
// the store.
package scaffold
