package root

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/skill"
)

// exitCodesHelp is `vibe help exit-codes`; ExitCode implements it.
const exitCodesHelp = `vibe's exit codes are the same for every command:

  0  success: the command did what was asked; a check found nothing that fails
  1  a check failed (a gate, doctor, a validation, bad lines in an import) or
     the command could not finish (a database or file error); stderr says which
  2  usage: an unknown command or flag, a missing or extra argument, a bad flag
     value, or a project command run outside a vibe project

A CI job can therefore tell "the research does not pass" (1) from "the job is
misconfigured" (2).`

// environmentHelp is `vibe help environment`. A test fails when the code
// reads a VIBE_* variable that is not described here.
const environmentHelp = `Variables that change what vibe does:

  VIBE_HOME
      Where vibe keeps its files: the database, models, logs, the worker's
      socket and pid (default ~/.vibe-science).
  VIBE_DB
      The database file (default $VIBE_HOME/db/vibe-science.db).
  VIBE_ENFORCE
      "everywhere": the hooks act in every folder, as if each had run
      ` + "`vibe init`" + `; "projects" (the default): only in a project with a
      .vibe-science folder at or above its root, and silent elsewhere.
      Overrides "enforce" in $VIBE_HOME/config.json.
  VIBE_WORKER
      "off": hooks and the CLI never start the resident worker; hooks then
      run their handlers in a vibe-hook process of their own.
  VIBE_EMBED_FALLBACK
      "off": while the current embedding model is not installed, the worker
      leaves memories unembedded and recall lexical, instead of embedding them
      with the fallback hashed-token embedder (degraded vectors, labelled as
      such and replaced once the model is installed).
  VIBE_MODEL_PULL
      "off": the worker never downloads the current model by itself when an
      embedding is needed and it is not installed (use ` + "`vibe model pull`" + `).
  VIBE_WORKER_IDLE_EXIT
      How long the resident worker rests (no hook, query or work) before it
      exits, as a duration such as 45m or 2h, or "off" to keep it running;
      the next hook starts it again. Default: the settings'
      worker_idle_exit_sec, 1800 (30 minutes).
  VIBE_CLIENT
      Set by a hook binary for its handler from its --client argument (codex,
      gemini; unset for Claude Code): which client's event shapes and reply
      vocabulary the handler speaks. Not meant to be set by hand.
  VIBE_RELAY_NOTE
      Set by a hook binary for its handler when it could not use the resident
      worker (not running, or a process vibe does not trust on its socket):
      the reason, shown to the user. Not meant to be set by hand.
  VIBE_RELAY
      "off": hook binaries do not hand the event to the resident worker and
      run vibe-hook directly (slower; for diagnosing the relay).
  VIBE_BUSY_TIMEOUT_MS
      How long a hook waits for a locked database, in milliseconds.
  VIBE_PLUGIN_ROOT
      The plugin's checkout (holding bin/ and hooks.json), when vibe cannot
      find it beside its own binary.
  VIBE_CROSSREF_URL
      The Crossref API ` + "`vibe citations --online`" + ` asks about DOIs
      (default https://api.crossref.org): a mirror, or a local server in tests.
  VIBE_PUBMED_URL
      The E-utilities it asks about PMIDs and PMCIDs (default
      https://eutils.ncbi.nlm.nih.gov/entrez/eutils).
  VIBE_ARXIV_URL
      The arXiv API it asks about arXiv ids (default https://export.arxiv.org/api).
  VIBE_OPENLIBRARY_URL
      The Open Library it asks about ISBNs (default https://openlibrary.org).
  VIBE_RELEASE_URL
      Where the plugin's bootstrap (plugin/bootstrap.sh) downloads the
      release archive and checksums.txt from, as <url>/v<version>/... (a
      mirror, or file://DIR for an offline copy; default the GitHub
      releases of plugin.json's repository; docs/install.md).
  VIBE_BOOTSTRAP_WAIT
      Seconds SessionStart and PreToolUse wait for a running download of
      the binaries before they answer without them (default 20).

For developers and CI (make test, the end-to-end suite, the test model):

  VIBE_CLAUDE_BIN
      The claude CLI the end-to-end suite drives (default: the pinned copy
      .ci/install-claude.sh installs).
  VIBE_E2E_CACHE
      Where the pinned Claude Code is cached (default ~/.cache/vibe-e2e).
  VIBE_CLAUDE_DIR
      Install prefix of the pinned Claude Code (default
      $VIBE_E2E_CACHE/claude-<version>).
  VIBE_E2E_REQUIRE
      Set: a missing claude CLI fails the end-to-end suite instead of
      skipping it (CI sets it).
  VIBE_REQUIRE_TEST_MODEL
      "1": a test model that cannot be generated fails the tests instead of
      skipping them (CI sets it).
  VIBE_TEST_MODELS
      Cache of the generated test models (default: the user cache folder's
      vibe/test-models).
  VIBE_GEN_MODEL
      Path of gen_model.py, the script that writes the test model.
  VIBE_CI_FRESH
      Set by .ci/run for the run inside the fresh clone it makes in an empty
      folder (so nothing beside the repository stands in for what it lacks).
      Not meant to be set by hand.`

