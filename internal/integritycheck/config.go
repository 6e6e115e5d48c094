package integritycheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/integrity"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// blueprintDomainsDir is where domain files live in a checkout of vibe, or
// in a project that keeps its own blueprints.
const blueprintDomainsDir = "blueprints/domains/"

// failureGates are the gates whose thresholds a domain config holds.
var failureGates = []string{"DQ1", "DQ2", "DQ3"}

// IsDomainConfig reports whether a project-relative path (proj.Rel of the
// written file) is a domain config whose thresholds are watched for drift.
func IsDomainConfig(rel string) bool {
	p := cleanRel(rel)
	if p == gate.DomainConfigPath {
		return true
	}
	return strings.HasPrefix(p, blueprintDomainsDir) && path.Dir(p)+"/" == blueprintDomainsDir &&
		strings.HasSuffix(p, ".json")
}

// ConfigWrite judges a proposed write of the domain config at rel (old is
// the file's current content, nil when it does not exist) against the
// project's recorded threshold history: one D3-threshold-drift verdict when
// the write changes a threshold, none when it changes none. A proposal that
// cannot be read is a WARN saying drift was not judged. st may be nil (no
// history, no gate failures); with a store, a config vibe has never seen is
// snapshotted as it is on disk.
func ConfigWrite[W Writes](ctx context.Context, st Store[W], proj project.Project, rel string, old, proposed []byte, now time.Time) ([]verdict.Verdict, error) {
	rel = cleanRel(rel)
	next, err := readConfig(rel, proposed)
	if err != nil {
		return []verdict.Verdict{unreadableConfig(rel, err)}, nil
	}
	prev := previousConfig(rel, old, next)
	changes, err := diffConfigs(prev, next, now)
	if err != nil {
		return []verdict.Verdict{unreadableConfig(rel, err)}, nil
	}
	var history []integrity.ThresholdChange
	var failures []integrity.Failure
	if st != nil {
		if err := baseline(ctx, st, proj, rel, old, now); err != nil {
			return nil, err
		}
		if len(changes) == 0 {
			return nil, nil
		}
		if failures, err = gateFailures(ctx, st, proj, next.name, now); err != nil {
			return nil, err
		}
		if history, err = thresholdHistory(ctx, st, proj, next.name, now); err != nil {
			return nil, err
		}
	}
	if len(changes) == 0 {
		return nil, nil
	}
	changes = integrity.MarkAfterFailure(changes, failures, integrity.DefaultFailureLookback)
	report := integrity.Drift(next.name, history, now, integrity.DefaultDriftWindow)
	v := integrity.DriftVerdictFor(report, changes)
	v.Evidence.Paths = []string{rel}
	return []verdict.Verdict{v}, nil
}

// RecordConfigChange records the threshold changes between the last
// snapshot of the domain config at rel and its current content, marks those
// made shortly after a gate failure, and moves the snapshot, all in one
// transaction. It returns the changes recorded. A current content that is
// not a readable config records nothing and keeps the snapshot, so the next
// readable version is compared with the last readable one. ref names the
// tool call (stored with each change).
func RecordConfigChange[W Writes](ctx context.Context, st Store[W], proj project.Project, rel string, current []byte, at time.Time, ref string) ([]integrity.ThresholdChange, error) {
	if st == nil {
		return nil, fault.Errorf(fault.Unavailable, "record config change", "no database")
	}
	rel = cleanRel(rel)
	next, err := readConfig(rel, current)
	if err != nil {
		return nil, nil
	}
	// Reads outside the transaction: the store has one connection, which
	// the transaction holds.
	failures, err := gateFailures(ctx, st, proj, next.name, at)
	if err != nil {
		return nil, err
	}
	var recorded []integrity.ThresholdChange
	err = st.Tx(ctx, func(tx W) error {
		snap, _, err := tx.ConfigSnapshot(ctx, proj.Root, rel)
		if err != nil {
			return err
		}
		changes, err := diffConfigs(previousConfig(rel, snap, next), next, at)
		if err != nil {
			return err
		}
		changes = integrity.MarkAfterFailure(changes, failures, integrity.DefaultFailureLookback)
		rows := make([]record.ThresholdChange, len(changes))
		for i, c := range changes {
			rows[i] = record.ThresholdChange{ProjectPath: proj.Root, Domain: c.Domain, Key: c.Key, Old: c.Old, New: c.New,
				Bps: c.Bps, Loosens: c.Loosens, AfterFailure: c.AfterFailure, Direction: string(c.Direction), At: c.At, SourceRef: ref}
		}
		if err := tx.AddThresholdChanges(ctx, rows); err != nil {
			return err
		}
		recorded = changes
		return tx.SaveConfigSnapshot(ctx, proj.Root, rel, current, at)
	})
	if err != nil {
		return nil, fmt.Errorf("record config change %s: %w", rel, err)
	}
	return recorded, nil
}

