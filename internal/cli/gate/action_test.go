package gate

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/vibe-science/vibe/internal/cli/clitest"
)

// actionFile is the part of action.yml the runner reads.
type actionFile struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name             string            `yaml:"name"`
			ID               string            `yaml:"id"`
			If               string            `yaml:"if"`
			Uses             string            `yaml:"uses"`
			Shell            string            `yaml:"shell"`
			Run              string            `yaml:"run"`
			WorkingDirectory string            `yaml:"working-directory"`
			Env              map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// actionRun is the outcome of running the action's steps locally.
type actionRun struct {
	outputs map[string]map[string]string // step id → outputs
	logs    []string                     // each run step's output
	exit    int                          // the first failing step's exit status, else 0
	ran     []string
}

// runAction runs action.yml's run steps in order the way the runner does
// (bash -e, $GITHUB_OUTPUT and $GITHUB_PATH, ${{ }} expressions over the
// inputs, github.action_path, runner.temp and earlier step outputs). Steps
// that use another action (setup-go, upload-sarif) are GitHub's; they are
// checked by name and skipped.
func runAction(t *testing.T, checkout, workspace string, inputs map[string]string) actionRun {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(checkout, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(raw, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using %q, want composite", a.Runs.Using)
	}
	temp := t.TempDir()
	in := map[string]string{}
	for k, v := range a.Inputs {
		in[k] = v.Default
	}
	for k, v := range inputs {
		in[k] = v
	}
	run := actionRun{outputs: map[string]map[string]string{}}
	expr := regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
	eval := func(s string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string {
			e := expr.FindStringSubmatch(m)[1]
			switch {
			case strings.HasPrefix(e, "inputs."):
				return in[strings.TrimPrefix(e, "inputs.")]
			case e == "github.action_path":
				return checkout
			case e == "runner.temp":
				return temp
			case strings.HasPrefix(e, "steps."):
				parts := strings.Split(e, ".") // steps.ID.outputs.KEY
				return run.outputs[parts[1]][parts[3]]
			}
			t.Fatalf("action.yml uses an expression the local runner does not know: %s", m)
			return ""
		})
	}
	pathAdd := filepath.Join(temp, "path")
	known := map[string]bool{"actions/setup-go@v5": true, "github/codeql-action/upload-sarif@v3": true}
	for i, st := range a.Runs.Steps {
		if st.Uses != "" {
			if !known[st.Uses] {
				t.Fatalf("step %d uses %s, which this test does not know", i, st.Uses)
			}
			continue
		}
		if st.Shell != "bash" {
			t.Fatalf("step %q: shell %q, want bash (composite run steps must name one)", st.Name, st.Shell)
		}
		outFile := filepath.Join(temp, "output-"+st.ID)
		os.WriteFile(outFile, nil, 0o644)
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", eval(st.Run))
		cmd.Dir = workspace
		if st.WorkingDirectory != "" {
			cmd.Dir = eval(st.WorkingDirectory)
		}
		path := os.Getenv("PATH")
		if extra, err := os.ReadFile(pathAdd); err == nil {
			for _, p := range strings.Fields(string(extra)) {
				path = p + string(os.PathListSeparator) + path
			}
		}
		cmd.Env = append(os.Environ(), "PATH="+path, "RUNNER_TEMP="+temp, "GITHUB_OUTPUT="+outFile,
			"GITHUB_PATH="+pathAdd, "GITHUB_WORKSPACE="+workspace, "GITHUB_ACTION_PATH="+checkout)
		for k, v := range st.Env {
			cmd.Env = append(cmd.Env, k+"="+eval(v))
		}
		out, err := cmd.CombinedOutput()
		run.logs = append(run.logs, string(out))
		run.ran = append(run.ran, st.Name)
		if st.ID != "" {
			raw, _ := os.ReadFile(outFile)
			run.outputs[st.ID] = map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
				if k, v, ok := strings.Cut(line, "="); ok {
					run.outputs[st.ID][k] = v
				}
			}
		}
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				run.exit = ee.ExitCode()
				return run
			}
			t.Fatalf("step %q: %v\n%s", st.Name, err, out)
		}
	}
	return run
}

// TestActionRunsLocally runs the composite action's steps in order on a
// clean project (the job passes), a failing one (SARIF with results,
// annotations, the job fails) and a folder that is no project (exit 2).
func TestActionRunsLocally(t *testing.T) {
	if testing.Short() {
		t.Skip("builds vibe")
	}
	checkout, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}

	clean := clitest.GateProject(t)
	r := runAction(t, checkout, clean, nil)
	if r.exit != 0 || r.outputs["check"]["status"] != "0" {
		t.Fatalf("clean project: exit %d, status %q\n%s", r.exit, r.outputs["check"]["status"], strings.Join(r.logs, "\n"))
	}
	want := []string{"Install sqlite3.h (cgo builds SQLite into vibe)", "Build vibe", "Run vibe gate check (SARIF)",
		"Annotate the pull request", "Fail on a failed gate"}
	if strings.Join(r.ran, "|") != strings.Join(want, "|") {
		t.Errorf("steps ran %q, want %q", r.ran, want)
	}
	var sarif struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	raw, err := os.ReadFile(r.outputs["check"]["sarif"])
	if err != nil || json.Unmarshal(raw, &sarif) != nil || sarif.Version != "2.1.0" || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) != 0 {
		t.Errorf("clean SARIF (%v): %.300s", err, raw)
	}

	failing := clitest.GateProject(t, "dq4-typo")
	r = runAction(t, checkout, failing, nil)
	if r.exit != 1 || r.outputs["check"]["status"] != "1" {
		t.Fatalf("failing project: exit %d, status %q\n%s", r.exit, r.outputs["check"]["status"], strings.Join(r.logs, "\n"))
	}
	raw, _ = os.ReadFile(r.outputs["check"]["sarif"])
	if json.Unmarshal(raw, &sarif) != nil || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) == 0 {
		t.Errorf("failing SARIF has no results: %.300s", raw)
	}
	if annotate := r.logs[3]; !strings.Contains(annotate, "::error ") {
		t.Errorf("no error annotation:\n%s", annotate)
	}
	if r = runAction(t, checkout, failing, map[string]string{"fail-on-error": "false"}); r.exit != 0 {
		t.Errorf("fail-on-error false: exit %d", r.exit)
	}

	nowhere := t.TempDir()
	r = runAction(t, checkout, nowhere, nil)
	if r.exit != 2 || r.outputs["check"]["status"] != "2" {
		t.Fatalf("no project: exit %d, status %q\n%s", r.exit, r.outputs["check"]["status"], strings.Join(r.logs, "\n"))
	}
}
