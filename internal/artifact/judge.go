package artifact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/gatecheck"
	"github.com/vibe-science/vibe/internal/research"
)

// MaxGateBytes bounds what a gate reads inside a hook: a larger table is
// judged on its first MaxGateBytes, a larger JSON file is not judged (the
// result says so and names the command that judges it whole).
const MaxGateBytes = 16 << 20

// Judgement is one gate run on one artifact because of this call's changes.
type Judgement struct {
	// Abs and Rel name the artifact the gate judged.
	Abs, Rel string
	Result   gate.Result
	// Claims are the claims whose evidence names the artifact.
	Claims []string
	// Undecided says the gate could not judge the file (unreadable, binary,
	// not JSON, too large); its WARN never blocks.
	Undecided bool
	// Profile is DQ1's column profile of a features table (JSON), kept so
	// the next version of the table is compared with this one.
	Profile []byte
	// Trigger is the changed file that called for this judgement, when it
	// is not Abs itself (a findings file judged because its source JSON
	// changed, a design judged because a data file appeared): the message
	// names the file that changed.
	Trigger string
	// Deviation marks a departure from the design that no claim or finding
	// rests on yet (DC0's unplanned file, a design that does not parse): a
	// WARN said once per file and session (deviation.go).
	Deviation bool
}

// KindData names a new file in a research question's data folder: DC0
// judges the design against it.
const KindData = "data"

// kindGates says which gates a change to each kind of artifact runs:
// research.Gates, the table `vibe gate check` reads too, plus DC0 for a
// new data file.
func kindGates(kind string) []string {
	if kind == KindData {
		return []string{"DC0"}
	}
	return research.Gates(kind)
}