// newTopicCmd is a help topic: a command with no run function, which
// cobra lists under "Additional help topics".
func newTopicCmd(name, short, long string) *cobra.Command {
	return &cobra.Command{Use: name, Short: short, Long: long}
}

// newFormatsTopic is `vibe help formats [NAME]`: the documents of the
// project files vibe reads (skill/vibe/formats), printed from the copy
// built into vibe. The project's templates point here, since the skill
// folder exists only where the plugin was installed from, which a
// researcher rarely knows.
func newFormatsTopic() *cobra.Command {
	top := newTopicCmd("formats", "The file formats vibe reads: vibe help formats claim-ledger, findings, ...", "")
	entries, _ := fs.ReadDir(skill.FS, "vibe/formats")
	var list strings.Builder
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || name == "README" {
			continue
		}
		doc, err := fs.ReadFile(skill.FS, "vibe/formats/"+e.Name())
		if err != nil {
			continue
		}
		title, _, _ := strings.Cut(string(doc), "\n")
		title = strings.ReplaceAll(strings.TrimSpace(strings.TrimPrefix(title, "#")), "`", "")
		top.AddCommand(newTopicCmd(name, title, strings.TrimSpace(string(doc))))
		fmt.Fprintf(&list, "  vibe help formats %-16s %s\n", name, title)
	}
	readme, _ := fs.ReadFile(skill.FS, "vibe/formats/README.md")
	top.Long = strings.TrimSpace(string(readme)) + "\n\nEach format's document, with its examples:\n\n" + list.String()
	// Its topics are listed in Long; cobra's usage section would be empty.
	top.SetHelpTemplate("{{.Long | trimTrailingWhitespaces}}\n")
	return top
}

// newSchemasTopic is `vibe help schemas [NAME]`: the JSON Schemas the
// gates validate artifacts against (skill/vibe/schemas), printed from the
// copy built into vibe, as the formats are: messages name the schema by
// this command, since the skill folder exists only where the plugin was
// installed from.
func newSchemasTopic() *cobra.Command {
	top := newTopicCmd("schemas", "The JSON Schemas of gate artifacts: vibe help schemas claim-promotion, ...", "")
	entries, _ := fs.ReadDir(skill.FS, "vibe/schemas")
	var list strings.Builder
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".schema.json")
		if !ok {
			continue
		}
		doc, err := fs.ReadFile(skill.FS, "vibe/schemas/"+e.Name())
		if err != nil {
			continue
		}
		var head struct {
			Title string `json:"title"`
		}
		json.Unmarshal(doc, &head)
		top.AddCommand(newTopicCmd(name, head.Title, strings.TrimSpace(string(doc))))
		fmt.Fprintf(&list, "  vibe help schemas %-20s %s\n", name, head.Title)
	}
	readme, _ := fs.ReadFile(skill.FS, "vibe/schemas/README.md")
	top.Long = strings.TrimSpace(string(readme)) + "\n\nEach schema, as JSON:\n\n" + list.String()
	top.SetHelpTemplate("{{.Long | trimTrailingWhitespaces}}\n")
	return top
}
