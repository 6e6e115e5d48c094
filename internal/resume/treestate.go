package resume

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/lazyre"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/research"
	"github.com/vibe-science/vibe/internal/store/record"
)

// TreeStateFile is the project's tree state under .vibe-science/ (LAW 7):
// vibe writes it at Stop and SessionEnd, reads it at a SessionStart that
// cannot open the database, and skill/vibe/schemas/tree-state.schema.json
// describes it.
const TreeStateFile = "TREE-STATE.json"

// TreeStateSchema is the schema file that TREE-STATE.json validates against
// (internal/schemacheck; the hooks never link the validator).
const TreeStateSchema = "tree-state.schema.json"

// TreeStateVersion is the format's version; a reader refuses another.
const TreeStateVersion = 1

// Caps on what TREE-STATE.json lists.
const (
	treeMaxNodes  = 200
	treeMaxAlerts = 20
	treeMaxSeeds  = 20
	treeMaxDirs   = 10
	treeIDRunes   = 80
	treeMsgRunes  = 300
)

// TreeState is TREE-STATE.json. Its fields are ids, statuses, counts,
// project-relative paths and short scrubbed alert messages: no research
// text, no absolute path.
type TreeState struct {
	Version           int             `json:"version"`
	WrittenAt         time.Time       `json:"written_at"`
	SessionID         string          `json:"session_id"`
	VibeVersion       string          `json:"vibe_version"`
	Project           string          `json:"project"`
	ResearchQuestions []TreeRQ        `json:"research_questions"`
	Direction         []TreeDirection `json:"direction"`
	Claims            []TreeClaim     `json:"claims"`
	LedgerErrors      int             `json:"ledger_errors,omitempty"`
	Gates             []TreeGate      `json:"gates"`
	Alerts            TreeAlerts      `json:"alerts"`
	Seeds             []TreeSeed      `json:"seeds"`
}

// TreeRQ is one research question's folder and its tree.
type TreeRQ struct {
	ID     string `json:"id"`
	Folder string `json:"folder"`
	Tree   *Tree  `json:"tree,omitempty"`
}

// Tree is what a research question's 08-tree folder shows: its
// TREE-STATE.json, which the agent writes, else its nodes/ file names.
type Tree struct {
	File        string     `json:"file,omitempty"`
	Unreadable  string     `json:"unreadable,omitempty"`
	Mode        string     `json:"mode,omitempty"`
	Stage       string     `json:"stage,omitempty"`
	CurrentNode string     `json:"current_node,omitempty"`
	BestNode    string     `json:"best_node,omitempty"`
	NodesTotal  int        `json:"nodes_total"`
	Nodes       []TreeNode `json:"nodes"`
}

// TreeNode is one node of a research tree.
type TreeNode struct {
	ID     string `json:"id"`
	Type   string `json:"type,omitempty"`
	Parent string `json:"parent,omitempty"`
	Status string `json:"status,omitempty"`
}

// TreeDirection is a research-direction document vibe tracks (L-1).
type TreeDirection struct {
	Path      string    `json:"path"`
	Status    string    `json:"status,omitempty"`
	CheckedAt time.Time `json:"checked_at"`
}

// TreeClaim is one claim of the ledger.
type TreeClaim struct {
	ID           string   `json:"id"`
	Status       string   `json:"status,omitempty"`
	Confidence   *float64 `json:"confidence,omitempty"`
	MissingGates []string `json:"missing_gates,omitempty"`
}

// TreeGate is the latest result of a gate (for a claim).
type TreeGate struct {
	Gate   string    `json:"gate"`
	Claim  string    `json:"claim,omitempty"`
	Status string    `json:"status"`
	At     time.Time `json:"at"`
}

// TreeAlerts are the open alerts.
type TreeAlerts struct {
	Open   TreeAlertCounts `json:"open"`
	Listed []TreeAlert     `json:"listed"`
}

// TreeAlertCounts count open alerts per level.
type TreeAlertCounts struct {
	Halt int `json:"halt"`
	Warn int `json:"warn"`
	Info int `json:"info"`
}

