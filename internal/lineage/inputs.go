package lineage

import (
	"github.com/vibe-science/vibe/internal/lazyre"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Bounds of what Classify and Capture read.
const (
	// maxScriptBytes bounds the script text read for inputs and seeds.
	maxScriptBytes = 1 << 20
	// MaxInputs bounds the input files a record names.
	MaxInputs = 64
	// MaxSeeds bounds the seeds a record names.
	MaxSeeds = 16
)

// quoted is a string literal of a script: "…" or '…' on one line.
var quoted = lazyre.New(`"([^"\n\\]{1,400})"|'([^'\n\\]{1,400})'`)

func readCapped(p string, limit int64) ([]byte, bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit))
	return b, err == nil
}

// namedInputs are the existing files a step names, absolute and sorted:
// its words after the program (an operand, an option's value, --in=FILE)
// resolved against its folder, and the string literals of its script or
// inline code resolved against its folder, the script's folder and each
// folder above it up to the root, then the root. The script itself and
// files modified since the call began (its outputs) are left out; at most
// MaxInputs.
func (c Call) namedInputs(st *Step, code string) []string {
	found := map[string]bool{}
	take := func(p string) {
		if p == "" || p == st.Script || found[p] || len(found) >= MaxInputs {
			return
		}
		info, err := os.Stat(p)
		if err != nil || !info.Mode().IsRegular() {
			return
		}
		if !c.Since.IsZero() && !info.ModTime().Before(c.Since) {
			return // written during the call: an output
		}
		found[p] = true
	}
	for _, a := range st.Argv[1:] {
		if strings.HasPrefix(a, "-") {
			if _, v, ok := strings.Cut(a, "="); ok {
				a = v
			} else {
				continue
			}
		}
		if a == "" || strings.Contains(a, "\x00") || !looksLikePath(a) {
			continue
		}
		take(joinUnder(st.Cwd, a))
	}
	dir := st.Cwd
	if st.Script != "" {
		dir = filepath.Dir(st.Script)
	}
	for _, m := range quoted.FindAllStringSubmatch(code, -1) {
		ref := m[1] + m[2]
		if !looksLikePath(ref) {
			continue
		}
		take(c.resolveRef(ref, st.Cwd, dir))
	}
	out := make([]string, 0, len(found))
	for p := range found {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// looksLikePath reports whether a word may name a file: it has an
// extension or a slash, and no blanks or format verbs.
func looksLikePath(s string) bool {
	if len(s) > 400 || strings.ContainsAny(s, " \t*?{}$%<>|") || strings.Contains(s, "://") {
		return false
	}
	return strings.Contains(s, "/") || filepath.Ext(s) != ""
}

// resolveRef finds a path a script names: absolute, or relative to cwd, to
// dir and each folder above it up to the root, then to the root. "" when
// none exists.
func (c Call) resolveRef(ref, cwd, dir string) string {
	ref = filepath.FromSlash(strings.TrimPrefix(ref, "./"))
	if filepath.IsAbs(ref) {
		if isFile(ref) {
			return ref
		}
		return ""
	}
	tries := []string{filepath.Join(cwd, ref)}
	for d := dir; d != ""; d = filepath.Dir(d) {
		tries = append(tries, filepath.Join(d, ref))
		if d == c.Root || !c.inProject(d) || filepath.Dir(d) == d {
			break
		}
	}
	if c.Root != "" {
		tries = append(tries, filepath.Join(c.Root, ref))
	}
	for _, p := range tries {
		if isFile(p) {
			return filepath.Clean(p)
		}
	}
	return ""
}

// seedPatterns find the random seeds a command or a script sets.
var seedPatterns = []*lazyre.Regexp{
	lazyre.New(`--(?:random[-_])?seed(?:=|\s+)[0-9]+`),
	lazyre.New(`--random[-_]state(?:=|\s+)[0-9]+`),
	lazyre.New(`\b(?:np|numpy|torch|torch\.cuda|tf|tensorflow|tf\.random|tensorflow\.random|random|mx\.random|jax\.random|cp\.random|cupy\.random|np\.random|numpy\.random)\.(?:seed|manual_seed|manual_seed_all|set_seed|set_random_seed|PRNGKey)\(\s*[0-9]+\s*\)`),
	lazyre.New(`\b(?:set\.seed|Random\.seed!|default_rng|RandomState|(?:random\.)?Random|seed_everything|set_random_seed|PRNGKey)\(\s*[0-9]+\s*\)`),
	lazyre.New(`\brandom_state\s*=\s*[0-9]+`),
	lazyre.New(`\b(?:seed|SEED|random_seed|RANDOM_SEED|rng_seed)\s*[=:]\s*[0-9]+`),
	lazyre.New(`"(?:seed|random_seed|random_state)"\s*:\s*[0-9]+`),
	lazyre.New(`\bPYTHONHASHSEED=[0-9]+`),
}

// Seeds finds the random seeds set in texts (a command, its script),
// each as written (--seed 42, random_state=0, np.random.seed(1),
// set.seed(7)), in order, without repeats, at most MaxSeeds.
func Seeds(texts ...string) []string {
	type hit struct {
		at   int
		text string
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range texts {
		var hits []hit
		for _, re := range seedPatterns {
			for _, loc := range re.FindAllStringIndex(t, -1) {
				hits = append(hits, hit{loc[0], t[loc[0]:loc[1]]})
			}
		}
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].at < hits[j].at })
		covered := -1
		for _, h := range hits {
			if h.at < covered {
				continue // inside a longer match (seed=1 in np.random.seed(1))
			}
			covered = h.at + len(h.text)
			s := strings.Join(strings.Fields(h.text), " ")
			if !seen[s] && len(out) < MaxSeeds {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}
