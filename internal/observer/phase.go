package observer

import (
	"strconv"
	"strings"

	"github.com/vibe-science/vibe/internal/lazyre"

	"github.com/vibe-science/vibe/internal/spine"
)

// phaseDef is a research phase: the words that name it in STATE.md and the
// action types that belong to it.
type phaseDef struct {
	name     string
	words    []string
	expected map[string]bool
}

func set(types ...string) map[string]bool {
	m := make(map[string]bool, len(types))
	for _, t := range types {
		m[t] = true
	}
	return m
}

// phases are the research phases vibe recognises, in the order of the
// methodology: Phase 0, the five stages of the experiment manager (1–3 are
// computational work, 4 validation, 5 synthesis), and the linear phases of
// a literature or data project.
var phases = []phaseDef{
	{"brainstorm", []string{"brainstorm", "ideation", "phase 0", "planning", "scoping"},
		set(spine.Literature, spine.DesignChange, spine.Serendipity, spine.Review, spine.DataLoad)},
	{"discovery", []string{"discovery", "literature", "search", "survey", "precheck", "pre-check"},
		set(spine.Literature, spine.DataLoad, spine.DesignChange, spine.Serendipity, spine.Findings)},
	{"data", []string{"data", "extraction", "collection", "cleaning", "preprocessing", "acquisition", "curation"},
		set(spine.DataLoad, spine.FeatureExtraction, spine.CodeEdit, spine.BugFix, spine.Test, spine.DesignChange,
			spine.Serendipity)},
	{"analysis", []string{"analysis", "preliminary", "tuning", "training", "modelling", "modeling", "experiment",
		"experiments", "agenda", "exploration"},
		set(spine.ModelTrain, spine.Evaluation, spine.Calibration, spine.FeatureExtraction, spine.DataLoad, spine.CodeEdit,
			spine.BugFix, spine.Test, spine.Findings, spine.ClaimUpdate, spine.Serendipity, spine.DesignChange)},
	{"validation", []string{"validation", "ablation", "ablations", "replication", "robustness"},
		set(spine.Evaluation, spine.Calibration, spine.ModelTrain, spine.Review, spine.ClaimUpdate, spine.Findings,
			spine.CodeEdit, spine.BugFix, spine.Test, spine.DataLoad, spine.Serendipity, spine.Literature)},
	{"review", []string{"review", "r2", "reviewer2"},
		set(spine.Review, spine.ClaimUpdate, spine.Findings, spine.Literature, spine.Serendipity, spine.Evaluation)},
	{"synthesis", []string{"synthesis", "write-up", "writeup", "writing", "paper", "report", "conclusion"},
		set(spine.Findings, spine.Review, spine.ClaimUpdate, spine.Literature, spine.Evaluation, spine.Serendipity)},
}

// neutral action types belong to every phase: reading, searching the
// project, plain commands, delegation and notes say nothing about drift.
var neutral = set(spine.FileRead, spine.Search, spine.Command, spine.Other, spine.Delegation, spine.Documentation)

// stageNumber maps "stage 2", "phase 0", "2" to a phase.
var stageNumberRe = lazyre.New(`^(?:(?:stage|phase|s)\s*-?\s*)?([0-5])\b`)

var stageByNumber = map[int]string{0: "brainstorm", 1: "analysis", 2: "analysis", 3: "analysis", 4: "validation", 5: "synthesis"}

var wordRe = lazyre.New(`[a-z0-9][a-z0-9-]*`)

// PhaseNames lists the phase names vibe recognises, for messages.
func PhaseNames() []string {
	out := make([]string, len(phases))
	for i, p := range phases {
		out[i] = p.name
	}
	return out
}

// lookupPhase maps a STATE.md phase value to a phase: a stage or phase
// number first ("stage 2 (tuning)", "0"), then the first word of the value
// that names a phase ("data extraction", "Stage: validation of C-004").
func lookupPhase(value string) (phaseDef, bool) {
	v := strings.ToLower(strings.TrimSpace(value))
	if m := stageNumberRe.FindStringSubmatch(v); m != nil {
		n, _ := strconv.Atoi(m[1])
		return phaseByName(stageByNumber[n])
	}
	for _, w := range wordRe.FindAllString(v, 8) {
		for _, p := range phases {
			for _, pw := range p.words {
				if w == pw || w == p.name {
					return p, true
				}
			}
		}
	}
	return phaseDef{}, false
}

func phaseByName(name string) (phaseDef, bool) {
	for _, p := range phases {
		if p.name == name {
			return p, true
		}
	}
	return phaseDef{}, false
}