// Gates lists, sorted, every gate PostToolUse runs on changed artifacts.
func Gates() []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range append(research.GatedKinds(), KindData) {
		for _, id := range kindGates(k) {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Judge runs the gates the scan's changes call for, each gate at most once
// per file, in a stable order. origins say how DQ4's sources were written
// (gate.DQ4FileFrom); nil knows nothing of any.
func Judge(s Scan, d gate.Domain, origins gate.Origins) []Judgement {
	j := judge{root: s.Root, d: d, done: map[string]bool{}, known: s.known, origins: origins}
	designs := map[string][]string{} // research question → new data files
	resting := map[string]bool{}     // research question whose findings changed
	triggers := map[string]string{}  // research question → the change that calls for DC0
	for _, c := range s.Changes {
		j.trigger = c.Abs
		kinds := []string{c.Kind}
		// DC0 judges data files; Markdown in the data folder (the data
		// dictionary) is documentation, as gate.DataFiles has it.
		if c.InData && c.RQ != "" && !strings.EqualFold(filepath.Ext(c.Abs), ".md") {
			kinds = append(kinds, KindData)
		}
		for _, k := range kinds {
			for _, id := range kindGates(k) {
				switch id {
				case "DQ1":
					j.features(c.Abs, c.Prev, c.artifact().Domain(d))
				case "DQ2":
					j.json(id, c.Abs, gate.DQ2)
				case "DQ3":
					j.json(id, c.Abs, gate.DQ3)
				case "DQ4":
					j.findingsFor(c, s.known)
					if c.RQ != "" && c.Kind == gate.FileFindings {
						// A finding may now rest on a file the design
						// does not plan (DC0).
						resting[c.RQ] = true
						if _, ok := designs[c.RQ]; !ok {
							designs[c.RQ] = nil
						}
						if _, ok := triggers[c.RQ]; !ok {
							triggers[c.RQ] = c.Abs
						}
					}
				case "DD0":
					j.dd0For(c, s.known)
				case "DC0":
					if c.RQ == "" {
						continue
					}
					if k == KindData {
						designs[c.RQ] = append(designs[c.RQ], c.Abs)
					} else if _, ok := designs[c.RQ]; !ok {
						designs[c.RQ] = nil
					}
					if _, ok := triggers[c.RQ]; !ok || k != KindData {
						triggers[c.RQ] = c.Abs // the design itself, when it changed
					}
				}
			}
		}
	}
	rqs := make([]string, 0, len(designs))
	for rq := range designs {
		rqs = append(rqs, rq)
	}
	sort.Strings(rqs)
	for _, rq := range rqs {
		j.trigger = triggers[rq]
		j.dc0(rq, designs[rq], resting[rq])
	}
	if len(j.out) > 0 {
		paths := make([]string, len(j.out))
		for i, x := range j.out {
			paths[i] = x.Abs
		}
		citing := gatecheck.ClaimsCiting(s.Root, paths)
		for i := range j.out {
			j.out[i].Claims = citing[j.out[i].Abs]
		}
		rqOf := map[string]string{}
		for _, k := range s.known {
			rqOf[k.abs] = k.rq
		}
		for _, c := range s.Changes {
			rqOf[c.Abs] = c.RQ
		}
		j.scratch(rqOf)
	}
	return j.out
}

// findingsFor runs DQ4 on a changed findings file, or on the findings files
// beside a changed source JSON.
func (j *judge) findingsFor(c Change, known []known) {
	if c.Kind == gate.FileFindings {
		j.findings(c.Abs)
		return
	}
	// A findings file that reports nothing yet is not out of date: the
	// analysis wrote its results and the prose is still to come.
	for _, k := range known {
		if k.kind == gate.FileFindings && filepath.Dir(k.abs) == filepath.Dir(c.Abs) && gate.FindingsReported(k.abs) {
			j.findings(k.abs)
		}
	}
}

// dd0For runs DD0 on a changed features table, or on every features table
// of the research question whose data dictionary changed.
func (j *judge) dd0For(c Change, known []known) {
	if c.Kind == gate.FileFeatures {
		j.dd0(c.Abs)
		return
	}
	for _, k := range known {
		if k.kind == gate.FileFeatures && (c.RQ == "" || k.rq == c.RQ) {
			j.dd0(k.abs)
		}
	}
}

type judge struct {
	root  string
	d     gate.Domain
	done  map[string]bool
	out   []Judgement
	known []known
	// trigger is the changed file the judgements being added are for.
	trigger string
	texts   map[string][]byte // findings files read for DC0
	origins gate.Origins
}

func (j *judge) once(id, abs string) bool {
	k := id + "\x00" + abs
	if j.done[k] {
		return false
	}
	j.done[k] = true
	return true
}

func (j *judge) add(abs string, res gate.Result, undecided bool) {
	rel := relTo(j.root, abs)
	jd := Judgement{Abs: abs, Rel: rel, Result: res, Undecided: undecided}
	if j.trigger != "" && j.trigger != abs {
		jd.Trigger = relTo(j.root, j.trigger)
	}
	j.out = append(j.out, jd)
}

// undecided is the WARN of a gate that could not judge a file.
func (j *judge) undecided(id, abs, detail, fix string) {
	res := gate.Result{Gate: id, Status: gate.StatusWarn, Inputs: []string{abs},
		Checks: []gate.Check{{Name: "input", Status: gate.StatusWarn, Detail: detail, Fix: fix}}}
	j.add(abs, res, true)
}

// features runs DQ1 on a changed feature table with the domain as its
// recognition has it (the label it found).
func (j *judge) features(abs string, prev *State, d gate.Domain) {
	if !j.once("DQ1", abs) {
		return
	}
	name := filepath.Base(abs)
	if bin, err := binary(abs); err != nil {
		j.undecided("DQ1", abs, fmt.Sprintf("DQ1 could not read %s: %v", name, err), "check the file's permissions, then run `vibe gate run DQ1 --features "+relTo(j.root, abs)+"`")
		return
	} else if bin {
		j.undecided("DQ1", abs, fmt.Sprintf("%s is not a text table (it holds binary data), so DQ1 cannot judge it", name),
			"write the features as CSV or TSV text, or rename the file so it does not match the domain's features patterns")
		return
	}
	var before *gate.TableProfile
	if prev != nil && len(prev.Profile) > 0 {
		var p gate.TableProfile
		if json.Unmarshal(prev.Profile, &p) == nil {
			before = &p
		}
	}
	res, err := gate.DQ1Head(abs, MaxGateBytes, before, d)
	if err != nil {
		j.undecided("DQ1", abs, fmt.Sprintf("DQ1 could not read %s: %v", name, err), "check the file, then run `vibe gate run DQ1 --features "+relTo(j.root, abs)+"`")
		return
	}
	j.add(abs, res, false)
	if res.Profile != nil {
		j.out[len(j.out)-1].Profile, _ = json.Marshal(res.Profile)
	}
}

func (j *judge) dd0(table string) {
	if !j.once("DD0", table) {
		return
	}
	dict, err := gate.FindDictionary(table, j.root, j.d)
	if err != nil {
		res := gate.Result{Gate: "DD0", Status: gate.StatusFail, Inputs: []string{table},
			Checks: []gate.Check{{Name: "dictionary", Status: gate.StatusFail,
				Detail: fmt.Sprintf("no data dictionary documents %s (looked for %s in its folder and each folder above it)", filepath.Base(table), strings.Join(j.d.Files.Dictionary, ", ")),
				Fix:    "write DATA-DICTIONARY.md beside the table or in a folder above it, with a section for it (skill/vibe/formats/data-dictionary.md)"}}}
		j.add(table, res, false)
		return
	}
	res, err := gate.DD0Table(dict, table)
	if err != nil {
		j.undecided("DD0", table, fmt.Sprintf("DD0 could not read %s or %s: %v", filepath.Base(table), filepath.Base(dict), err), "check both files can be read")
		return
	}
	j.add(table, res, false)
}

// json runs a gate whose input is one JSON object, after making sure the
// file is JSON a hook can read.
func (j *judge) json(id, abs string, run func(string, gate.Domain) (gate.Result, error)) {
	if !j.once(id, abs) {
		return
	}
	name := filepath.Base(abs)
	flag := map[string]string{"DQ2": "--metrics", "DQ3": "--calibration"}[id]
	cmd := fmt.Sprintf("`vibe gate run %s %s %s`", id, flag, relTo(j.root, abs))
	info, err := os.Stat(abs)
	if err != nil {
		j.undecided(id, abs, fmt.Sprintf("%s could not read %s: %v", id, name, err), "check the file, then run "+cmd)
		return
	}
	if info.Size() > MaxGateBytes {
		j.undecided(id, abs, fmt.Sprintf("%s is %d MB, too large to judge inside a hook", name, info.Size()>>20), "run "+cmd+" to judge it")
		return
	}
	raw, err := os.ReadFile(abs)
	if err != nil {
		j.undecided(id, abs, fmt.Sprintf("%s could not read %s: %v", id, name, err), "check the file, then run "+cmd)
		return
	}
	if !json.Valid(raw) {
		j.undecided(id, abs, fmt.Sprintf("%s is not valid JSON, so %s cannot judge it (a script may still be writing it)", name, id),
			"write it as one JSON object; vibe judges it again when it changes, or run "+cmd)
		return
	}
	res, err := run(abs, j.d)
	if err != nil {
		j.undecided(id, abs, fmt.Sprintf("%s could not judge %s: %v", id, name, err), "run "+cmd)
		return
	}
	j.add(abs, res, false)
}

func (j *judge) findings(abs string) {
	if !j.once("DQ4", abs) {
		return
	}
	res, err := gate.DQ4FileFrom(abs, nil, j.d, j.origins)
	if err != nil {
		j.undecided("DQ4", abs, fmt.Sprintf("DQ4 could not check %s: %v", relTo(j.root, abs), err),
			"write the source JSON the findings report from (skill/vibe/formats/findings.md), then run `vibe gate run DQ4 --findings "+relTo(j.root, abs)+"`")
		return
	}
	j.add(abs, res, false)
}

// findFold finds the first of names in dir, ignoring case.
func findFold(dir string, names ...string) (string, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	for _, want := range names {
		for _, e := range entries {
			if !e.IsDir() && strings.EqualFold(e.Name(), want) {
				return filepath.Join(dir, e.Name()), true
			}
		}
	}
	return "", false
}

// binary reports whether a file's first 8 KB hold a NUL byte.
func binary(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 8<<10)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false, err
	}
	return bytes.IndexByte(buf[:n], 0) >= 0, nil
}

func relTo(root, abs string) string {
	if rel, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(abs)
}
