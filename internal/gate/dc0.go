package gate

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/lazyre"
)

// Design is a parsed design file (skill/vibe/formats/design-file.md; its
// JSON form is schemas/design-file.schema.json).
type Design struct {
	RQ         string      `json:"rq_id,omitempty"`
	Title      string      `json:"title"`
	Steps      []Step      `json:"steps"`
	Deviations []Deviation `json:"deviations"`
}

// Step is one planned step with the files it reads and writes.
type Step struct {
	Number  int      `json:"number"`
	Title   string   `json:"title"`
	Inputs  []string `json:"inputs"`
	Outputs []string `json:"outputs"`
	Gates   []string `json:"gates,omitempty"`
	line    int
	fields  map[string]bool
}

// Deviation is one logged departure from the plan.
type Deviation struct {
	ID    string   `json:"id"`
	Date  string   `json:"date"`
	Step  int      `json:"step,omitempty"`
	What  string   `json:"what"`
	Why   string   `json:"why"`
	Files []string `json:"files,omitempty"`
	line  int
}

var (
	stepHeading = lazyre.New(`^Step\s+(\d+)\s*:\s*(.+)$`)
	devHeading  = lazyre.New(`^(DEV-\d{3,})\s*:\s*(.*)$`)
)

// ParseDesign reads DESIGN.md: "# Design: <title>", an optional
// "- rq: RQ-001", a "## Planned steps" section of "### Step N: <title>"
// entries with inputs/outputs/gates fields, and a "## Deviations" section
// of "### DEV-NNN: YYYY-MM-DD" entries with step/what/why/files fields.
// Fenced code and HTML comments are ignored. Every departure from the
// format comes back as a problem with its line.
func ParseDesign(text []byte) (Design, []string) {
	d, probs := parseDesign(markdownLines(text), "")
	if d.Title == "" {
		probs = append(probs, "the design has no `# Design: <title>` line")
	}
	if !d.sawSteps {
		probs = append(probs, "the design has no `## Planned steps` section")
	} else if len(d.Steps) == 0 {
		probs = append(probs, "`## Planned steps` lists no `### Step N: <title>`")
	}
	if !d.sawDevs {
		probs = append(probs, "the design has no `## Deviations` section (write `None yet.` under it when nothing deviated)")
	}
	for i, s := range d.Steps {
		if s.Number != i+1 {
			probs = append(probs, fmt.Sprintf("line %d: step %d is numbered %d; steps count from 1 in order", s.line, i+1, s.Number))
		}
		for _, f := range []string{"inputs", "outputs"} {
			if !s.fields[f] {
				probs = append(probs, fmt.Sprintf("line %d: step %d has no `- %s:` field (write `- %s: none` when there are none)", s.line, s.Number, f, f))
			}
		}
	}
	probs = append(probs, checkDesign(d.Design)...)
	return d.Design, probs
}

type parsedDesign struct {
	Design
	sawSteps, sawDevs bool
}

