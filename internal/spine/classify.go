package spine

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/vibe-science/vibe/internal/lazyre"
)

// Action types of the research spine (blueprint section 4.3, extended with
// the kinds a Claude Code session produces).
const (
	DataLoad          = "DATA_LOAD"
	FeatureExtraction = "FEATURE_EXTRACTION"
	ModelTrain        = "MODEL_TRAIN"
	Evaluation        = "EVALUATION"
	Calibration       = "CALIBRATION"
	Literature        = "LITERATURE"
	BugFix            = "BUG_FIX"
	DesignChange      = "DESIGN_CHANGE"
	ClaimUpdate       = "CLAIM_UPDATE"
	Review            = "REVIEW"
	Findings          = "FINDINGS"
	Serendipity       = "SERENDIPITY"
	Documentation     = "DOCUMENTATION"
	CodeEdit          = "CODE_EDIT"
	Test              = "TEST"
	FileRead          = "FILE_READ"
	Search            = "SEARCH"
	Delegation        = "DELEGATION"
	Command           = "COMMAND"
	Other             = "OTHER"
)

// Significant action types are remembered (queued for embedding); reads,
// searches and plain commands are recorded in the spine only.
var significant = map[string]bool{
	DataLoad: true, FeatureExtraction: true, ModelTrain: true, Evaluation: true, Calibration: true,
	Literature: true, BugFix: true, DesignChange: true, ClaimUpdate: true, Review: true, Findings: true,
	Serendipity: true,
}

// Significant reports whether an action type is worth remembering.
func Significant(actionType string) bool { return significant[actionType] }

// Call is the part of a tool call the classifier looks at.
type Call struct {
	Tool    string
	Path    string // file_path / notebook_path, project-relative or absolute
	Command string // Bash command
	Text    string // new content or new_string (first few KB suffice)
	Query   string // WebSearch query or WebFetch URL
}

var (
	reTrain   = lazyre.New(`(?i)\b(train|fit\(|\.fit\b|epochs?|optimi[sz]er|cross[_-]?val|xgboost|lightgbm|sklearn)`)
	reCalib   = lazyre.New(`(?i)(calibrat|conformal|coverage|isotonic|platt)`)
	reFeature = lazyre.New(`(?i)(feature|featuri[sz]|extract|encode_|one[_-]?hot|embedding)`)
	reEval    = lazyre.New(`(?i)\b(evaluat|roc_auc|auc\b|r2_score|metrics?|benchmark|score\()`)
	reLoad    = lazyre.New(`(?i)(read_csv|read_table|read_parquet|load_dataset|np\.load|h5py|anndata|\bwget\b|\bcurl\b|download|\bgunzip\b|\btar\s+-?x)`)
	reFix     = lazyre.New(`(?i)\b(fix(es|ed)?|bug|typo|off[- ]by[- ]one|regression|wrong|incorrect)\b`)
	reTest    = lazyre.New(`(?i)(\bpytest\b|\bgo test\b|\bnpm test\b|\bunittest\b|\btestthat\b|\bmake test\b)`)
	reLitURL  = lazyre.New(`(?i)(pubmed|ncbi\.nlm|arxiv|doi\.org|biorxiv|medrxiv|europepmc|semanticscholar|openalex|crossref|scholar\.google|nature\.com|sciencedirect|springer|wiley|plos|inspirehep|adsabs|ieeexplore|acm\.org|aclanthology|ssrn|jstor|pmc/)`)
)

var dataExt = map[string]bool{".csv": true, ".tsv": true, ".parquet": true, ".h5": true, ".h5ad": true,
	".hdf5": true, ".npy": true, ".npz": true, ".feather": true, ".xlsx": true, ".json": false, ".fasta": true,
	".fa": true, ".fastq": true, ".bam": true, ".vcf": true, ".bed": true, ".rds": true, ".pkl": true}

var codeExt = map[string]bool{".py": true, ".r": true, ".go": true, ".js": true, ".ts": true, ".jl": true,
	".sh": true, ".ipynb": true, ".rs": true, ".c": true, ".cpp": true, ".java": true, ".m": true, ".sql": true}

