// Package forensic holds the blueprint's forensic checklist (section 15,
// items A to H) as data: each item names the automated tests that judge it,
// or says why it does not apply to this implementation. The runner in
// ./run executes the tests and prints a scored table (`make forensic`).
// It imports only the standard library.
package forensic

// Probe is a set of tests in one package, selected by an anchored regex.
type Probe struct {
	Pkg  string // import path relative to the module, e.g. ./internal/gate
	Test string // exact test name (subtests with a slash)
	Tags string // extra build tags, e.g. "e2e"
}

// Item is one checklist line.
type Item struct {
	ID     string
	Text   string
	Probes []Probe
	// NA says why the item does not apply; it is then not scored.
	NA string
}

// Thresholds are the pass shares per section the issue requires.
var Thresholds = map[string]float64{"A": 1.0, "B": 0.9, "C": 0.9, "D": 0.9, "E": 0.9, "F": 0.9, "G": 1.0, "H": 0.9}

func p(pkg, test string) Probe { return Probe{Pkg: pkg, Test: test} }
func e2e(test string) Probe    { return Probe{Pkg: "./internal/e2e", Test: test, Tags: "e2e"} }

// Checklist is section 15, in order.
var Checklist = []Item{
	{ID: "A1", Text: "All gates present and working (34 claimed; 32 defined, reconciled in gates.md)", Probes: []Probe{
		p("./internal/gate", "TestRegistryCount"), p("./internal/gate", "TestRegistryMatchesGatesDoc"), p("./skill", "TestGatesDocumentMatchesRegistry"), p("./internal/gate", "TestFaultCorpus")}},
	{ID: "A2", Text: "JSON schemas present and read-only", Probes: []Probe{p("./internal/gate", "TestSkillSchemaExamples"), p("./skill", "TestForensicG4")}},
	{ID: "A3", Text: "The laws unchanged (1–10 plus the 11th)", Probes: []Probe{p("./skill", "TestForensicA3")}},
	{ID: "A4", Text: "SFI, BFP, R3 judge and schema-validated gates for FORCED reviews", Probes: []Probe{p("./skill", "TestForensicA4")}},
	{ID: "A5", Text: "Circuit breaker, DISPUTED and the S5 poison pill", Probes: []Probe{p("./skill", "TestForensicA5")}},
	{ID: "A6", Text: "The permission model as specified, now enforced in code", Probes: []Probe{
		p("./internal/permission", "TestBlueprint72_ReviewerEditsLedgerBlocked"), p("./internal/permission", "TestBlueprint72_JudgeEditsReviewBlocked"),
		p("./internal/permission", "TestBlueprint72_SerendipityWritesLedgerBlocked")}},
	{ID: "A7", Text: "DQ gates DQ1–DQ4, DC0, DD0 and L-1 present", Probes: []Probe{p("./internal/gate", "TestRegistryKinds"), p("./internal/gate", "TestForensicC2")}},
	{ID: "A7b", Text: "Literature engine integrated: registry and domain literature sections", Probes: []Probe{
		p("./internal/literature", "TestRegistryShape"), p("./internal/literature", "TestShippedDomainSourcesExist")}},
	{ID: "A8", Text: "R2 INLINE (7th mode) in reviewer2-ensemble.md", Probes: []Probe{p("./skill", "TestForensicA8")}},

	{ID: "B1", Text: "plugin.json present and valid", Probes: []Probe{p("./internal/e2e", "TestForensicB1"), e2e("TestSkillReachesTheModel")}},
	{ID: "B2", Text: "hooks.json wires the lifecycle hooks (setup is `vibe setup`)", Probes: []Probe{p("./internal/e2e", "TestForensicB2"), e2e("TestVibeSessionLeavesRows")}},
	{ID: "B3", Text: "Setup creates the folders and the database", Probes: []Probe{p("./internal/cli/setup", "TestForensicB3")}},
	{ID: "B4", Text: "Every table of the schema defined", Probes: []Probe{p("./internal/store", "TestOpenMigratesOnceAndHasEveryTable")}},
	{ID: "B5", Text: "sqlite-vec loads and works", Probes: []Probe{p("./internal/store", "TestKNNPartitionModelKindsAndForgotten")}},
	{ID: "B6", Text: "The embed worker starts and stops", Probes: []Probe{p("./internal/worker", "TestRealWorkerStartIsIdempotentAndStops")}},
	{ID: "B7", Text: "Works without the database, from the project files", Probes: []Probe{p("./internal/hookrun", "TestForensicB7")}},

	{ID: "C1", Text: "A block actually stops the agent (deny at PreToolUse, before the write)", Probes: []Probe{
		p("./internal/hookrun", "TestForensicC1"), e2e("TestReviewerRoleEnforcedBeforeTheWrite")}},
	{ID: "C2", Text: "DQ4 sync check on FINDINGS.md", Probes: []Probe{p("./internal/gate", "TestForensicC2"), e2e("TestFindingsAndLiteratureGates")}},
	{ID: "C3", Text: "Gate enforcement on CLAIM-LEDGER", Probes: []Probe{p("./internal/hookrun", "TestForensicC3")}},
	{ID: "C4", Text: "Permission enforcement in TEAM mode", Probes: []Probe{p("./internal/permission", "TestForensicF1"), e2e("TestReviewerRoleEnforcedBeforeTheWrite")}},
	{ID: "C5", Text: "Auto-log of significant actions in spine_entries", Probes: []Probe{p("./internal/hookrun", "TestForensicC5")}},
	{ID: "C6", Text: "Observer checks every 10 tool calls", Probes: []Probe{p("./internal/observer", "TestForensicC6")}},
	{ID: "C7", Text: "Narrative summary generated", Probes: []Probe{p("./internal/hookrun", "TestForensicC7")}},
	{ID: "C8", Text: "Stop blocks while claims are unreviewed", Probes: []Probe{p("./internal/hookrun", "TestForensicC8")}},
	{ID: "C9", Text: "SessionStart context under 1000 tokens", Probes: []Probe{p("./internal/disclosure", "TestForensicC9")}},
	{ID: "C10", Text: "UserPromptSubmit recall works", Probes: []Probe{p("./internal/disclosure", "TestForensicC10")}},

	{ID: "D1", Text: "R2 calibration data loaded at SessionStart", Probes: []Probe{p("./internal/calibrate", "TestForensicD1"), e2e("TestTwoSessionsCarryTheResearch")}},
	{ID: "D2", Text: "R2 weakness hint injected", Probes: []Probe{p("./internal/calibrate", "TestForensicD2")}},
	{ID: "D3", Text: "SFI targeting from historical catch rates", Probes: []Probe{p("./internal/calibrate", "TestForensicD3")}},
	{ID: "D4", Text: "Researcher error patterns tracked", Probes: []Probe{p("./internal/calibrate", "TestForensicD4")}},
	{ID: "D5", Text: "Serendipity seeds persist across sessions", Probes: []Probe{p("./internal/seeds", "TestForensicD5")}},
	{ID: "D6", Text: "Calibration log active", Probes: []Probe{p("./internal/calibrate", "TestForensicD6")}},

	{ID: "E1", Text: "Layer 1 (state) under 200 tokens", Probes: []Probe{p("./internal/disclosure", "TestForensicE1")}},
	{ID: "E2", Text: "Layer 2 (memories, calibration, alerts) under 500 tokens", Probes: []Probe{p("./internal/disclosure", "TestForensicE2")}},
	{ID: "E3", Text: "Layers 1+2 under 1000 tokens", Probes: []Probe{p("./internal/disclosure", "TestForensicE3")}},
	{ID: "E4", Text: "Full detail on demand", Probes: []Probe{p("./internal/disclosure", "TestForensicE4")}},

	{ID: "F1", Text: "R2 blocked from writing CLAIM-LEDGER", Probes: []Probe{p("./internal/permission", "TestForensicF1")}},
	{ID: "F2", Text: "Judge blocked from editing R2 reports", Probes: []Probe{p("./internal/permission", "TestForensicF2")}},
	{ID: "F3", Text: "Serendipity blocked from writing CLAIM-LEDGER", Probes: []Probe{p("./internal/permission", "TestForensicF3")}},
	{ID: "F4", Text: "Researcher allowed everywhere but R2 reports", Probes: []Probe{p("./internal/permission", "TestForensicF4")}},
	{ID: "F5", Text: "SOLO mode not blocked by TEAM role rules", Probes: []Probe{p("./internal/permission", "TestForensicF5")}},

	{ID: "G1", Text: "skill/SKILL.md identical to v5.5", NA: "the seeds' sentences do not carry over: SKILL.md is written anew in our own words, and its consistency with the code is held by the G3–G6 tests and skill/consistency_test.go instead of byte identity"},
	{ID: "G2", Text: "skill/CLAUDE.md identical to v5.5", NA: "Claude Code does not load a CLAUDE.md from a plugin folder (reference, section 4); the constitution lives in SKILL.md"},
	{ID: "G3", Text: "All 29 protocols present", Probes: []Probe{p("./skill", "TestForensicG3")}},
	{ID: "G4", Text: "Schemas present (and read-only)", Probes: []Probe{p("./skill", "TestForensicG4")}},
	{ID: "G5", Text: "gates.md lists every gate", Probes: []Probe{p("./skill", "TestGatesDocumentListsTheThirtyTwoGates"), p("./skill", "TestGatesDocumentMatchesRegistry")}},
	{ID: "G6", Text: "Fault taxonomy and judge rubric present", Probes: []Probe{p("./skill", "TestForensicG6")}},

	{ID: "H1", Text: "README with the install instructions", Probes: []Probe{p("./internal/e2e", "TestForensicH1")}},
	{ID: "H2", Text: "blueprints/ with every referenced blueprint", Probes: []Probe{p("./internal/e2e", "TestForensicH2")}},
	{ID: "H3", Text: "domain-config.json documented", Probes: []Probe{p("./internal/e2e", "TestForensicH3"), p("./skill", "TestDomainConfigExamples")}},
	{ID: "H4", Text: "package.json with version 6.0.0", NA: "vibe is a Go module with no package.json; its version is in .claude-plugin/plugin.json and `vibe version`"},
}