// TreeAlert is one open alert.
type TreeAlert struct {
	ID        int64     `json:"id"`
	Level     string    `json:"level"`
	Check     string    `json:"check"`
	Message   string    `json:"message"`
	CreatedAt time.Time `json:"created_at"`
}

// TreeSeed is one open serendipity seed.
type TreeSeed struct {
	ID              string `json:"id"`
	Status          string `json:"status"`
	SessionsPending int    `json:"sessions_pending"`
}

// TreeReads is what GatherTree reads of the database. *store.Store has it.
type TreeReads interface {
	PassedGatesFor(ctx context.Context, project string, claims []string) (map[string]map[string]bool, error)
	LatestGates(ctx context.Context, project string, window int) ([]record.GateState, error)
	Alerts(ctx context.Context, f record.AlertFilter) ([]record.Alert, error)
	OpenAlertCounts(ctx context.Context, project string) (record.AlertCounts, error)
	PendingSeeds(ctx context.Context, project string, limit int) ([]record.PendingSeed, error)
	ArtifactStates(ctx context.Context, project string) ([]record.ArtifactState, error)
}

// GatherTree builds the tree state from the database and the project's
// files. What could be read is returned with the errors of what could not.
func GatherTree(ctx context.Context, st TreeReads, proj project.Project, sessionID, version string, now time.Time) (TreeState, error) {
	ts := TreeState{Version: TreeStateVersion, WrittenAt: now.UTC().Truncate(time.Second), SessionID: sessionID,
		VibeVersion: version, Project: proj.Name(),
		ResearchQuestions: researchQuestions(proj), Direction: []TreeDirection{}, Claims: []TreeClaim{},
		Gates: []TreeGate{}, Alerts: TreeAlerts{Listed: []TreeAlert{}}, Seeds: []TreeSeed{}}
	var errs []error

	ledger, err := readCapped(proj.Path(LedgerFile))
	if err != nil {
		errs = append(errs, fmt.Errorf("read claim ledger: %w", err))
	}
	if len(ledger) > 0 {
		l, perrs := claim.ParseLedger(ledger)
		ts.LedgerErrors = len(perrs)
		missing, err := missingGates(ctx, st, proj, l.Claims)
		if err != nil {
			errs = append(errs, err)
		}
		for _, c := range l.Claims {
			tc := TreeClaim{ID: c.ID, Status: c.Status, MissingGates: missing[c.ID]}
			if c.HasConfidence {
				conf := c.Confidence
				tc.Confidence = &conf
			}
			ts.Claims = append(ts.Claims, tc)
		}
	}
	if gs, err := st.LatestGates(ctx, proj.Root, 0); err != nil {
		errs = append(errs, err)
	} else {
		for _, g := range gs {
			ts.Gates = append(ts.Gates, TreeGate{Gate: g.GateID, Claim: g.ClaimID, Status: g.Status, At: g.At.UTC()})
		}
	}
	if c, err := st.OpenAlertCounts(ctx, proj.Root); err != nil {
		errs = append(errs, err)
	} else {
		ts.Alerts.Open = TreeAlertCounts{Halt: c.Halt, Warn: c.Warn, Info: c.Info}
	}
	if as, err := st.Alerts(ctx, record.AlertFilter{Project: proj.Root, Limit: treeMaxAlerts}); err != nil {
		errs = append(errs, err)
	} else {
		for _, a := range as {
			ts.Alerts.Listed = append(ts.Alerts.Listed, TreeAlert{ID: a.ID, Level: a.Level, Check: a.Check,
				Message: oneLine(privacy.Scrub(a.Message), treeMsgRunes), CreatedAt: a.CreatedAt.UTC()})
		}
	}
	if ss, err := st.PendingSeeds(ctx, proj.Root, treeMaxSeeds); err != nil {
		errs = append(errs, err)
	} else {
		for _, s := range ss {
			ts.Seeds = append(ts.Seeds, TreeSeed{ID: s.SeedID, Status: s.Status, SessionsPending: s.SessionsPending})
		}
	}
	if as, err := st.ArtifactStates(ctx, proj.Root); err != nil {
		errs = append(errs, err)
	} else {
		for _, a := range as {
			if a.Kind == research.KindDirection {
				ts.Direction = append(ts.Direction, TreeDirection{Path: a.Path, Status: a.Status, CheckedAt: a.At.UTC()})
			}
		}
		sort.Slice(ts.Direction, func(i, j int) bool {
			a, b := ts.Direction[i], ts.Direction[j]
			return a.CheckedAt.After(b.CheckedAt) || a.CheckedAt.Equal(b.CheckedAt) && a.Path < b.Path
		})
		if len(ts.Direction) > treeMaxDirs {
			ts.Direction = ts.Direction[:treeMaxDirs]
		}
	}
	return ts, errors.Join(errs...)
}

