package export

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/citation"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/citations"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/resume"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// ExportOptions are the flags of `vibe export`.
type ExportOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	FindProject func(dir string) (project.Project, error)
	Now         func() time.Time

	Project string
	// Output is the file to write ("" = .vibe-science/RECORD.md, "-" =
	// stdout).
	Output string
	// SpineLimit caps the spine entries (the newest are kept).
	SpineLimit int
}

// NewCmdExport builds `vibe export`.
func NewCmdExport(f *cli.Factory, runF func(*ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{IO: f.IO, Store: f.Store, FindProject: f.FindProject, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the project's research record as Markdown (.vibe-science/RECORD.md, linked from STATE.md)",
		Long: `export writes what vibe recorded about the project as one readable Markdown file: the sessions
with their narratives, the research spine, each claim with its events, the papers the research
cites (retrieved, unretrieved or invalid, as vibe citations lists them), the gate results, what
vibe's hooks denied, blocked, asked and warned, the Reviewer 2 reviews, the serendipity seeds,
the observer's alerts and the memories recall searches (kind, trust, source, state), oldest
first. It goes to .vibe-science/RECORD.md (replaced each time), and vibe's section of STATE.md
links it; --output names another file, or - for stdout.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runExport(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	fl.StringVarP(&opts.Output, "output", "o", "", "file to write (default .vibe-science/RECORD.md; - for stdout)")
	fl.IntVar(&opts.SpineLimit, "spine-limit", 2000, "at most this many spine entries, the newest")
	return cmd
}

// exportLimit bounds every other section: a record is for reading.
const exportLimit = 10000

func runExport(ctx context.Context, o *ExportOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	proj, err := o.FindProject(o.Project)
	if err != nil {
		return err
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	rec, err := gatherRecord(ctx, st, proj.Root, o.SpineLimit, o.Now())
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	// The one place the record is shown: a text stored before a secret
	// rule existed is scrubbed here, on its way out (the decisions and
	// memories sections included).
	md := privacy.Scrub(rec.markdown(proj, o.Now(), st.Path()))
	if o.Output == "-" {
		_, err := fmt.Fprint(o.IO.Out, md)
		return err
	}
	path := o.Output
	if path == "" {
		path = proj.Path(resume.RecordFile)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(md), 0o644); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("export: %w", err)
	}
	if o.Output == "" {
		// vibe's STATE.md section now links the record.
		if _, err := resume.Checkpoint(ctx, st, proj, "", o.Now()); err != nil {
			fmt.Fprintf(o.IO.ErrOut, "vibe: the record is written, but STATE.md was not updated: %v\n", err)
		}
	}
	fmt.Fprintf(o.IO.Out, "wrote %s (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)\n", path,
		count(len(rec.sessions), "session"), count(len(rec.spine), "spine entry"), count(len(rec.claimOrder), "claim"),
		count(len(rec.citations), "citation"),
		count(len(rec.gates), "gate result"), count(len(rec.decisions), "decision"), count(len(rec.reviews), "review"),
		count(len(rec.seeds), "seed"), count(len(rec.alerts), "alert"), count(len(rec.memories), "memory"))
	return nil
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// researchRecord is what the database holds about one project, oldest first.
type researchRecord struct {
	sessions   []record.Session
	spine      []record.SpineEntry
	claims     map[string][]record.ClaimEventRecord
	claimOrder []string
	gates      []record.GateRecord
	reviews    []record.R2Review
	seeds      []record.SeedRecord
	alerts     []record.Alert
	decisions  []record.Decision
	// citations are the paper ids the research files cite, audited.
	citations []citation.Entry
	// memories are those recall searches, but actions and narratives (the
	// spine and the sessions above say them).
	memories []record.MemoryRecord
}

// notExported are the memory kinds the record's other sections already
// hold: one action per tool call (the spine), one narrative per session.
var notExported = []string{record.KindAction, record.KindNarrative}

func gatherRecord(ctx context.Context, st *store.Store, root string, spineLimit int, now time.Time) (researchRecord, error) {
	var r researchRecord
	var err error
	if _, r.citations, err = citations.Audit(ctx, st, root, now); err != nil {
		return r, err
	}
	if r.sessions, err = st.Sessions(ctx, root, exportLimit); err != nil {
		return r, err
	}
	slices.Reverse(r.sessions)
	if spineLimit <= 0 {
		spineLimit = exportLimit
	}
	if r.spine, err = st.Spine(ctx, record.SpineFilter{Project: root, Limit: spineLimit}); err != nil {
		return r, err
	}
	slices.Reverse(r.spine)
	evs, err := st.ClaimEventHistory(ctx, root, exportLimit)
	if err != nil {
		return r, err
	}
	r.claims = map[string][]record.ClaimEventRecord{}
	for _, e := range evs {
		if _, ok := r.claims[e.ClaimID]; !ok {
			r.claimOrder = append(r.claimOrder, e.ClaimID)
		}
		r.claims[e.ClaimID] = append(r.claims[e.ClaimID], e)
	}
	if r.gates, err = st.GateHistory(ctx, root, "", "", exportLimit); err != nil {
		return r, err
	}
	slices.Reverse(r.gates)
	if r.reviews, err = st.RecentReviews(ctx, root, exportLimit); err != nil {
		return r, err
	}
	slices.Reverse(r.reviews)
	if r.seeds, err = st.ListSeeds(ctx, root, "", exportLimit); err != nil {
		return r, err
	}
	if r.alerts, err = st.Alerts(ctx, record.AlertFilter{Project: root, IncludeResolved: true, Limit: exportLimit}); err != nil {
		return r, err
	}
	slices.SortStableFunc(r.alerts, func(a, b record.Alert) int { return a.CreatedAt.Compare(b.CreatedAt) })
	if r.decisions, err = st.Decisions(ctx, record.DecisionFilter{Project: root, Limit: exportLimit}); err != nil {
		return r, err
	}
	slices.Reverse(r.decisions)
	err = st.ExportMemories(ctx, root, func(m record.MemoryRecord) error {
		if !slices.Contains(notExported, m.Kind) && len(r.memories) < exportLimit {
			r.memories = append(r.memories, m)
		}
		return nil
	})
	return r, err
}

func (r researchRecord) markdown(proj project.Project, now time.Time, db string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Research record: %s\n\n", proj.Name())
	fmt.Fprintf(&b, "_Written by `vibe export` (vibe %s) on %s from %s, for the project at %s. "+
		"It is replaced on each export; write notes elsewhere._\n", buildinfo.Version, now.UTC().Format("2006-01-02 15:04 UTC"), db, proj.Root)

	b.WriteString("\n## Sessions\n\n")
	if len(r.sessions) == 0 {
		b.WriteString("None recorded.\n")
	}
	for _, s := range r.sessions {
		fmt.Fprintf(&b, "### Session %s (started %s UTC)\n\n", cli.ShortID(s.ID), cli.TS(s.StartedAt))
		ended := "still open, last seen " + cli.TS(s.LastSeenAt) + " UTC"
		if s.EndedAt != nil {
			ended = "ended " + cli.TS(*s.EndedAt) + " UTC"
			if s.EndReason != "" {
				ended += " (" + s.EndReason + ")"
			}
		}
		fmt.Fprintf(&b, "- %s; id %s\n- %d actions; claims %d created, %d killed; gates %d passed, %d failed\n\n",
			ended, s.ID, s.TotalActions, s.ClaimsCreated, s.ClaimsKilled, s.GatesPassed, s.GatesFailed)
		if n := strings.TrimSpace(s.NarrativeSummary); n != "" {
			b.WriteString(n + "\n\n")
		} else {
			b.WriteString("_No narrative recorded._\n\n")
		}
	}

	b.WriteString("\n## Research spine\n\n")
	if len(r.spine) == 0 {
		b.WriteString("None recorded.\n")
	} else {
		mdTable(&b, []string{"time (UTC)", "session", "action", "tool", "input"}, len(r.spine), func(i int) []string {
			e := r.spine[i]
			return []string{cli.TS(e.At), cli.ShortID(e.SessionID), e.ActionType, e.ToolName, e.InputSummary}
		})
	}

	b.WriteString("\n## Claims\n\n")
	if len(r.claimOrder) == 0 {
		b.WriteString("No claim events recorded.\n")
	}
	for _, id := range r.claimOrder {
		evs := r.claims[id]
		fmt.Fprintf(&b, "### %s\n\n", id)
		mdTable(&b, []string{"time (UTC)", "event", "status", "confidence", "detail"}, len(evs), func(i int) []string {
			e := evs[i]
			status := ""
			if e.OldStatus != "" || e.NewStatus != "" {
				status = strings.TrimSpace(e.OldStatus + " → " + e.NewStatus)
			}
			conf := ""
			if e.Confidence != nil {
				conf = fmt.Sprintf("%.2f", *e.Confidence)
			}
			var detail []string
			for _, d := range []struct{ label, v string }{{"", e.Narrative}, {"killed: ", e.KillReason},
				{"R2: ", e.R2Verdict}, {"gate ", e.GateID}} {
				if d.v != "" {
					detail = append(detail, d.label+d.v)
				}
			}
			return []string{cli.TS(e.At), e.Type, status, conf, strings.Join(detail, "; ")}
		})
		b.WriteString("\n")
	}

	b.WriteString("\n## Citations\n\n")
	if len(r.citations) == 0 {
		b.WriteString("No findings, claim ledger, review or direction cites a paper id.\n")
	} else {
		b.WriteString("Every DOI, PMID, PMCID, arXiv id and ISBN the research files cite: retrieved (a recorded search or fetch " +
			"returned it, or the researcher added it), unretrieved (nothing recorded retrieved it) or invalid (it cannot exist). " +
			"`vibe citations` lists them too.\n\n")
		mdTable(&b, []string{"status", "id", "cited in", "retrieved by"}, len(r.citations), func(i int) []string {
			e := r.citations[i]
			return []string{e.Status, citation.Display(e.ID), citation.Places(e.Cited), e.Source()}
		})
	}

	b.WriteString("\n## Gate results\n\n")
	if len(r.gates) == 0 {
		b.WriteString("None recorded.\n")
	} else {
		mdTable(&b, []string{"time (UTC)", "gate", "claim", "status", "findings"}, len(r.gates), func(i int) []string {
			g := r.gates[i]
			var found []string
			for _, c := range g.Checks {
				if c.Status == g.Status {
					found = append(found, c.Detail)
				}
			}
			return []string{cli.TS(g.At), g.GateID, cli.OrDash(g.ClaimID), string(g.Status), strings.Join(found, "; ")}
		})
	}

	b.WriteString("\n## Decisions\n\n")
	if len(r.decisions) == 0 {
		b.WriteString("vibe denied, blocked, asked and warned nothing.\n")
	} else {
		b.WriteString("What vibe's hooks denied, blocked, asked and warned (`vibe decisions` lists them too).\n\n")
		mdTable(&b, []string{"time (UTC)", "session", "hook", "decision", "check", "tool", "file", "message", "fix"}, len(r.decisions), func(i int) []string {
			d := r.decisions[i]
			return []string{cli.TS(d.At), cli.ShortID(d.SessionID), d.Event, d.Kind, d.Check, d.Tool, d.File, d.Reason, verdict.AddedFix(d.Reason, d.Recommendation)}
		})
	}

	b.WriteString("\n## Reviews\n\n")
	if len(r.reviews) == 0 {
		b.WriteString("None recorded.\n")
	} else {
		mdTable(&b, []string{"time (UTC)", "review", "mode", "claims", "judge (J0)", "file"}, len(r.reviews), func(i int) []string {
			v := r.reviews[i]
			j0 := ""
			if v.J0Score != nil {
				j0 = fmt.Sprint(*v.J0Score)
			}
			return []string{cli.TS(v.At), v.ReviewID, v.Mode, strings.Join(v.Claims, ", "), j0, v.SourcePath}
		})
	}

	b.WriteString("\n## Serendipity seeds\n\n")
	if len(r.seeds) == 0 {
		b.WriteString("None recorded.\n")
	} else {
		mdTable(&b, []string{"seed", "status", "score", "question"}, len(r.seeds), func(i int) []string {
			s := r.seeds[i]
			score := ""
			if s.Score != nil {
				score = fmt.Sprintf("%.2f", *s.Score)
			}
			q := s.Title
			if s.CausalQuestion != "" {
				q = strings.TrimSuffix(q+": "+s.CausalQuestion, ": ")
				if s.Title == "" {
					q = s.CausalQuestion
				}
			}
			return []string{s.SeedID, s.Status, score, q}
		})
	}

	b.WriteString("\n## Observer alerts\n\n")
	if len(r.alerts) == 0 {
		b.WriteString("None recorded.\n")
	} else {
		mdTable(&b, []string{"time (UTC)", "level", "check", "message", "state"}, len(r.alerts), func(i int) []string {
			a := r.alerts[i]
			state := "open"
			if a.Resolved {
				state = "resolved"
				if a.ResolvedAt != nil {
					state += " " + cli.TS(*a.ResolvedAt)
				}
				if a.Resolution != "" {
					state += ": " + a.Resolution
				}
			}
			return []string{cli.TS(a.CreatedAt), a.Level, a.Check, a.Message, state}
		})
	}

	b.WriteString("\n## Memories\n\n")
	if len(r.memories) == 0 {
		b.WriteString("None recorded.\n")
	} else {
		b.WriteString("What recall searches, oldest first, but the actions and narratives the spine and the sessions above hold. " +
			"Trust runs from 0 to 1 and starts at its source's (" + record.TrustScale() + "); " +
			"trust settles a contradiction, then recency: a superseded memory is contradicted by a newer one at least as trusted, " +
			"a disputing one contradicts an older, better-sourced one (which stays current), a disputed one contradicts another and stands.\n\n")
		mdTable(&b, []string{"memory", "time (UTC)", "kind", "trust", "source", "state", "text"}, len(r.memories), func(i int) []string {
			m := r.memories[i]
			source := m.Source
			if m.Ref != "" {
				source += ": " + m.Ref
			}
			return []string{fmt.Sprintf("M-%d", m.ID), cli.TS(m.CreatedAt), m.Kind, fmt.Sprintf("%.2f", m.Trust), source,
				memoryState(m), m.Text}
		})
	}
	return b.String()
}

// memoryState is m's state with the memories it names.
func memoryState(m record.MemoryRecord) string {
	switch m.State() {
	case record.MemorySuperseded:
		return fmt.Sprintf("superseded by M-%d", *m.SupersededBy)
	case record.MemoryDisputing:
		return fmt.Sprintf("disputes M-%d (better sourced, current)", *m.Disputes)
	case record.MemoryDisputed:
		if len(m.DisputedBy) > 0 {
			return "disputed by " + memoryIDs(m.DisputedBy) + " (newer, less trusted)"
		}
		return "disputed by " + memoryIDs(m.Conflicts)
	}
	return m.State()
}

// memoryIDs is "M-1, M-4".
func memoryIDs(ids []int64) string {
	out := make([]string, len(ids))
	for i, c := range ids {
		out[i] = fmt.Sprintf("M-%d", c)
	}
	return strings.Join(out, ", ")
}

// mdTable writes a Markdown table; cells are made one line and their pipes
// escaped, so any recorded text keeps the table intact.
func mdTable(b *strings.Builder, head []string, n int, row func(int) []string) {
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|")
	for range head {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for i := 0; i < n; i++ {
		cells := row(i)
		for j, c := range cells {
			c = strings.Join(strings.Fields(strings.ReplaceAll(c, "|", "\\|")), " ")
			cells[j] = c
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
}
