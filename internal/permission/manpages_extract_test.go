package permission

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// extractManPages regenerates testdata/manpages.jsonl from the man pages
// of the Debian packages (.deb files) in a folder; testdata/manpages.md
// says which and how:
//
//	go test -run TestExtractManPages ./internal/permission -args -extract-manpages=/tmp/debs
var extractManPages = flag.String("extract-manpages", "", "rewrite testdata/manpages.jsonl from the man pages of the .deb files in this folder")

// manCommand is one line of testdata/manpages.jsonl: a shell command as a
// man page's EXAMPLES section prints it, with where it came from.
type manCommand struct {
	ID      string `json:"id"`
	Page    string `json:"page"`    // "find(1)"
	Package string `json:"package"` // the Debian package and version that ships the page
	Command string `json:"command"`
}

// manDeb is what the generator reads from one package: its man pages (of
// sections 1 and 8) and the programs it installs.
type manDeb struct {
	pkg      string // "findutils 4.9.0-4"
	pages    map[string][]byte
	programs []string
}

// TestExtractManPages rewrites testdata/manpages.jsonl when asked to. It
// is not a check: the corpus is committed, so the tests never depend on
// the pages a machine happens to have.
func TestExtractManPages(t *testing.T) {
	if *extractManPages == "" {
		t.Skip("run with -args -extract-manpages=DIR to rewrite testdata/manpages.jsonl from the .deb files in DIR")
	}
	files, _ := filepath.Glob(filepath.Join(*extractManPages, "*.deb"))
	var debs []manDeb
	known := map[string]bool{}
	for _, f := range files {
		d, err := readDeb(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		debs = append(debs, d)
		for _, p := range d.programs {
			known[p] = true
		}
	}
	sort.Slice(debs, func(i, j int) bool { return debs[i].pkg < debs[j].pkg })
	var out bytes.Buffer
	seen := map[string]bool{}
	perPkg := map[string]int{}
	n, pages := 0, 0
	for _, d := range debs {
		names := make([]string, 0, len(d.pages))
		for name := range d.pages {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			src := string(d.pages[name])
			if strings.HasPrefix(src, ".so ") {
				continue // a link to another page
			}
			pages++
			base := strings.TrimSuffix(name, ".gz")
			i := strings.LastIndexByte(base, '.')
			if i < 0 {
				continue
			}
			prog, page := base[:i], base[:i]+"("+base[i+1:]+")"
			k := 0
			for _, cmd := range manPageExamples(src, prog, known) {
				if seen[cmd] {
					continue
				}
				seen[cmd] = true
				k++
				n++
				perPkg[strings.Fields(d.pkg)[0]]++
				line, _ := json.Marshal(manCommand{ID: fmt.Sprintf("%s.%s-%d", prog, base[i+1:], k), Page: page, Package: d.pkg, Command: cmd})
				out.Write(line)
				out.WriteByte('\n')
			}
		}
	}
	if err := os.WriteFile("testdata/manpages.jsonl", out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for k, v := range perPkg {
		pkgs = append(pkgs, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(pkgs)
	t.Logf("%d commands from %d pages of %d packages; per package: %s", n, pages, len(debs), strings.Join(pkgs, ", "))
}

// readDeb lists a .deb's man pages and programs with dpkg-deb.
func readDeb(path string) (manDeb, error) {
	meta, err := exec.Command("dpkg-deb", "-f", path, "Package", "Version").Output()
	if err != nil {
		return manDeb{}, fmt.Errorf("dpkg-deb -f: %w", err)
	}
	fields := map[string]string{}
	for _, l := range strings.Split(string(meta), "\n") {
		if k, v, ok := strings.Cut(l, ": "); ok {
			fields[k] = v
		}
	}
	d := manDeb{pkg: fields["Package"] + " " + fields["Version"], pages: map[string][]byte{}}
	tarball, err := exec.Command("dpkg-deb", "--fsys-tarfile", path).Output()
	if err != nil {
		return manDeb{}, fmt.Errorf("dpkg-deb --fsys-tarfile: %w", err)
	}
	tr := tar.NewReader(bytes.NewReader(tarball))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return manDeb{}, err
		}
		name := strings.TrimPrefix(h.Name, "./")
		dir, base := filepath.Split(name)
		switch dir {
		case "usr/bin/", "usr/sbin/", "bin/", "sbin/":
			d.programs = append(d.programs, base)
		case "usr/share/man/man1/", "usr/share/man/man7/", "usr/share/man/man8/":
			if h.Typeflag != tar.TypeReg {
				continue
			}
			raw, err := io.ReadAll(io.LimitReader(tr, 4<<20))
			if err != nil {
				return manDeb{}, err
			}
			if strings.HasSuffix(base, ".gz") {
				gz, err := gzip.NewReader(bytes.NewReader(raw))
				if err != nil {
					continue
				}
				if raw, err = io.ReadAll(io.LimitReader(gz, 4<<20)); err != nil {
					continue
				}
			}
			d.pages[base] = raw
		}
	}
	return d, nil
}

var (
	manHeading    = regexp.MustCompile(`^\.(SH|Sh|SS|Ss)\s+(.*)$`)
	manPlaceholde = regexp.MustCompile(`<[A-Za-z][A-Za-z0-9_ .-]*>|\[[A-Z][A-Z_ -]*\]|\.\.\.|…|\[OPTIONS?\]|\bSOURCE\.\.\.`)
	manPrompt     = regexp.MustCompile(`^(\$|%|#|>|[A-Za-z0-9_@.-]*[$#%])\s+`)
)

// manPageExamples returns the commands of a page's EXAMPLES section: the
// lines of its literal blocks (.nf/.EX/.Bd, .Dl) and the lines set wholly
// in bold, with prompts removed, that start with a program installed here
// (or the page's own) and parse as shell.
func manPageExamples(src, prog string, known map[string]bool) []string {
	src = strings.ReplaceAll(src, "\\\n", "") // roff's escaped newline joins lines
	var out []string
	in, literal := false, false
	var pending strings.Builder // a command continued with a trailing backslash
	flush := func(line string, literalLine bool) {
		if pending.Len() > 0 {
			line = pending.String() + " " + strings.TrimSpace(line)
			pending.Reset()
		}
		if strings.HasSuffix(line, "\\") && literalLine {
			pending.WriteString(strings.TrimSuffix(line, "\\"))
			return
		}
		if cmd, ok := manCommandLine(line, prog, known); ok {
			out = append(out, cmd)
		}
	}
	for _, raw := range strings.Split(src, "\n") {
		if m := manHeading.FindStringSubmatch(raw); m != nil {
			if m[1] == "SH" || m[1] == "Sh" {
				title := strings.ToUpper(strings.Trim(strings.TrimSpace(m[2]), `"`))
				in = strings.Contains(title, "EXAMPLE")
				literal = false
				pending.Reset()
			}
			continue
		}
		if !in {
			continue
		}
		if strings.HasPrefix(raw, ".") || strings.HasPrefix(raw, "'") {
			name, rest, _ := strings.Cut(strings.TrimSpace(raw[1:]), " ")
			switch name {
			case "nf", "EX", "Bd", "Vb":
				literal = true
				continue
			case "fi", "EE", "Ed", "Ve":
				literal = false
				pending.Reset()
				continue
			case "Dl", "D1":
				flush(mdocText(rest), true)
				continue
			case "B":
				flush(roffText(unquoteRoff(rest)), literal)
				continue
			case "BR", "BI", "RB", "IB", "I", "IR", "RI":
				if literal {
					flush(roffText(alternating(rest)), true)
				}
				continue
			}
			continue
		}
		if literal {
			flush(roffText(raw), true)
			continue
		}
		// A line set wholly in bold outside a literal block (git's pages).
		t := strings.TrimSpace(raw)
		if strings.HasPrefix(t, `\fB`) && (strings.HasSuffix(t, `\fR`) || strings.HasSuffix(t, `\fP`)) &&
			strings.Count(t, `\fB`) == 1 {
			flush(roffText(t), false)
		}
	}
	return out
}

// manCommandLine decides whether one line of an example is a command.
func manCommandLine(line, prog string, known map[string]bool) (string, bool) {
	line = strings.TrimSpace(line)
	prompted := false
	if m := manPrompt.FindString(line); m != "" {
		line = strings.TrimSpace(line[len(m):])
		prompted = true
	}
	if line == "" || len(line) > 400 || manPlaceholde.MatchString(line) || strings.ContainsAny(line, "\x00\t") {
		return "", false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil || len(f.Stmts) == 0 {
		return "", false
	}
	var first string
	syntax.Walk(f.Stmts[0], func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && first == "" && len(c.Args) > 0 {
			first = c.Args[0].Lit()
			return false
		}
		return first == ""
	})
	if first == "" {
		return "", false
	}
	if strings.Contains(first, "/") && !known[filepath.Base(first)] {
		return "", false // "edit/build/test" is prose, /bin/rm a program
	}
	name := filepath.Base(first)
	switch {
	case name == prog:
	case shellBuiltinNames[name]:
		if !prompted {
			return "", false
		}
	case known[name]:
	default:
		return "", false
	}
	// A line of prose that happens to start with a program's name has
	// words no command takes: demand something a command line has.
	if !prompted && name != prog && !strings.ContainsAny(line, "-/.|<>=$*'\"") {
		return "", false
	}
	return line, true
}

var shellBuiltinNames = setOf("cd", "echo", "printf", "for", "while", "if", "export", "set", "read",
	"test", "[", "eval", "exec", "source", ".", "ulimit", "umask", "kill", "time", "case", "alias")

// roffText turns a line of roff text into what it prints: font changes
// dropped, escapes decoded.
func roffText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch n := s[i]; n {
		case 'f':
			// \fB, \fR, \f(CW, \f[CR]
			if i+1 < len(s) {
				switch s[i+1] {
				case '(':
					i += 3
				case '[':
					if j := strings.IndexByte(s[i+1:], ']'); j >= 0 {
						i += j + 1
					}
				default:
					i++
				}
			}
		case '-':
			b.WriteByte('-')
		case 'e', '\\':
			b.WriteByte('\\')
		case '&', '|', '^', ')', 'c':
		case ' ', '~', '0':
			b.WriteByte(' ')
		case '.':
			b.WriteByte('.')
		case '\'':
			b.WriteByte('\'')
		case '`':
			b.WriteByte('`')
		case '(':
			if i+2 < len(s) {
				b.WriteString(roffGlyph(s[i+1 : i+3]))
				i += 2
			}
		case '[':
			if j := strings.IndexByte(s[i+1:], ']'); j >= 0 {
				b.WriteString(roffGlyph(s[i+1 : i+1+j]))
				i += j + 1
			}
		case '*':
			// \*(Aq, \*[..], \*x: strings; the common ones are quotes.
			if i+1 < len(s) {
				switch s[i+1] {
				case '(':
					if i+3 < len(s) {
						b.WriteString(roffGlyph(s[i+2 : i+4]))
						i += 3
					}
				case '[':
					if j := strings.IndexByte(s[i+1:], ']'); j >= 0 {
						b.WriteString(roffGlyph(s[i+2 : i+1+j]))
						i += j + 1
					}
				default:
					i++
				}
			}
		default:
			b.WriteByte(n)
		}
	}
	return b.String()
}