// missingGates maps each PROVISIONAL claim to the promotion gates with no
// PASS recorded for it: the rule the promotion check applies.
func missingGates(ctx context.Context, st interface {
	PassedGatesFor(ctx context.Context, project string, claims []string) (map[string]map[string]bool, error)
}, proj project.Project, claims []claim.Claim) (map[string][]string, error) {
	out := map[string][]string{}
	var provisional []claim.Claim
	var ids []string
	for _, c := range claims {
		if c.Status == claim.StatusProvisional {
			provisional = append(provisional, c)
			ids = append(ids, c.ID)
		}
	}
	if len(provisional) == 0 {
		return out, nil
	}
	var table map[int][]string
	if d, err := gate.LoadDomain(proj.Root); err == nil {
		table = d.Promotion
	}
	passed, err := st.PassedGatesFor(ctx, proj.Root, ids)
	for _, c := range provisional {
		var missing []string
		for _, g := range claim.PromotionGates(c, table) {
			if !passed[c.ID][g] {
				missing = append(missing, g)
			}
		}
		if len(missing) > 0 {
			out[c.ID] = missing
		}
	}
	return out, err
}

// researchQuestions lists the research-question folders (RQ-* at the root
// and in .vibe-science/), each with its tree when its 08-tree folder shows
// one.
func researchQuestions(proj project.Project) []TreeRQ {
	out := []TreeRQ{}
	for _, dir := range []string{proj.VibeDir(), proj.Root} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			m := rqFolder.FindStringSubmatch(e.Name())
			if m == nil || !e.IsDir() {
				continue
			}
			abs := filepath.Join(dir, e.Name())
			rq := TreeRQ{ID: "RQ-" + m[1], Folder: proj.Rel(abs)}
			rq.Tree = readTree(proj, filepath.Join(abs, "08-tree"))
			out = append(out, rq)
		}
	}
	return out
}

// readTree reads a research question's 08-tree folder: its TREE-STATE.json
// when it is there and reads as a tree, else the names of its nodes/ files;
// nil when it shows neither.
func readTree(proj project.Project, dir string) *Tree {
	var t *Tree
	file := filepath.Join(dir, TreeStateFile)
	raw, err := readCapped(file)
	switch {
	case err != nil:
		t = &Tree{File: proj.Rel(file), Unreadable: oneLine(privacy.Scrub(err.Error()), treeMsgRunes)}
	case raw != nil:
		t = &Tree{File: proj.Rel(file)}
		if perr := t.parse(raw); perr != "" {
			t = &Tree{File: t.File, Unreadable: perr}
		}
	}
	if t != nil && t.Unreadable == "" {
		return t
	}
	entries, err := os.ReadDir(filepath.Join(dir, "nodes"))
	if err != nil || len(entries) == 0 {
		return t
	}
	if t == nil {
		t = &Tree{}
	}
	t.Nodes = []TreeNode{}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		m := nodeFile.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		t.add(TreeNode{ID: m[1], Type: m[2]})
	}
	return t
}

