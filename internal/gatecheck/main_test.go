package gatecheck

import (
	"os"
	"testing"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/schemacheck"
)

// TestMain gives the checks the real schema validator, as the CLI has it.
func TestMain(m *testing.M) {
	gate.SchemaValidator = schemacheck.Skill
	os.Exit(m.Run())
}