// MaxClassified is how much of a command, text or query the classifier
// reads: its keyword regexes cost seconds on a 10 MB command (more with
// non-ASCII text), and what a call does is named at its start.
const MaxClassified = 8 << 10

// Classify assigns an action type. Rules run in a fixed order, first match
// wins, so the same call always gets the same type. Only the first
// MaxClassified bytes of each text are read.
func Classify(c Call) string {
	c.Command, c.Text, c.Query = head(c.Command), head(c.Text), head(c.Query)
	tool := c.Tool
	switch {
	case tool == "WebSearch":
		return Literature
	case tool == "WebFetch":
		if reLitURL.MatchString(c.Query) {
			return Literature
		}
		return Search
	case strings.HasPrefix(tool, "mcp__"):
		if strings.Contains(strings.ToLower(tool), "pubmed") || strings.Contains(strings.ToLower(tool), "arxiv") ||
			strings.Contains(strings.ToLower(tool), "paper") || strings.Contains(strings.ToLower(tool), "scholar") ||
			strings.Contains(strings.ToLower(tool), "literature") || strings.Contains(strings.ToLower(tool), "citation") {
			return Literature
		}
		return Other
	case tool == "Agent" || tool == "Task":
		return Delegation
	case tool == "Glob" || tool == "Grep":
		return Search
	case tool == "Read":
		if dataExt[strings.ToLower(path.Ext(c.Path))] {
			return DataLoad
		}
		return FileRead
	case tool == "Write" || tool == "Edit" || tool == "MultiEdit" || tool == "NotebookEdit":
		return classifyWrite(c)
	case tool == "Bash" || tool == "PowerShell":
		return classifyCommand(c.Command)
	}
	return Other
}

func classifyWrite(c Call) string {
	p := strings.ToLower(strings.ReplaceAll(c.Path, `\`, "/"))
	base := path.Base(p)
	ext := path.Ext(base)
	switch {
	case strings.Contains(base, "claim-ledger"):
		return ClaimUpdate
	case strings.Contains(p, "05-reviewer2/"):
		return Review
	case strings.Contains(base, "findings"):
		return Findings
	case strings.Contains(base, "serendipity"):
		return Serendipity
	case strings.Contains(base, "design") || strings.Contains(base, "assumption") || strings.Contains(base, "decision"):
		return DesignChange
	case strings.Contains(base, "calibration") && (ext == ".json" || ext == ".csv"):
		return Calibration
	case strings.Contains(base, "metrics") && ext == ".json":
		return Evaluation
	case strings.Contains(base, "feature") && dataExt[ext]:
		return FeatureExtraction
	case dataExt[ext]:
		return DataLoad
	case codeExt[ext]:
		if c.Tool != "Write" && reFix.MatchString(c.Text) {
			return BugFix
		}
		switch {
		case reCalib.MatchString(c.Text):
			return Calibration
		case reTrain.MatchString(c.Text):
			return ModelTrain
		case reFeature.MatchString(c.Text):
			return FeatureExtraction
		case reEval.MatchString(c.Text):
			return Evaluation
		case reLoad.MatchString(c.Text):
			return DataLoad
		}
		if c.Tool != "Write" {
			return CodeEdit
		}
		return CodeEdit
	case ext == ".md" || ext == ".txt" || ext == ".rst" || ext == ".tex":
		return Documentation
	}
	return Other
}

func classifyCommand(cmd string) string {
	switch {
	case cmd == "":
		return Command
	case reTest.MatchString(cmd):
		return Test
	case strings.Contains(cmd, "git commit") && reFix.MatchString(cmd):
		return BugFix
	case reCalib.MatchString(cmd):
		return Calibration
	case reTrain.MatchString(cmd):
		return ModelTrain
	case reFeature.MatchString(cmd):
		return FeatureExtraction
	case reEval.MatchString(cmd):
		return Evaluation
	case reLoad.MatchString(cmd):
		return DataLoad
	case reLitURL.MatchString(cmd):
		return Literature
	}
	return Command
}

// head is s cut to MaxClassified bytes, at a character boundary.
func head(s string) string {
	if len(s) <= MaxClassified {
		return s
	}
	n := MaxClassified
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