func roffGlyph(name string) string {
	switch name {
	case "aq", "Aq", "cq", "oq":
		return "'"
	case "dq", "lq", "rq", "Lq", "Rq":
		return `"`
	case "ga":
		return "`"
	case "ti", "ap":
		return "~"
	case "ha", "a^":
		return "^"
	case "rs":
		return `\`
	case "em", "en", "hy", "mi":
		return "-"
	case "bu":
		return "*"
	case "sl":
		return "/"
	case "ba", "or":
		return "|"
	case "lB", "Lb":
		return "["
	case "rB", "Rb":
		return "]"
	case "lC":
		return "{"
	case "rC":
		return "}"
	case "la":
		return "<"
	case "ra":
		return ">"
	}
	return "\x00" // unknown glyph: the line is dropped
}

// unquoteRoff joins a macro's arguments, keeping quoted ones whole.
func unquoteRoff(s string) string {
	args := roffArgs(s)
	return strings.Join(args, " ")
}

// alternating renders .BR and friends: arguments joined without spaces.
func alternating(s string) string { return strings.Join(roffArgs(s), "") }

func roffArgs(s string) []string {
	var args []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' {
			end := 1
			for end < len(s) && !(s[end] == '"' && (end+1 >= len(s) || s[end+1] != '"')) {
				if s[end] == '"' {
					end++
				}
				end++
			}
			args = append(args, strings.ReplaceAll(s[1:min(end, len(s))], `""`, `"`))
			s = s[min(end+1, len(s)):]
			continue
		}
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			i = len(s)
		}
		args = append(args, s[:i])
		s = s[i:]
	}
	return args
}

// mdocText renders an mdoc .Dl line: its macros (Nm, Fl, Ar, Pa, Cm, ...)
// become the words they print.
func mdocText(s string) string {
	var words []string
	flag := false
	for _, w := range roffArgs(s) {
		switch w {
		case "Nm", "Ar", "Pa", "Cm", "Li", "Ql", "Ev", "Va", "Sy", "Em", "No", "Ns", "Xo", "Xc", "Ic":
			continue
		case "Fl":
			flag = true
			continue
		case "Dq", "Sq", "Qq", "Op", "Oo", "Oc", "Bq", "Pq":
			return "\x00" // quoting macros change the text: not rendered here
		}
		if flag {
			w = "-" + w
			flag = false
		}
		words = append(words, roffText(w))
	}
	return strings.Join(words, " ")
}