// parseDesign reads the lines of a design file, starting in section
// ("" before any level-2 heading, "deviations" for a separate deviations
// file), and reports malformed headings and fields.
func parseDesign(lines []mdLine, section string) (parsedDesign, []string) {
	pd := parsedDesign{Design: Design{Steps: []Step{}, Deviations: []Deviation{}}}
	d := &pd.Design
	var probs []string
	bad := func(line int, format string, a ...any) {
		probs = append(probs, fmt.Sprintf("line %d: %s", line, fmt.Sprintf(format, a...)))
	}
	sawSteps, sawDevs := false, false
	var step *Step
	var dev *Deviation
	for _, l := range lines {
		if lvl, h, ok := heading(l.Text); ok {
			step, dev = nil, nil
			switch lvl {
			case 1:
				if d.Title == "" {
					d.Title = strings.TrimSpace(strings.TrimPrefix(h, "Design:"))
				}
				section = ""
			case 2:
				switch strings.ToLower(h) {
				case "planned steps":
					section, sawSteps = "steps", true
				case "deviations":
					section, sawDevs = "deviations", true
				default:
					section = "other"
				}
			case 3:
				switch section {
				case "steps":
					m := stepHeading.FindStringSubmatch(h)
					if m == nil {
						bad(l.No, "a step heading must read `### Step N: <title>`, not %q", h)
						continue
					}
					n, _ := strconv.Atoi(m[1])
					d.Steps = append(d.Steps, Step{Number: n, Title: strings.TrimSpace(m[2]), Inputs: []string{}, Outputs: []string{}, line: l.No, fields: map[string]bool{}})
					step = &d.Steps[len(d.Steps)-1]
				case "deviations":
					m := devHeading.FindStringSubmatch(h)
					if m == nil {
						bad(l.No, "a deviation heading must read `### DEV-NNN: YYYY-MM-DD`, not %q", h)
						continue
					}
					d.Deviations = append(d.Deviations, Deviation{ID: m[1], Date: strings.TrimSpace(m[2]), line: l.No})
					dev = &d.Deviations[len(d.Deviations)-1]
				}
			}
			continue
		}
		k, v, ok := field(l.Text)
		if !ok {
			continue
		}
		switch {
		case step != nil:
			step.fields[k] = true
			switch k {
			case "inputs":
				step.Inputs = listValue(v)
			case "outputs":
				step.Outputs = listValue(v)
			case "gates":
				step.Gates = listValue(v)
			}
		case dev != nil:
			switch k {
			case "step":
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil || n < 1 {
					bad(l.No, "%s: step must be a step number, not %q", dev.ID, v)
				}
				dev.Step = n
			case "what":
				dev.What = v
			case "why":
				dev.Why = v
			case "files":
				dev.Files = listValue(v)
			}
		case section == "" && k == "rq" && d.RQ == "":
			d.RQ = v
		}
	}
	pd.sawSteps, pd.sawDevs = sawSteps, sawDevs
	return pd, probs
}

// checkDesign applies the rules both forms share: known gate ids, and
// deviations with a valid date, a what, a why and an existing step.
func checkDesign(d Design) []string {
	var probs []string
	for _, s := range d.Steps {
		for _, g := range s.Gates {
			if gg, ok := Lookup(g); !ok || gg.ID != g {
				probs = append(probs, fmt.Sprintf("%sstep %d names the gate %q, which is not a gate id (see vibe gate list)", lineNote(s.line), s.Number, g))
			}
		}
	}
	return append(probs, checkDeviations(d.Steps, d.Deviations)...)
}

func checkDeviations(planned []Step, devs []Deviation) []string {
	var probs []string
	steps := map[int]bool{}
	for _, s := range planned {
		steps[s.Number] = true
	}
	seen := map[string]bool{}
	for _, v := range devs {
		at := lineNote(v.line)
		if seen[v.ID] {
			probs = append(probs, fmt.Sprintf("%s%s is used twice", at, v.ID))
		}
		seen[v.ID] = true
		if _, err := time.Parse("2006-01-02", v.Date); err != nil {
			probs = append(probs, fmt.Sprintf("%s%s has no valid date (YYYY-MM-DD after the id)", at, v.ID))
		}
		if strings.TrimSpace(v.What) == "" {
			probs = append(probs, fmt.Sprintf("%s%s does not say what changed (`- what:`)", at, v.ID))
		}
		if strings.TrimSpace(v.Why) == "" {
			probs = append(probs, fmt.Sprintf("%s%s does not say why (`- why:`)", at, v.ID))
		}
		if v.Step != 0 && !steps[v.Step] {
			probs = append(probs, fmt.Sprintf("%s%s names step %d, which the design does not plan", at, v.ID, v.Step))
		}
	}
	return probs
}

func lineNote(line int) string {
	if line == 0 {
		return ""
	}
	return fmt.Sprintf("line %d: ", line)
}