// parse reads the fields a tree file written by the skill's tree-search
// protocol has, accepting the spellings an agent uses (nodes as a list or
// keyed by id; node_type or type; parent or parent_id). It says why the
// content is not a tree, "" when it is one.
func (t *Tree) parse(raw []byte) string {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil || doc == nil {
		return "not a JSON object"
	}
	t.Mode = firstText(doc, "tree_mode", "mode")
	t.Stage = firstText(doc, "stage", "current_stage")
	t.CurrentNode = firstText(doc, "current_node", "current_node_id", "current")
	t.BestNode = firstText(doc, "best_node", "best_node_id", "best")
	t.Nodes = []TreeNode{}
	switch ns := doc["nodes"].(type) {
	case []any:
		for _, n := range ns {
			if obj, ok := n.(map[string]any); ok {
				t.add(node(obj, ""))
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(ns))
		for k := range ns {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if obj, ok := ns[k].(map[string]any); ok {
				t.add(node(obj, k))
			}
		}
	case nil:
	default:
		return `"nodes" is neither a list nor an object`
	}
	return ""
}

// add counts n and lists it while there is room; a node without an id is
// counted only.
func (t *Tree) add(n TreeNode) {
	t.NodesTotal++
	if n.ID != "" && len(t.Nodes) < treeMaxNodes {
		t.Nodes = append(t.Nodes, n)
	}
}

func node(obj map[string]any, key string) TreeNode {
	n := TreeNode{ID: firstText(obj, "id", "node_id"), Type: firstText(obj, "node_type", "type"),
		Parent: firstText(obj, "parent", "parent_id"), Status: firstText(obj, "status")}
	if n.ID == "" {
		n.ID = treeText(key)
	}
	return n
}

// firstText is the first of keys whose value is a string or a number, as
// short scrubbed text.
func firstText(obj map[string]any, keys ...string) string {
	for _, k := range keys {
		switch v := obj[k].(type) {
		case string:
			if s := treeText(v); s != "" {
				return s
			}
		case json.Number:
			return v.String()
		}
	}
	return ""
}

func treeText(s string) string { return oneLine(privacy.Scrub(s), treeIDRunes) }

// nodeFile matches a node file's name: node-014-ablation.yaml.
var nodeFile = lazyre.New(`^(node-[0-9]+)(?:-([a-z][a-z0-9_-]*))?\.(?:ya?ml|json)$`)

// rqFolder matches a research-question folder: RQ-001 or RQ-001-slug.
var rqFolder = lazyre.New(`^RQ-([0-9]{3,})(?:-.*)?$`)

// WriteTree gathers the tree state and writes it to
// .vibe-science/TREE-STATE.json (temporary file, then rename), unless it
// differs from the file's state only in written_at and session_id: a turn
// that changed nothing leaves the file and its modification time alone. It
// reports whether it wrote; a project without .vibe-science, or a call
// without a session, is left alone, and so is a file there that vibe did
// not write (an agent's tree put there rather than in its research
// question's 08-tree folder), which the error names. The file is written even when part of
// the state could not be read, and the error says what was missing.
func WriteTree(ctx context.Context, st TreeReads, proj project.Project, sessionID, version string, now time.Time) (bool, error) {
	if !hasVibeDir(proj) || sessionID == "" {
		return false, nil
	}
	ts, gerr := GatherTree(ctx, st, proj, sessionID, version, now)
	out, err := json.MarshalIndent(ts, "", "  ")
	if err != nil {
		return false, errors.Join(gerr, err)
	}
	out = append(out, '\n')
	p := proj.Path(TreeStateFile)
	old, err := readCapped(p)
	if err != nil {
		return false, errors.Join(gerr, err)
	}
	if old != nil {
		if !vibesTree(old) {
			return false, errors.Join(gerr, fmt.Errorf("%s/%s was not written by vibe, so it is left as it is: a research question's tree belongs in its 08-tree/%s; move the file there and vibe writes the project's tree state at the next Stop",
				project.Dir, TreeStateFile, TreeStateFile))
		}
		if sameTree(old, ts) {
			return false, gerr
		}
	}
	if err := writeAtomic(p, out, 0o644); err != nil {
		return false, errors.Join(gerr, err)
	}
	return true, gerr
}

// vibesTree reports whether content is a tree state vibe wrote (of any
// format version): an agent's own tree file there is never overwritten.
func vibesTree(content []byte) bool {
	var head struct {
		Version     int    `json:"version"`
		VibeVersion string `json:"vibe_version"`
		SessionID   string `json:"session_id"`
	}
	return json.Unmarshal(content, &head) == nil && head.Version > 0 && head.VibeVersion != "" && head.SessionID != ""
}

// sameTree reports whether the file's state equals ts but for written_at
// and session_id.
func sameTree(old []byte, ts TreeState) bool {
	var prev TreeState
	if json.Unmarshal(old, &prev) != nil {
		return false
	}
	prev.WrittenAt, prev.SessionID = ts.WrittenAt, ts.SessionID
	a, err1 := json.Marshal(prev)
	b, err2 := json.Marshal(ts)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

// ReadTree reads .vibe-science/TREE-STATE.json; found is false when there
// is none.
func ReadTree(proj project.Project) (ts TreeState, found bool, err error) {
	raw, err := readCapped(proj.Path(TreeStateFile))
	if err != nil {
		return ts, true, fmt.Errorf("read %s: %w", TreeStateFile, err)
	}
	if raw == nil {
		return ts, false, nil
	}
	if err := json.Unmarshal(raw, &ts); err != nil {
		return ts, true, fmt.Errorf("%s does not parse: %w", TreeStateFile, err)
	}
	if !vibesTree(raw) {
		return ts, true, fmt.Errorf("%s was not written by vibe", TreeStateFile)
	}
	if ts.Version != TreeStateVersion {
		return ts, true, fmt.Errorf("%s has format version %d; this vibe reads version %d", TreeStateFile, ts.Version, TreeStateVersion)
	}
	return ts, true, nil
}

// TreeStateSays says in one line where the project's TREE-STATE.json
// stands, for `vibe status`.
func TreeStateSays(proj project.Project) string {
	ts, found, err := ReadTree(proj)
	switch {
	case !found:
		return "not written yet: vibe writes it at the end of each turn"
	case err != nil:
		return privacy.Scrub("cannot be used to resume: " + err.Error())
	}
	return fmt.Sprintf("written %s by session %s: %s, %s, %s, %s",
		stamp(ts.WrittenAt), shortID(ts.SessionID), nOf(len(ts.ResearchQuestions), "research question"), nOf(len(ts.Claims), "claim"),
		nOf(len(ts.Gates), "gate result"), nOf(ts.Alerts.Open.Halt+ts.Alerts.Open.Warn+ts.Alerts.Open.Info, "open alert"))
}

// nOf is "1 claim", "2 claims".
func nOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// treeResumeMaxBytes caps the resume block.
const treeResumeMaxBytes = 2500

// TreeResume is the short resume block SessionStart gives Claude from
// TREE-STATE.json when the database is unavailable; "" when the project
// has no such file. An unreadable file is said in the block.
func TreeResume(proj project.Project) string {
	if !hasVibeDir(proj) {
		return ""
	}
	ts, found, err := ReadTree(proj)
	if !found {
		return ""
	}
	rel := project.Dir + "/" + TreeStateFile
	if err != nil {
		return privacy.Scrub(fmt.Sprintf("%s cannot be used to resume: %v.", rel, err))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Resuming from %s written at %s by session %s (vibe %s):\n", rel, stamp(ts.WrittenAt), shortID(ts.SessionID), ts.VibeVersion)
	for _, rq := range ts.ResearchQuestions {
		line := "- " + rq.ID + " (" + rq.Folder + ")"
		if t := rq.Tree; t != nil {
			line += ": " + t.summary()
		}
		b.WriteString(line + "\n")
	}
	if len(ts.Direction) > 0 {
		d := ts.Direction[0]
		line := "- current direction: " + d.Path
		if d.Status != "" {
			line += " (L-1 " + d.Status + ")"
		}
		fmt.Fprintf(&b, "%s, checked %s\n", line, stamp(d.CheckedAt))
	}
	var open, killed []string
	for _, c := range ts.Claims {
		if c.Status == claim.StatusKilled {
			killed = append(killed, c.ID)
			continue
		}
		s := c.ID + " " + orDash(c.Status)
		if c.Confidence != nil {
			s += " " + strconv.FormatFloat(*c.Confidence, 'f', 2, 64)
		}
		if len(c.MissingGates) > 0 {
			s += " (needs " + strings.Join(c.MissingGates, ", ") + ")"
		}
		open = append(open, s)
	}
	if len(open) > 0 {
		fmt.Fprintf(&b, "- open claims: %s\n", capped(open, maxListed))
	} else {
		b.WriteString("- open claims: none\n")
	}
	if len(killed) > 0 {
		fmt.Fprintf(&b, "- killed claims: %s\n", capped(killed, maxListed))
	}
	var failing []string
	for _, g := range ts.Gates {
		if g.Status == string(record.GateFail) {
			failing = append(failing, gateLabel(record.GateState{GateID: g.Gate, ClaimID: g.Claim}))
		}
	}
	if len(failing) > 0 {
		fmt.Fprintf(&b, "- failing gates: %s\n", capped(failing, maxListed))
	}
	if n := ts.Alerts.Open.Halt + ts.Alerts.Open.Warn + ts.Alerts.Open.Info; n > 0 {
		fmt.Fprintf(&b, "- open alerts: %d (%d HALT, %d WARN, %d INFO)\n", n, ts.Alerts.Open.Halt, ts.Alerts.Open.Warn, ts.Alerts.Open.Info)
		for i, a := range ts.Alerts.Listed {
			if i == 3 {
				break
			}
			fmt.Fprintf(&b, "  [A-%d] %s %s\n", a.ID, a.Level, oneLine(a.Message, 160))
		}
	}
	if len(ts.Seeds) > 0 {
		ids := make([]string, len(ts.Seeds))
		for i, s := range ts.Seeds {
			ids[i] = s.ID
		}
		fmt.Fprintf(&b, "- pending seeds: %s\n", capped(ids, maxListed))
	}
	out := b.String()
	if len(out) > treeResumeMaxBytes {
		cut := strings.LastIndexByte(out[:treeResumeMaxBytes], '\n')
		out = out[:cut+1] + "  … (cut; read " + rel + " for the rest)\n"
	}
	return privacy.Scrub(strings.TrimRight(out, "\n"))
}

// summary is a tree in one line: mode, stage, current and best node, and
// the nodes, with the listed ones counted by the statuses they record.
func (t *Tree) summary() string {
	if t.Unreadable != "" && len(t.Nodes) == 0 {
		return t.File + " unreadable (" + t.Unreadable + ")"
	}
	var parts []string
	if t.Mode != "" {
		parts = append(parts, "tree "+t.Mode)
	}
	if t.Stage != "" {
		parts = append(parts, "stage "+t.Stage)
	}
	if t.CurrentNode != "" {
		parts = append(parts, "current "+t.CurrentNode)
	}
	if t.BestNode != "" {
		parts = append(parts, "best "+t.BestNode)
	}
	n := map[string]int{}
	var order []string
	for _, nd := range t.Nodes {
		s := nd.Status
		if s == "" {
			continue
		}
		if n[s] == 0 {
			order = append(order, s)
		}
		n[s]++
	}
	counts := make([]string, len(order))
	for i, s := range order {
		counts[i] = fmt.Sprintf("%d %s", n[s], s)
	}
	nodes := fmt.Sprintf("%d nodes", t.NodesTotal)
	if len(counts) > 0 {
		nodes += " (" + strings.Join(counts, ", ") + ")"
	}
	return strings.Join(append(parts, nodes), ", ")
}
