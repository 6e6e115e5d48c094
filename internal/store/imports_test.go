package store

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the import path prefix of vibe's own packages.
const module = "github.com/vibe-science/vibe/"

// storeMayImport lists every vibe package the store may link: the
// migrations, the error classes, the privacy scrubber (and the lazy regexp
// it compiles with), the records and the verdict envelope the advisory log
// stores. A policy package (gate, a hook handler, calibrate, observer …)
// must never appear: the store holds SQL only.
var storeMayImport = map[string]bool{
	module + "db":                    true,
	module + "internal/fault":        true,
	module + "internal/lazyre":       true,
	module + "internal/privacy":      true,
	module + "internal/store/record": true,
	module + "internal/verdict":      true,
	module + "internal/store":        true,
}

// deps is `go list -deps` of one package of this module.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH; the import rule is checked where it is (make test)")
	}
	out, err := exec.Command("go", "list", "-deps", module+pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}

// TestNoPolicyImports fails when the store links a vibe package outside
// storeMayImport, or when the record package links anything but the
// standard library.
func TestNoPolicyImports(t *testing.T) {
	for _, d := range deps(t, "internal/store") {
		if strings.HasPrefix(d, module) && !storeMayImport[d] {
			t.Errorf("internal/store links %s; the store may import only db, fault, lazyre, privacy, record and verdict: move the type it needs into internal/store/record and let the caller convert", d)
		}
		for _, banned := range []string{"spf13/cobra", "knights-analytics/hugot", "jsonschema"} {
			if strings.Contains(d, banned) {
				t.Errorf("internal/store links %s", d)
			}
		}
	}
	for _, d := range deps(t, "internal/store/record") {
		if first, _, _ := strings.Cut(d, "/"); strings.Contains(first, ".") && d != module+"internal/store/record" {
			t.Errorf("internal/store/record links %s; it must import only the standard library", d)
		}
	}
}

// storeFree lists the packages that take the small interfaces they declare
// instead of the store: none of them may link it again (only the CLI, the
// hook handlers and the processes that open the database do).
var storeFree = []string{"calibrate", "disclosure", "integritycheck", "claimcheck", "literature", "mistake",
	"narrative", "observer", "resume", "recall", "seeds", "viewer"}

// TestConsumersDoNotLinkTheStore fails when a package of storeFree links
// internal/store, directly or through another package.
func TestConsumersDoNotLinkTheStore(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH; the import rule is checked where it is (make test)")
	}
	args := []string{"list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}"}
	for _, p := range storeFree {
		args = append(args, module+"internal/"+p)
	}
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, " ")
		if slices.Contains(strings.Fields(deps), module+"internal/store") {
			t.Errorf("%s links internal/store; let it declare the interface it uses (see recall/store.go) and take that", pkg)
		}
	}
}