func loadDesign(p string) (Design, []string, error) {
	raw, err := os.ReadFile(p)
	if err != nil {
		return Design{}, nil, err
	}
	if strings.EqualFold(filepath.Ext(p), ".json") {
		v := ValidateSchema("design-file", raw)
		if v.Status == StatusFail {
			var probs []string
			for _, c := range v.Checks {
				if c.Status == StatusFail {
					probs = append(probs, c.Detail)
				}
			}
			return Design{}, probs, nil
		}
		var d Design
		if err := json.Unmarshal(raw, &d); err != nil {
			return Design{}, []string{err.Error()}, nil
		}
		return d, checkDesign(d), nil
	}
	d, probs := ParseDesign(raw)
	return d, probs, nil
}

// DC0 checks design compliance. The design file (DESIGN.md, or its JSON
// form) must parse, with every deviation dated and saying what changed and
// why. deviationsPath, when not empty, is a separate file whose
// "### DEV-NNN: date" entries (under "## Deviations") count as well.
// Each executed file (a data file written under the research question,
// relative to the design file's folder or absolute) must be an input or
// output of a planned step (globs allowed) or be named in a deviation's
// files; otherwise it is an unplanned product and DC0 fails naming it.
func DC0(designPath, deviationsPath string, executed []string) (Result, error) {
	res := newResult("DC0", designPath, deviationsPath)
	base := filepath.Base(designPath)
	d, probs, err := loadDesign(designPath)
	if os.IsNotExist(err) {
		res.fail("design", fmt.Sprintf("there is no design file at %s", designPath), "write DESIGN.md with the planned steps and a Deviations section (skill/vibe/formats/design-file.md)")
		return res, nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("dc0: read design: %w", err)
	}
	for i := range probs {
		probs[i] = fileNote(base, probs[i])
	}
	if deviationsPath != "" {
		extra, err := os.ReadFile(deviationsPath)
		if err != nil {
			return Result{}, fmt.Errorf("dc0: read deviations: %w", err)
		}
		devs, devProbs := parseDeviationsFile(extra, d)
		d.Deviations = append(d.Deviations, devs...)
		for _, p := range devProbs {
			probs = append(probs, fileNote(filepath.Base(deviationsPath), p))
		}
	}
	for _, p := range probs {
		name := "design"
		if strings.Contains(p, "DEV-") {
			name = "deviation"
		}
		res.fail(name, p, "fix it as skill/vibe/formats/design-file.md shows")
	}
	if len(probs) == 0 {
		res.pass("design", fmt.Sprintf("%s parses: %d planned steps, %d deviations, each dated with what and why", base, len(d.Steps), len(d.Deviations)))
	}

	root := filepath.Dir(designPath)
	unplanned := 0
	for _, e := range executed {
		rel := e
		if filepath.IsAbs(e) {
			rel = relSlash(root, e)
		}
		rel = path.Clean(filepath.ToSlash(rel))
		if planned(d, rel) {
			continue
		}
		unplanned++
		res.fail("executed", fmt.Sprintf("%s was written but is no input or output of a planned step, and no deviation names it", rel), "log a deviation (### DEV-NNN: YYYY-MM-DD with what, why and files) in "+base+", or remove the file")
	}
	if len(executed) > 0 && unplanned == 0 {
		res.pass("executed", fmt.Sprintf("all %d executed files are planned or logged as deviations", len(executed)))
	}
	return res, nil
}

// Plan is what a design plans: its steps' inputs and outputs and the files
// its deviations (and its deviations file) name, as DC0 reads them.
type Plan struct{ d Design }

// LoadPlan reads a design and, when deviationsPath is not empty, its
// deviations file. A design that does not parse plans what could be read
// of it.
func LoadPlan(designPath, deviationsPath string) (Plan, error) {
	d, _, err := loadDesign(designPath)
	if err != nil {
		return Plan{}, fmt.Errorf("dc0: read design: %w", err)
	}
	if deviationsPath != "" {
		extra, err := os.ReadFile(deviationsPath)
		if err != nil {
			return Plan{}, fmt.Errorf("dc0: read deviations: %w", err)
		}
		d.Deviations = append(d.Deviations, ParseDeviations(extra)...)
	}
	return Plan{d: d}, nil
}

