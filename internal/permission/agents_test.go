package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentDefinitions checks the subagents shipped in plugin/agents: the
// frontmatter Claude Code needs, a name without ':' (the plugin adds
// "vibe:"), a role the policy knows under that name, and tools that the
// role's policy allows, so an agent is never handed a tool the hooks refuse.
func TestAgentDefinitions(t *testing.T) {
	p := Default()
	for _, name := range []string{"reviewer2", "judge", "serendipity", "experimenter"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "plugin", "agents", name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		if !strings.HasPrefix(text, "---\n") {
			t.Fatalf("%s: no frontmatter", name)
		}
		end := strings.Index(text[4:], "\n---\n")
		if end < 0 {
			t.Fatalf("%s: frontmatter not closed", name)
		}
		fields := map[string]string{}
		for _, line := range strings.Split(text[4:4+end], "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				t.Fatalf("%s: bad frontmatter line %q", name, line)
			}
			fields[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		if fields["name"] != name || strings.Contains(fields["name"], ":") {
			t.Errorf("%s: name %q", name, fields["name"])
		}
		if len(fields["description"]) < 40 {
			t.Errorf("%s: description too short", name)
		}
		if got := p.RoleFor("vibe:"+fields["name"], true); got != name {
			t.Errorf("%s: agent type vibe:%s maps to role %s", name, fields["name"], got)
		}
		r := p.roles[name]
		for _, tool := range strings.Split(fields["tools"], ",") {
			tool = strings.TrimSpace(tool)
			if !r.allowsTool(tool) {
				t.Errorf("%s: tool %s is not allowed by the %s role", name, tool, name)
			}
		}
		body := strings.TrimSpace(text[4+end+5:])
		if len(strings.Fields(body)) < 150 {
			t.Errorf("%s: the prompt has %d words, want a real prompt", name, len(strings.Fields(body)))
		}
	}
}
