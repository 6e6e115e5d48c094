package lineage

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// envFileNames are the lock and environment files a record hashes, and
// envFileGlobs the patterns among them.
var (
	envFileNames = []string{"poetry.lock", "uv.lock", "Pipfile.lock", "pixi.lock", "environment.yml", "environment.yaml",
		"conda-lock.yml", "renv.lock", "Manifest.toml", "package-lock.json"}
	envFileGlobs = []string{"requirements*.txt"}
)

// envFiles finds the lock and environment files in the root, the step's
// folder, and the folders from the script's up to the root; paths are
// absolute and sorted.
func (c Call) envFiles(st *Step) []string {
	dirs := []string{c.Root, st.Cwd}
	if st.Script != "" {
		for d := filepath.Dir(st.Script); c.inProject(d); d = filepath.Dir(d) {
			dirs = append(dirs, d)
			if d == c.Root {
				break
			}
		}
	}
	found := map[string]bool{}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		for _, n := range envFileNames {
			if p := filepath.Join(d, n); isFile(p) {
				found[p] = true
			}
		}
		for _, g := range envFileGlobs {
			m, _ := filepath.Glob(filepath.Join(d, g))
			for _, p := range m {
				if isFile(p) {
					found[p] = true
				}
			}
		}
	}
	out := make([]string, 0, len(found))
	for p := range found {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// venvRunners run a command in the project's virtual environment.
var venvRunners = set("uv", "poetry", "pipenv", "pdm", "hatch", "rye", "pixi")

// interpreter finds the program a step ran: its path as given, the
// project's virtual environment when the call ran through uv run, poetry
// run or an activate script, else the program on PATH.
func (c Call) interpreter(st *Step, path string) string {
	name := st.Argv[0]
	if strings.Contains(name, "/") {
		return joinUnder(st.Cwd, name)
	}
	venv := false
	for _, r := range c.Runs {
		if len(r.Argv) == 0 {
			continue
		}
		p := filepath.Base(r.Argv[0])
		venv = venv || venvRunners[p] || (p == "source" || p == ".") && len(r.Argv) > 1 && strings.Contains(r.Argv[1], "activate")
	}
	if venv {
		for _, d := range []string{st.Cwd, c.Root} {
			for _, v := range []string{".venv", "venv", "env"} {
				if p := filepath.Join(d, v, "bin", name); isFile(p) {
					return p
				}
			}
		}
	}
	return lookPath(name, path)
}

// lookPath finds an executable on path (a PATH value; "" for this
// process's), "" when there is none.
func lookPath(name, path string) string {
	if path == "" {
		p, err := exec.LookPath(name)
		if err != nil {
			return ""
		}
		return p
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// probe is what an interpreter says of itself.
type probe struct {
	version, exe string
	sites        []string // where its packages are installed
	at           time.Time
}

// probes remembers each interpreter's answer for probeTTL, by its path and
// modification time: a hook process captures many records with one.
var (
	probesMu sync.Mutex
	probes   = map[string]probe{}
)

const probeTTL = 10 * time.Minute

// programTimeout bounds each program Capture runs.
const programTimeout = 10 * time.Second

func run(ctx context.Context, dir string, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, programTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.Stdin = nil
	err := cmd.Run()
	return out.Bytes(), err
}

// pythonProbe asks a Python interpreter its version, its real executable
// (a pyenv shim is a shell script) and its site-packages folders.
const pythonProbe = "import sys, site\nprint(sys.version.split()[0]); print(sys.executable)\n" +
	"for p in (site.getsitepackages() if hasattr(site, 'getsitepackages') else []) + [site.getusersitepackages()]: print(p)"

func probeOf(ctx context.Context, interp, program string, now time.Time) probe {
	info, err := os.Stat(interp)
	if err != nil {
		return probe{}
	}
	key := interp + "\x00" + strconv.FormatInt(info.ModTime().UnixNano(), 10)
	probesMu.Lock()
	p, ok := probes[key]
	probesMu.Unlock()
	if ok && now.Sub(p.at) < probeTTL {
		return p
	}
	p = probe{exe: interp, at: now}
	if pythonName.MatchString(strings.ToLower(program)) {
		out, err := run(ctx, "", interp, "-c", pythonProbe)
		if err == nil {
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(lines) >= 2 {
				p.version = "Python " + strings.TrimSpace(lines[0])
				p.exe = strings.TrimSpace(lines[1])
				for _, s := range lines[2:] {
					if s = strings.TrimSpace(s); s != "" {
						p.sites = append(p.sites, s)
					}
				}
			}
		}
	} else if out, err := run(ctx, "", interp, "--version"); err == nil || len(out) > 0 {
		line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		if len(line) > 200 {
			line = line[:200]
		}
		p.version = strings.TrimSpace(line)
	}
	probesMu.Lock()
	probes[key] = p
	probesMu.Unlock()
	return p
}

// freezeKey names an environment's package list: the interpreter and the
// modification times of the folders its packages are installed in, so an
// install or an upgrade makes a new key. Without such folders (R, an
// interpreter that did not answer) the key holds the day: the list is
// taken again at most daily.
func freezeKey(p probe, now time.Time) string {
	var b strings.Builder
	b.WriteString(p.exe)
	dated := false
	for _, s := range p.sites {
		if info, err := os.Stat(s); err == nil {
			b.WriteString("\x00" + s + "\x00" + strconv.FormatInt(info.ModTime().UnixNano(), 10))
			dated = true
		}
	}
	if !dated {
		b.WriteString("\x00" + now.UTC().Format("2006-01-02"))
	}
	return Sum([]byte(b.String()))
}

// rFreeze lists R's installed packages as name==version lines.
const rFreeze = `ip <- installed.packages()[, c("Package", "Version")]; cat(paste0(ip[, 1], "==", ip[, 2]), sep = "\n")`

// freeze takes the package list of an environment, once per environment
// (freezeKey) when cache is a folder: pip freeze for Python (uv pip freeze
// where pip is missing), R's installed packages for R. nil when it cannot
// be taken.
func freeze(ctx context.Context, p probe, program, cache, path string, now time.Time) []byte {
	lower := strings.ToLower(program)
	isPy := pythonName.MatchString(lower)
	isR := lower == "rscript" || lower == "r"
	if !isPy && !isR || p.exe == "" {
		return nil
	}
	key := freezeKey(p, now)
	var cached string
	if cache != "" {
		cached = filepath.Join(cache, "freeze-"+key[:32]+".txt")
		if b, err := os.ReadFile(cached); err == nil {
			return b
		}
	}
	var out []byte
	var err error
	switch {
	case isPy:
		out, err = run(ctx, "", p.exe, "-m", "pip", "freeze", "--all", "--disable-pip-version-check")
		if err != nil {
			if uv := lookPath("uv", path); uv != "" {
				out, err = run(ctx, "", uv, "pip", "freeze", "--python", p.exe)
			}
		}
	case isR:
		rs := p.exe
		if lower == "r" {
			rs = filepath.Join(filepath.Dir(p.exe), "Rscript")
		}
		out, err = run(ctx, "", rs, "-e", rFreeze)
	}
	if err != nil {
		return nil
	}
	out = normalizeFreeze(out)
	if cached != "" {
		if os.MkdirAll(cache, 0o700) == nil {
			tmp := cached + ".tmp"
			if os.WriteFile(tmp, out, 0o600) == nil {
				os.Rename(tmp, cached)
			}
		}
	}
	return out
}

// normalizeFreeze keeps the package lines, sorted.
func normalizeFreeze(out []byte) []byte {
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(strings.ToLower(l), "warning") {
			continue
		}
		lines = append(lines, l)
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return nil
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// Restore is the command that rebuilds an environment from one of its
// lock or environment files (relative to the project root), "" for a
// file it does not know.
func Restore(file string) string {
	base := filepath.Base(file)
	switch {
	case strings.HasPrefix(base, "requirements") && strings.HasSuffix(base, ".txt"):
		return "pip install -r " + file
	case base == "uv.lock":
		return "uv sync --frozen"
	case base == "poetry.lock":
		return "poetry install"
	case base == "Pipfile.lock":
		return "pipenv sync"
	case base == "pixi.lock":
		return "pixi install --frozen"
	case base == "environment.yml" || base == "environment.yaml":
		return "conda env create -f " + file
	case base == "conda-lock.yml":
		return "conda-lock install " + file
	case base == "renv.lock":
		return `Rscript -e 'renv::restore()'`
	case base == "Manifest.toml":
		return `julia --project=` + filepath.ToSlash(filepath.Dir(file)) + ` -e 'using Pkg; Pkg.instantiate()'`
	case base == "package-lock.json":
		return "npm ci"
	}
	return ""
}