// Plans reports whether a file (relative to the design's folder) is an
// input or output of a planned step (globs allowed) or named by a
// deviation.
func (p Plan) Plans(rel string) bool { return planned(p.d, path.Clean(filepath.ToSlash(rel))) }

// Unplanned returns the executed files (relative to the design's folder,
// as DC0 takes them) that the design does not plan (Plan.Plans), in the
// order given.
func Unplanned(designPath, deviationsPath string, executed []string) ([]string, error) {
	p, err := LoadPlan(designPath, deviationsPath)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range executed {
		if !p.Plans(e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// NextDeviation is the id the next deviation of a design takes: DEV-NNN one
// above the highest of the design and its deviations file (DEV-001 for
// none).
func NextDeviation(designPath, deviationsPath string) string {
	max := 0
	var devs []Deviation
	if d, _, err := loadDesign(designPath); err == nil {
		devs = d.Deviations
	}
	if deviationsPath != "" {
		if extra, err := os.ReadFile(deviationsPath); err == nil {
			devs = append(devs, ParseDeviations(extra)...)
		}
	}
	for _, v := range devs {
		if n, err := strconv.Atoi(strings.TrimPrefix(v.ID, "DEV-")); err == nil && n > max {
			max = n
		}
	}
	return fmt.Sprintf("DEV-%03d", max+1)
}

// fileNote prefixes a problem with its file: "DESIGN.md line 4: …" or
// "DESIGN.md: …" when the problem has no line.
func fileNote(file, problem string) string {
	if strings.HasPrefix(problem, "line ") {
		return file + " " + problem
	}
	return file + ": " + problem
}

// ParseDeviations reads the "### DEV-NNN: date" entries of a separate
// deviations file (DEVIATIONS.md, with or without a "## Deviations"
// heading), as DC0 does with its deviations file; malformed entries are
// left out.
func ParseDeviations(text []byte) []Deviation {
	parsed, _ := parseDesign(markdownLines(text), "deviations")
	return parsed.Deviations
}

// parseDeviationsFile reads deviations from a separate file: the same
// "### DEV-NNN: date" entries, with or without a "## Deviations" heading.
func parseDeviationsFile(text []byte, d Design) ([]Deviation, []string) {
	parsed, probs := parseDesign(markdownLines(text), "deviations")
	devs := parsed.Deviations
	probs = append(probs, checkDeviations(d.Steps, devs)...)
	return devs, probs
}

func planned(d Design, rel string) bool {
	match := func(list []string) bool {
		for _, p := range list {
			p = path.Clean(filepath.ToSlash(p))
			if p == rel {
				return true
			}
			if ok, err := path.Match(p, rel); err == nil && ok {
				return true
			}
		}
		return false
	}
	for _, s := range d.Steps {
		if match(s.Inputs) || match(s.Outputs) {
			return true
		}
	}
	for _, v := range d.Deviations {
		if match(v.Files) {
			return true
		}
	}
	return false
}

// DataFiles lists the data files of a research question for DC0 in CI:
// every file, relative to rqDir with forward slashes, under a folder
// directly below rqDir named "data" or ending in "-data" (03-data),
// except Markdown files such as the data dictionary; sorted.
func DataFiles(rqDir string) ([]string, error) {
	entries, err := os.ReadDir(rqDir)
	if err != nil {
		return nil, fmt.Errorf("list data files: %w", err)
	}
	var out []string
	for _, e := range entries {
		n := strings.ToLower(e.Name())
		if !e.IsDir() || !(n == "data" || strings.HasSuffix(n, "-data")) {
			continue
		}
		root := filepath.Join(rqDir, e.Name())
		err := filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if de.IsDir() || strings.EqualFold(filepath.Ext(p), ".md") || strings.HasPrefix(de.Name(), ".") {
				return nil
			}
			out = append(out, relSlash(rqDir, p))
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list data files: %w", err)
		}
	}
	sort.Strings(out)
	return out, nil
}
