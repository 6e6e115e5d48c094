package gatecheck

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/vibe-science/vibe/internal/gate"
)

// The output formats of `vibe gate check`.
const (
	FormatText   = "text"
	FormatJSON   = "json"
	FormatGitHub = "github"
	FormatSARIF  = "sarif"
)

// Formats lists the output formats, the default first.
var Formats = []string{FormatText, FormatJSON, FormatGitHub, FormatSARIF}

// Write renders the report in one of Formats; version is the tool version
// SARIF records.
func Write(w io.Writer, rep Report, format, version string) error {
	switch format {
	case FormatText, "":
		return WriteText(w, rep)
	case FormatJSON:
		return WriteJSON(w, rep)
	case FormatGitHub:
		return WriteGitHub(w, rep)
	case FormatSARIF:
		return WriteSARIF(w, rep, version)
	}
	return fmt.Errorf("gate check: unknown format %q: use one of %s", format, strings.Join(Formats, ", "))
}

// WriteText renders the report as a table grouped by rule: each judged item
// with its status, each finding under it with its fix, then a summary line.
func WriteText(w io.Writer, rep Report) error {
	var b strings.Builder
	group := ""
	for _, it := range rep.Items {
		if it.Gate != group {
			if group != "" {
				b.WriteByte('\n')
			}
			group = it.Gate
			r := ruleFor(it.Gate)
			fmt.Fprintf(&b, "%s  %s\n", r.ID, r.Name)
		}
		where := it.File
		if it.Subject != "" {
			where += " " + it.Subject
		}
		fmt.Fprintf(&b, "  %-4s  %s\n", it.Status, where)
		for _, f := range it.Findings {
			loc := ""
			switch {
			case f.File != it.File && f.Line > 0:
				loc = fmt.Sprintf("%s line %d: ", f.File, f.Line)
			case f.File != it.File:
				loc = f.File + ": "
			case f.Line > 0:
				loc = fmt.Sprintf("line %d: ", f.Line)
			}
			fmt.Fprintf(&b, "        %s: %s%s\n", f.Level, loc, f.Message)
			if f.Fix != "" {
				fmt.Fprintf(&b, "          fix: %s\n", f.Fix)
			}
		}
	}
	pass, warn, fail, errs, warns := rep.Counts()
	verdict := gate.StatusPass
	switch {
	case fail > 0:
		verdict = gate.StatusFail
	case warn > 0:
		verdict = gate.StatusWarn
	}
	if len(rep.Items) > 0 {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "vibe gate check (domain %s): %d checked, %d passed, %d warned, %d failed; %s, %s: %s\n",
		rep.Domain, len(rep.Items), pass, warn, fail, plural(errs, "error"), plural(warns, "warning"), verdict)
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// WriteJSON renders the findings as a JSON list of {gate, level, file,
// line, message, fix}; a clean repository gives [].
func WriteJSON(w io.Writer, rep Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(rep.Findings())
}

// WriteGitHub renders each finding as a GitHub Actions workflow command,
// `::error file=F,line=L,title=GATE::message — fix` (or ::warning), which
// GitHub shows as an annotation on the file; file and line are left out
// when unknown. Values are escaped as the runner requires.
func WriteGitHub(w io.Writer, rep Report) error {
	var b strings.Builder
	for _, f := range rep.Findings() {
		var props []string
		if f.File != "" {
			props = append(props, "file="+escapeProperty(f.File))
			if f.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", f.Line))
			}
		}
		props = append(props, "title="+escapeProperty(f.Gate))
		fmt.Fprintf(&b, "::%s %s::%s\n", f.Level, strings.Join(props, ","), escapeData(message(f)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// message is the finding's message with its fix, for formats that have one
// text field.
func message(f Finding) string {
	if f.Fix == "" {
		return f.Message
	}
	return f.Message + " — fix: " + f.Fix
}

func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// SARIFSchema is the $schema a SARIF log names: the OASIS 2.1.0 schema.
const SARIFSchema = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID               string    `json:"id"`
	Name             string    `json:"name"`
	ShortDescription sarifText `json:"shortDescription"`
	FullDescription  sarifText `json:"fullDescription"`
	HelpURI          string    `json:"helpUri,omitempty"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     Level           `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
	Region           *sarifRegion     `json:"region,omitempty"`
}

type sarifArtifactLoc struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// InformationURI is where SARIF viewers send people to learn about vibe.
const InformationURI = "https://github.com/vibe-science/vibe"

// srcRoot is the uriBaseId of every location: the checked root, which a
// SARIF consumer such as GitHub code scanning maps to the checkout.
const srcRoot = "%SRCROOT%"

// WriteSARIF renders the report as a SARIF 2.1.0 log with one run: the
// driver "vibe" with one rule per rule id (its purpose as the description),
// and one result per finding with its rule, level, message (with the fix)
// and location (uri relative to the checked root, and the start line when
// known).
func WriteSARIF(w io.Writer, rep Report, version string) error {
	rules := Rules()
	index := make(map[string]int, len(rules))
	run := sarifRun{
		Tool:    sarifTool{Driver: sarifDriver{Name: "vibe", Version: version, InformationURI: InformationURI}},
		Results: []sarifResult{},
	}
	for i, r := range rules {
		index[r.ID] = i
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: r.ID, Name: r.Name,
			ShortDescription: sarifText{r.Name}, FullDescription: sarifText{r.Purpose}})
	}
	for _, f := range rep.Findings() {
		i, ok := index[f.Gate]
		if !ok {
			i = -1 // SARIF's "no rule object"
		}
		res := sarifResult{RuleID: f.Gate, RuleIndex: i, Level: f.Level, Message: sarifText{message(f)}}
		if f.File != "" {
			loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifactLoc{URI: relURI(f.File), URIBaseID: srcRoot}}}
			if f.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
			}
			res.Locations = []sarifLocation{loc}
		}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// relURI turns a slash path relative to the root into a relative URI
// reference, escaping what a path segment may not hold.
func relURI(p string) string {
	u := url.URL{Path: p}
	return u.String()
}