// BaselineConfigs snapshots the project's domain configs that vibe has never
// seen (SessionStart), so thresholds set before vibe was installed are the
// starting point rather than a change.
func BaselineConfigs[W Writes](ctx context.Context, st Store[W], proj project.Project, at time.Time) error {
	rels := []string{gate.DomainConfigPath}
	if matches, err := filepath.Glob(filepath.Join(proj.Root, filepath.FromSlash(blueprintDomainsDir), "*.json")); err == nil {
		for _, m := range matches {
			rels = append(rels, proj.Rel(m))
		}
	}
	for _, rel := range rels {
		content, err := os.ReadFile(filepath.Join(proj.Root, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("baseline domain config %s: %w", rel, err)
		}
		if err := baseline(ctx, st, proj, rel, content, at); err != nil {
			return err
		}
	}
	return nil
}

// baseline saves content as the snapshot of rel when vibe has none yet.
func baseline[W Writes](ctx context.Context, st Store[W], proj project.Project, rel string, content []byte, at time.Time) error {
	if len(bytes.TrimSpace(content)) == 0 {
		return nil
	}
	err := st.Tx(ctx, func(tx W) error {
		_, ok, err := tx.ConfigSnapshot(ctx, proj.Root, rel)
		if err != nil || ok {
			return err
		}
		return tx.SaveConfigSnapshot(ctx, proj.Root, rel, content, at)
	})
	if err != nil {
		return fmt.Errorf("baseline domain config %s: %w", rel, err)
	}
	return nil
}

// gateFailures lists the project's DQ1-DQ3 failures within the failure
// lookback before now, as failures of domain on the gate's whole block
// ("dq2" covers dq2.min_auc). gate_checks does not record the domain; a
// project has one domain at a time, so its failures are that domain's.
func gateFailures(ctx context.Context, st Reads, proj project.Project, domain string, now time.Time) ([]integrity.Failure, error) {
	rows, err := st.GateFailures(ctx, proj.Root, failureGates, now.Add(-integrity.DefaultFailureLookback), now)
	if err != nil {
		return nil, fmt.Errorf("read gate failures: %w", err)
	}
	out := make([]integrity.Failure, len(rows))
	for i, r := range rows {
		out[i] = integrity.Failure{Domain: domain, Key: strings.ToLower(r.GateID), At: r.At}
	}
	return out, nil
}

// thresholdHistory reads domain's recorded changes inside the drift window.
func thresholdHistory(ctx context.Context, st Reads, proj project.Project, domain string, now time.Time) ([]integrity.ThresholdChange, error) {
	rows, err := st.ThresholdChanges(ctx, proj.Root, domain, now.Add(-integrity.DefaultDriftWindow), now)
	if err != nil {
		return nil, fmt.Errorf("read threshold history: %w", err)
	}
	out := make([]integrity.ThresholdChange, len(rows))
	for i, r := range rows {
		out[i] = integrity.ThresholdChange{Domain: r.Domain, Key: r.Key, Old: r.Old, New: r.New, At: r.At,
			Direction: integrity.Direction(r.Direction), Loosens: r.Loosens, AfterFailure: r.AfterFailure, Bps: r.Bps}
	}
	return out, nil
}

// unreadableConfig reports a proposed config whose thresholds cannot be
// compared, so drift was not judged.
func unreadableConfig(rel string, err error) verdict.Verdict {
	v := verdict.New(integrity.CheckDrift, verdict.Warn, verdict.Med,
		fmt.Sprintf("Threshold drift of %s was not judged because the proposed config cannot be read (%v); fix the config so vibe can compare its thresholds.", rel, err),
		map[string]string{"path": rel, "error": err.Error()})
	v.Evidence.Paths = []string{rel}
	v.Recommendation = "Write the domain config as a JSON object naming its \"domain\", as in blueprints/domains/."
	return v
}

// config is one version of a domain config, merged onto its base.
type config struct {
	name string      // the domain the thresholds belong to
	base string      // the shipped domain it starts from
	dom  gate.Domain // effective values
}

// configHead is what decides a config's domain and base.
type configHead struct {
	Domain  string `json:"domain"`
	Extends string `json:"extends"`
}

// readConfig merges raw onto its base domain. A blueprints domain file with
// no "domain" key is named by its file name.
func readConfig(rel string, raw []byte) (config, error) {
	var head configHead
	if err := json.Unmarshal(raw, &head); err != nil {
		return config{}, fmt.Errorf("not a JSON object: %w", err)
	}
	name := head.Domain
	if name == "" && strings.HasPrefix(rel, blueprintDomainsDir) {
		name = strings.TrimSuffix(path.Base(rel), ".json")
	}
	if name == "" {
		return config{}, fmt.Errorf("no \"domain\" key: name one of %s", strings.Join(gate.ShippedDomains(), ", "))
	}
	c := config{name: name, base: head.Extends}
	if c.base == "" {
		c.base = name
	}
	c.dom = shipped(c.base)
	if err := json.Unmarshal(raw, &c.dom); err != nil {
		return config{}, err
	}
	return c, nil
}

// shipped is a shipped domain's config, or the zero config for a domain vibe
// does not ship (a custom domain defines every threshold itself).
func shipped(name string) gate.Domain {
	d, err := gate.ShippedDomain(name)
	if err != nil {
		return gate.Domain{}
	}
	return d
}

// previousConfig is the version a write of next is compared with: old
// merged onto its base when old is a readable config of the same domain,
// otherwise the shipped thresholds next starts from.
func previousConfig(rel string, old []byte, next config) config {
	if len(bytes.TrimSpace(old)) > 0 {
		if prev, err := readConfig(rel, old); err == nil && prev.name == next.name {
			return prev
		}
	}
	return config{name: next.name, base: next.base, dom: shipped(next.base)}
}

// diffConfigs lists the threshold changes from prev to next, dated at.
func diffConfigs(prev, next config, at time.Time) ([]integrity.ThresholdChange, error) {
	dirs := integrity.DefaultDirections()
	oldView := thresholdView(prev.dom, dirs)
	newView := thresholdView(next.dom, dirs)
	return integrity.DiffThresholds(next.name, oldView, newView, at, dirs)
}

// thresholdView renders a domain's thresholds as the JSON object
// DiffThresholds flattens, and adds each column check's direction to dirs.
func thresholdView(d gate.Domain, dirs map[string]integrity.Direction) []byte {
	dq1 := map[string]any{
		"allowed_missing_fraction": d.DQ1.AllowedMissingFraction,
		"leakage_corr_threshold":   d.DQ1.LeakageCorrThreshold,
		"min_samples":              d.DQ1.MinSamples,
		"max_share_change":         d.DQ1.MaxShareChange,
		"pairs":                    map[string]any{"min_agreement": d.DQ1.Pairs.MinAgreement, "min_kappa": d.DQ1.Pairs.MinKappa},
		"point_mass":               map[string]any{"min_share": d.DQ1.PointMass.MinShare},
	}
	for _, c := range d.DQ1.Checks {
		if c.Name == "" || strings.ContainsAny(c.Name, ".[]") {
			continue
		}
		key := "dq1." + c.Name
		switch c.Kind {
		case gate.CheckMeanWithin, gate.CheckValuesWithin:
			if len(c.Range) > 0 {
				dq1[c.Name] = c.Range
				dirs[key+"[0]"] = integrity.LowerLooser
				dirs[key+"[1]"] = integrity.HigherLooser
			}
		case gate.CheckValuesAtLeast, gate.CheckFractionNonzero:
			if c.Min != nil {
				dq1[c.Name] = *c.Min
				dirs[key] = integrity.LowerLooser
			}
		}
	}
	view := map[string]any{
		"dq1": dq1,
		"dq2": map[string]any{"min_auc": d.DQ2.MinAUC, "min_r2": d.DQ2.MinR2, "max_dominance": d.DQ2.MaxDominance,
			"max_fold_cv": d.DQ2.MaxFoldCV, "min_groups_per_fold": d.DQ2.MinGroupsPerFold,
			"min_group_share_kept": d.DQ2.MinGroupShareKept},
		"dq4": map[string]any{"surprising_effect": d.DQ4.SurprisingEffect},
		"dq3": map[string]any{"max_coverage_gap": d.DQ3.MaxCoverageGap, "max_coverage": d.DQ3.MaxCoverage,
			"min_n": d.DQ3.MinN},
	}
	raw, _ := json.Marshal(view) // numbers, strings and maps only: cannot fail
	return raw
}

// cleanRel normalises a project-relative path to forward slashes; a
// backslash is a separator whatever the OS, since Windows clients send them.
func cleanRel(rel string) string {
	return strings.TrimPrefix(path.Clean(strings.ReplaceAll(rel, `\`, "/")), "./")
}
