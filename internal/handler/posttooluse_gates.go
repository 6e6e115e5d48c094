package handler

import (
	"context"
	"fmt"
	"time"

	"github.com/vibe-science/vibe/internal/artifact"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// ArtifactTracker remembers what the gates last saw of each project's artifacts;
// the resident worker keeps it across events. Tests replace it.
var ArtifactTracker = artifact.Default

// gated is what the artifact gates found after one call.
type gated struct {
	scan      artifact.Scan
	judged    []artifact.Judgement
	inputs    [][]record.GateInput // per judgement, the files it read with their hashes
	worst     gate.Status
	statusFor map[string]gate.Status // rel path → worst status of the gates run on it
	profiles  map[string][]byte      // rel path → DQ1's profile of the table
	// since is when the call began, as far as file times tell; written
	// are the files it named as written (project-relative).
	since   time.Time
	written map[string]bool
	// said are the deviations (artifact.Judgement.Deviation) told in this
	// reply, quiet those already told in the session: a deviation is said
	// once per file and session (store.Noticed).
	said  []string
	quiet map[string]bool
	// direction are the blocks of gate L-1 on directions found changed
	// (directionNet), nets their results for the record.
	direction []verdict.Verdict
	nets      []netResult
	// results are the result files the call changed, with who wrote
	// them (posttooluse_lineage.go).
	results []result
}

// netResult is a gate result a hook's net reached on a file outside the
// artifact gates (L-1 on a direction).
type netResult struct {
	rel string
	res gate.Result
}

// gateArtifacts finds the research artifacts this call changed, whatever
// tool changed them (the paths it wrote, plus a stat scan of the research
// questions' data, analysis and results folders), and runs the gates that
// apply to them. It needs no database: what was seen before comes from the
// store when one is open, else the first look is a baseline.
func gateArtifacts(ctx context.Context, env *hookrun.Env, st *store.Store, ev *hook.Event, call Call, now time.Time) gated {
	proj := call.Project
	d, err := gate.LoadDomain(proj.Root)
	if err != nil {
		env.Note("%v; gates use the generic thresholds until it is fixed", err)
		d, _ = gate.ShippedDomain(gate.GenericDomain)
	}
	var written []string
	for _, f := range call.Files {
		if f.Op == "write" {
			written = append(written, absUnder(proj, f.Path))
		}
	}
	since := now.Add(-2 * time.Second)
	if ev.DurationMS != nil {
		since = since.Add(-time.Duration(*ev.DurationMS) * time.Millisecond)
	}
	var load artifact.Loader
	if st != nil {
		load = func() ([]artifact.State, error) {
			rows, err := st.ArtifactStates(ctx, proj.Root)
			if err != nil {
				return nil, err
			}
			out := make([]artifact.State, len(rows))
			for i, r := range rows {
				out[i] = artifact.State{Rel: r.Path, Kind: r.Kind, Size: r.Size, MtimeNS: r.MtimeNS, SHA256: r.SHA256, Status: r.Status, Profile: r.Profile}
			}
			return out, nil
		}
	}
	g := gated{statusFor: map[string]gate.Status{}, profiles: map[string][]byte{}, since: since, written: map[string]bool{}}
	for _, f := range call.Files {
		if f.Op == "write" {
			g.written[f.Path] = true
		}
	}
	g.scan = ArtifactTracker.Scan(proj.Root, d, written, since, load)
	g.results = results(ev, proj, g.scan, g.written, since)
	if len(g.scan.Changes) == 0 {
		return g
	}
	g.judged = artifact.Judge(g.scan, d, originsFor(ctx, env, st, proj, g.results, now))
	if ev.ToolName == "Bash" {
		groupsKept(g.judged, ev.Files().Command, ev.Cwd, proj.Root, d)
	}
	for i := range g.judged {
		j := &g.judged[i]
		var ins []record.GateInput
		for k, in := range j.Result.Inputs {
			rel := proj.Rel(in)
			sum, _ := checksum(in)
			ins = append(ins, record.GateInput{Path: rel, SHA256: sum})
			j.Result.Inputs[k] = rel
		}
		g.inputs = append(g.inputs, ins)
		s := j.Result.Status
		for _, c := range j.Result.Checks {
			if rank(c.Status) > rank(s) {
				s = c.Status
			}
		}
		j.Result.Status = s
		if rank(s) > rank(g.worst) {
			g.worst = s
		}
		if rank(s) >= rank(g.statusFor[j.Rel]) {
			g.statusFor[j.Rel] = s
		}
		if j.Profile != nil {
			g.profiles[j.Rel] = j.Profile
		}
	}
	for _, j := range g.judged {
		ArtifactTracker.Judged(proj.Root, j.Abs, string(g.statusFor[j.Rel]), j.Profile)
	}
	g.quietDeviations(ctx, env, st, ev, proj)
	return g
}

// groupsKept adds to each table DQ1 judged after a shell command the share
// of the groups it keeps of the tables the command read (its own text and
// the scripts it ran name them): a derived table that is a subsample says
// so in the same turn.
func groupsKept(judged []artifact.Judgement, command, cwd, root string, d gate.Domain) {
	var written []string
	known := map[string]*gate.TableGroups{}
	for _, j := range judged {
		if j.Result.Gate != "DQ1" || j.Undecided {
			continue
		}
		// DQ1 read the whole table and found no grouping: nothing to
		// compare. A table judged on a sample is read again for its groups.
		sampled := false
		for _, c := range j.Result.Checks {
			sampled = sampled || c.Name == "sample"
		}
		if j.Result.Groups == nil && !sampled {
			continue
		}
		written = append(written, j.Abs)
		if j.Result.Groups != nil {
			known[j.Abs] = j.Result.Groups
		}
	}
	if len(written) == 0 || command == "" {
		return
	}
	if cwd == "" {
		cwd = root
	}
	checks := gate.GroupsKept(gate.TablesRead(command, cwd, root), written, known, d)
	for i := range judged {
		if c, ok := checks[judged[i].Abs]; ok && judged[i].Result.Gate == "DQ1" {
			judged[i].Result.AddCheck(c)
		}
	}
}

// checkDeviation names deviations in the session's notices.
const checkDeviation = "DC0"

// quietDeviations sorts the deviations judged after this call into those
// to say (said) and those already said in the session (quiet); without a
// database each is said.
func (g *gated) quietDeviations(ctx context.Context, env *hookrun.Env, st *store.Store, ev *hook.Event, proj project.Project) {
	var rels []string
	for _, j := range g.judged {
		if j.Deviation && j.Result.Status == gate.StatusWarn {
			rels = append(rels, j.Rel)
		}
	}
	if len(rels) == 0 {
		return
	}
	g.quiet = map[string]bool{}
	if st != nil {
		noticed, err := st.Noticed(ctx, ev.SessionID, proj.Root, checkDeviation, rels)
		if err != nil {
			env.Logf("read the session's notices: %v", err)
		}
		g.quiet = noticed
	}
	for _, rel := range rels {
		if !g.quiet[rel] {
			g.said = append(g.said, rel)
		}
	}
}

func rank(s gate.Status) int {
	switch s {
	case gate.StatusPass:
		return 1
	case gate.StatusWarn:
		return 2
	case gate.StatusFail:
		return 3
	}
	return 0
}

// record writes the gate results (one gate check per citing claim, or one
// for the project), GATE_PASSED / GATE_FAILED claim events, and what was
// seen of each artifact.
func (g gated) record(ctx context.Context, tx *store.Tx, ev *hook.Event, proj project.Project, now time.Time) error {
	for i, j := range g.judged {
		claims := j.Claims
		if len(claims) == 0 {
			claims = []string{""}
		}
		for _, c := range claims {
			if _, err := tx.AddGateCheck(ctx, record.GateCheck{Session: ev.SessionID, Project: proj.Root, ClaimID: c,
				Result: j.Result.Record(), Inputs: g.inputs[i], At: now}); err != nil {
				return err
			}
		}
		var evType string
		switch j.Result.Status {
		case gate.StatusPass:
			evType = "GATE_PASSED"
		case gate.StatusFail:
			evType = "GATE_FAILED"
		}
		if evType == "" || len(j.Claims) == 0 {
			continue
		}
		evs := make([]record.ClaimEvent, len(j.Claims))
		for k, c := range j.Claims {
			evs[k] = record.ClaimEvent{ClaimID: c, Type: evType, GateID: j.Result.Gate,
				Narrative: j.Result.Reason(), SourceRef: j.Rel + "#" + ev.ToolUseID}
		}
		if err := tx.AddClaimEvents(ctx, ev.SessionID, proj.Root, now, evs); err != nil {
			return err
		}
	}
	for _, n := range g.nets {
		if _, err := tx.AddGateCheck(ctx, record.GateCheck{Session: ev.SessionID, Project: proj.Root,
			Result: n.res.Record(), Inputs: []record.GateInput{{Path: n.rel}}, At: now}); err != nil {
			return err
		}
	}
	put := func(s artifact.State) error {
		return tx.PutArtifactState(ctx, record.ArtifactState{Project: proj.Root, Path: s.Rel, Kind: s.Kind, Size: s.Size,
			MtimeNS: s.MtimeNS, SHA256: s.SHA256, Status: s.Status, Profile: s.Profile, At: now})
	}
	for _, c := range g.scan.Changes {
		if c.Kind == "" {
			continue
		}
		s := artifact.State{Rel: c.Rel, Kind: c.Kind, Size: c.Size, MtimeNS: c.MtimeNS, Status: string(g.statusFor[c.Rel]),
			Profile: g.profiles[c.Rel]}
		if err := put(s); err != nil {
			return err
		}
	}
	for _, s := range g.scan.Baseline {
		if err := put(s); err != nil {
			return err
		}
	}
	changed := map[string]bool{}
	for _, c := range g.scan.Changes {
		changed[c.Rel] = true
	}
	for rel, st := range g.statusFor {
		if !changed[rel] {
			if err := tx.SetArtifactStatus(ctx, proj.Root, rel, string(st), now); err != nil {
				return err
			}
		}
	}
	for _, rel := range g.scan.Removed {
		if err := tx.DeleteArtifactState(ctx, proj.Root, rel); err != nil {
			return err
		}
	}
	if err := g.recordLineage(ctx, tx, ev, proj, now); err != nil {
		return err
	}
	return tx.AddNotices(ctx, ev.SessionID, proj.Root, checkDeviation, g.said, now)
}

// verdicts are what Claude is told in this turn: each FAIL blocks (the
// file is already written; the reason says what is wrong and the fix),
// each WARN, including a gate that could not decide, is context; a
// deviation already told in the session is not told again, and the
// deviations of one file (DC0's, a data gate's on a scratch table) are one
// warning. Each names the file that changed: during this call (the call
// named it, or its time is the call's), or before it (a person's copy, a
// background job).
func (g gated) verdicts(ev *hook.Event) []verdict.Verdict {
	var out []verdict.Verdict
	by := ev.ToolName
	if by == "" {
		by = "tool"
	}
	deviation := map[string]int{} // rel → index in out of its one warning
	for _, j := range g.judged {
		if j.Result.Status != gate.StatusFail && j.Result.Status != gate.StatusWarn {
			continue
		}
		if j.Deviation && g.quiet[j.Rel] {
			continue
		}
		v := j.Result.Verdict()
		changed := j.Rel
		if j.Trigger != "" {
			changed = j.Trigger
		}
		what := fmt.Sprintf("%s changed during this %s call", changed, by)
		if !g.byCall(changed) {
			what = fmt.Sprintf("%s changed before this %s call, which did not write it", changed, by)
		}
		if changed != j.Rel {
			what += ", so " + j.Rel + " was judged again"
		}
		if j.Deviation {
			v.Recommendation = "" // the reason says how to record it, and that a scratch file may stay as it is
			if i, ok := deviation[j.Rel]; ok {
				out[i].Reason += " " + v.Reason
				out[i].Evidence.Paths = append(out[i].Evidence.Paths, v.Evidence.Paths...)
				continue
			}
			deviation[j.Rel] = len(out)
		}
		v.Reason = what + ". " + v.Reason
		if len(j.Claims) > 0 {
			v.Evidence.Claims = append(v.Evidence.Claims, j.Claims...)
		}
		out = append(out, v)
	}
	return out
}

// byCall reports whether the changed file rel is this call's doing: the
// call named it as written, or it was modified after the call began.
func (g gated) byCall(rel string) bool {
	if g.written[rel] {
		return true
	}
	for _, c := range g.scan.Changes {
		if c.Rel == rel {
			return c.MtimeNS >= g.since.UnixNano()
		}
	}
	return true // not seen by the scan: the judge's own input, named by its trigger
}
