package permission

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// TestApprovalReadsNoMemory: what approves a compute job or a raise of
// the allowance is the researcher's config alone (ComputeAllowance reads
// the domain config), never a memory, however trusted: a memory may be the
// agent's own word ("the user approved 72 h jobs"). So neither this
// package nor the gates it reads the allowance through may reach recall's
// memories: the store's memory queries or recall itself.
func TestApprovalReadsNoMemory(t *testing.T) {
	const module = "github.com/vibe-science/vibe/"
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	forbidden := map[string]bool{module + "internal/recall": true, module + "internal/store": true,
		module + "internal/disclosure": true}
	seen := map[string]bool{}
	var walk func(path string, chain []string)
	walk = func(path string, chain []string) {
		if seen[path] {
			return
		}
		seen[path] = true
		if forbidden[path] {
			t.Errorf("the approval path reaches memories: %s", strings.Join(append(chain, path), " -> "))
			return
		}
		pkg, err := build.ImportDir(filepath.Join(root, strings.TrimPrefix(path, module)), 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, module) {
				walk(imp, append(chain, path))
			}
		}
	}
	walk(module+"internal/permission", nil)
	if !seen[module+"internal/gate"] {
		t.Fatal("permission no longer imports gate: the walk no longer covers where the allowance is read")
	}
}
