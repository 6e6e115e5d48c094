package brief

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strings"

	"github.com/vibe-science/vibe/internal/lazyre"
)

// Signature returns the normalised signature of symbol in src, a file of
// language lang ("go", "python" or "r"); ok is false when the symbol is not
// there, the file does not parse (Go), or the language is not supported. The
// forms and the normalisation are described in the package documentation.
func Signature(lang string, src []byte, symbol string) (sig string, ok bool) {
	sig, err := signature(lang, src, symbol)
	return sig, err == nil
}

func signature(lang string, src []byte, symbol string) (string, error) {
	switch lang {
	case LangGo:
		return goSignature(src, symbol)
	case LangPython:
		return pySignature(src, symbol)
	case LangR:
		return rSignature(src, symbol)
	}
	return "", fmt.Errorf("no signature reader for language %q: anchor the whole file instead", lang)
}

// Receiver constraints of a Go method symbol.
const (
	anyRecv = iota
	valueRecv
	pointerRecv
)

// splitGoSymbol reads "F", "T.M", "(T).M" or "(*T).M".
func splitGoSymbol(sym string) (recv, name string, kind int, err error) {
	bad := func() (string, string, int, error) {
		return "", "", 0, fmt.Errorf("the Go symbol %q is not Name, T.Method, (T).Method or (*T).Method", sym)
	}
	rest := sym
	kind = anyRecv
	if strings.HasPrefix(rest, "(") {
		end := strings.Index(rest, ").")
		if end < 0 {
			return bad()
		}
		recv, rest = rest[1:end], rest[end+2:]
		kind = valueRecv
		if strings.HasPrefix(recv, "*") {
			recv, kind = recv[1:], pointerRecv
		}
		name = rest
	} else if i := strings.IndexByte(rest, '.'); i >= 0 {
		recv, name = rest[:i], rest[i+1:]
	} else {
		name = rest
	}
	if !token.IsIdentifier(name) || (recv != "" && !token.IsIdentifier(recv)) || (kind != anyRecv && recv == "") {
		return bad()
	}
	return recv, name, kind, nil
}

func goSignature(src []byte, symbol string) (string, error) {
	recv, name, kind, err := splitGoSymbol(symbol)
	if err != nil {
		return "", err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		msg := err.Error()
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return "", fmt.Errorf("the file does not parse as Go (%s), so %s cannot be found", msg, symbol)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name != name {
				continue
			}
			if recv == "" {
				if d.Recv == nil {
					return goFunc(d), nil
				}
				continue
			}
			if d.Recv == nil || len(d.Recv.List) == 0 {
				continue
			}
			base, ptr := recvBase(d.Recv.List[0].Type)
			if base != recv || (kind == pointerRecv && !ptr) || (kind == valueRecv && ptr) {
				continue
			}
			return goFunc(d), nil
		case *ast.GenDecl:
			if recv != "" || d.Tok != token.TYPE {
				continue
			}
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == name {
					return goType(ts), nil
				}
			}
		}
	}
	if recv != "" {
		return "", fmt.Errorf("no method %s in the file", symbol)
	}
	return "", fmt.Errorf("no function or type %s in the file", symbol)
}

// recvBase returns the type name of a receiver and whether it is a pointer.
func recvBase(e ast.Expr) (string, bool) {
	ptr := false
	for {
		switch t := e.(type) {
		case *ast.ParenExpr:
			e = t.X
		case *ast.StarExpr:
			ptr, e = true, t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name, ptr
		default:
			return "", ptr
		}
	}
}

func goFunc(d *ast.FuncDecl) string {
	var b strings.Builder
	b.WriteString("func ")
	if d.Recv != nil && len(d.Recv.List) > 0 {
		b.WriteString("(")
		writeExpr(&b, d.Recv.List[0].Type)
		b.WriteString(") ")
	}
	b.WriteString(d.Name.Name)
	writeTypeParams(&b, d.Type.TypeParams)
	writeSig(&b, d.Type)
	return b.String()
}

func goType(ts *ast.TypeSpec) string {
	var b strings.Builder
	b.WriteString("type ")
	b.WriteString(ts.Name.Name)
	writeTypeParams(&b, ts.TypeParams)
	if ts.Assign.IsValid() {
		b.WriteString(" =")
	}
	b.WriteString(" ")
	writeExpr(&b, ts.Type)
	return b.String()
}

// writeTypeParams keeps type parameter names, since the other types refer
// to them, one name per constraint.
func writeTypeParams(b *strings.Builder, tp *ast.FieldList) {
	if tp == nil || len(tp.List) == 0 {
		return
	}
	b.WriteString("[")
	first := true
	for _, f := range tp.List {
		for _, n := range f.Names {
			if !first {
				b.WriteString(", ")
			}
			first = false
			b.WriteString(n.Name)
			b.WriteString(" ")
			writeExpr(b, f.Type)
		}
	}
	b.WriteString("]")
}

// writeSig writes "(params) results" with the names dropped.
func writeSig(b *strings.Builder, ft *ast.FuncType) {
	b.WriteString("(")
	writeTypes(b, ft.Params)
	b.WriteString(")")
	n := count(ft.Results)
	switch {
	case n == 1:
		b.WriteString(" ")
		writeTypes(b, ft.Results)
	case n > 1:
		b.WriteString(" (")
		writeTypes(b, ft.Results)
		b.WriteString(")")
	}
}

func count(fl *ast.FieldList) int {
	if fl == nil {
		return 0
	}
	n := 0
	for _, f := range fl.List {
		n += max(1, len(f.Names))
	}
	return n
}

// writeTypes writes one type per parameter: "a, b int" is "int, int".
func writeTypes(b *strings.Builder, fl *ast.FieldList) {
	if fl == nil {
		return
	}
	first := true
	for _, f := range fl.List {
		for range max(1, len(f.Names)) {
			if !first {
				b.WriteString(", ")
			}
			first = false
			writeExpr(b, f.Type)
		}
	}
}

// writeExpr renders a type expression compactly and independently of the
// source layout (go/printer follows the original line breaks).
func writeExpr(b *strings.Builder, e ast.Expr) {
	switch t := e.(type) {
	case nil:
	case *ast.Ident:
		b.WriteString(t.Name)
	case *ast.BasicLit:
		b.WriteString(t.Value)
	case *ast.SelectorExpr:
		writeExpr(b, t.X)
		b.WriteString(".")
		b.WriteString(t.Sel.Name)
	case *ast.StarExpr:
		b.WriteString("*")
		writeExpr(b, t.X)
	case *ast.ParenExpr:
		b.WriteString("(")
		writeExpr(b, t.X)
		b.WriteString(")")
	case *ast.Ellipsis:
		b.WriteString("...")
		writeExpr(b, t.Elt)
	case *ast.ArrayType:
		b.WriteString("[")
		writeExpr(b, t.Len)
		b.WriteString("]")
		writeExpr(b, t.Elt)
	case *ast.MapType:
		b.WriteString("map[")
		writeExpr(b, t.Key)
		b.WriteString("]")
		writeExpr(b, t.Value)
	case *ast.ChanType:
		switch t.Dir {
		case ast.SEND:
			b.WriteString("chan<- ")
		case ast.RECV:
			b.WriteString("<-chan ")
		default:
			b.WriteString("chan ")
		}
		writeExpr(b, t.Value)
	case *ast.FuncType:
		b.WriteString("func")
		writeSig(b, t)
	case *ast.StructType:
		b.WriteString("struct{")
		writeFields(b, t.Fields, false)
		b.WriteString("}")
	case *ast.InterfaceType:
		b.WriteString("interface{")
		writeFields(b, t.Methods, true)
		b.WriteString("}")
	case *ast.IndexExpr:
		writeExpr(b, t.X)
		b.WriteString("[")
		writeExpr(b, t.Index)
		b.WriteString("]")
	case *ast.IndexListExpr:
		writeExpr(b, t.X)
		b.WriteString("[")
		for i, x := range t.Indices {
			if i > 0 {
				b.WriteString(", ")
			}
			writeExpr(b, x)
		}
		b.WriteString("]")
	case *ast.UnaryExpr:
		b.WriteString(t.Op.String())
		writeExpr(b, t.X)
	case *ast.BinaryExpr:
		writeExpr(b, t.X)
		b.WriteString(" " + t.Op.String() + " ")
		writeExpr(b, t.Y)
	case *ast.CallExpr:
		writeExpr(b, t.Fun)
		b.WriteString("(")
		for i, a := range t.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			writeExpr(b, a)
		}
		b.WriteString(")")
	default:
		fmt.Fprintf(b, "%T", e)
	}
}

// writeFields renders struct fields ("A int; B int", tags dropped) or
// interface elements ("M(int) error; io.Reader").
func writeFields(b *strings.Builder, fl *ast.FieldList, iface bool) {
	if fl == nil {
		return
	}
	first := true
	sep := func() {
		if !first {
			b.WriteString("; ")
		}
		first = false
	}
	for _, f := range fl.List {
		if len(f.Names) == 0 {
			sep()
			writeExpr(b, f.Type)
			continue
		}
		for _, n := range f.Names {
			sep()
			b.WriteString(n.Name)
			if ft, ok := f.Type.(*ast.FuncType); ok && iface {
				writeSig(b, ft)
				continue
			}
			b.WriteString(" ")
			writeExpr(b, f.Type)
		}
	}
}

// errNoHeader is a def or function whose header never closes.
var errNoHeader = errors.New("the function header never closes")

var (
	pyIdent = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)
	rIdent  = lazyre.New(`^[A-Za-z.][A-Za-z0-9._]*$`)
)

func validScriptSymbol(lang, sym string) bool {
	if lang == LangPython {
		return pyIdent.MatchString(sym)
	}
	return rIdent.MatchString(sym)
}

func pySignature(src []byte, symbol string) (string, error) {
	if !pyIdent.MatchString(symbol) {
		return "", fmt.Errorf("the Python symbol %q is not name or Class.method", symbol)
	}
	s := strings.ReplaceAll(string(src), "\r\n", "\n")
	lo, hi, indent := 0, len(s), ""
	name := symbol
	if cls, meth, ok := strings.Cut(symbol, "."); ok {
		var err error
		lo, hi, indent, err = pyClassBody(s, cls)
		if err != nil {
			return "", err
		}
		name = meth
	}
	re := lazyre.New(`(?m)^` + regexp.QuoteMeta(indent) + `(?:async[ \t]+)?def[ \t]+` + regexp.QuoteMeta(name) + `[ \t]*\(`)
	loc := re.FindStringIndex(s[lo:hi])
	if loc == nil {
		return "", fmt.Errorf("no def %s in the file", symbol)
	}
	start, open := lo+loc[0]+len(indent), lo+loc[1]-1
	end, ok := scanParens(s, open, LangPython)
	if !ok {
		return "", errNoHeader
	}
	// After the parameters: an optional "-> annotation", then ":".
	i := skipBlank(s, end, LangPython)
	if strings.HasPrefix(s[i:], "->") {
		j, ok := scanUntilColon(s, i+2)
		if !ok {
			return "", errNoHeader
		}
		end, i = j, j
	}
	if i >= len(s) || s[i] != ':' {
		return "", fmt.Errorf("def %s has no ':' after its parameters", symbol)
	}
	return normalize(s[start:end], LangPython), nil
}

// pyClassBody finds a column-0 class and returns the byte range of its body
// and the body's indentation.
func pyClassBody(s, cls string) (lo, hi int, indent string, err error) {
	re := lazyre.New(`(?m)^class[ \t]+` + regexp.QuoteMeta(cls) + `[ \t]*[(:]`)
	loc := re.FindStringIndex(s)
	if loc == nil {
		return 0, 0, "", fmt.Errorf("no class %s at the top level of the file", cls)
	}
	i := loc[1] - 1
	if s[i] == '(' {
		end, ok := scanParens(s, i, LangPython)
		if !ok {
			return 0, 0, "", errNoHeader
		}
		i = skipBlank(s, end, LangPython)
	}
	if i >= len(s) || s[i] != ':' {
		return 0, 0, "", fmt.Errorf("class %s has no ':' after its header", cls)
	}
	// The body starts on the line after the header; a class whose body sits
	// on the header line has no methods to anchor.
	nl := strings.IndexByte(s[i:], '\n')
	if nl < 0 {
		return 0, 0, "", fmt.Errorf("class %s has no body", cls)
	}
	lo = i + nl + 1
	hi = len(s)
	for pos := lo; pos < len(s); {
		lineEnd := strings.IndexByte(s[pos:], '\n')
		if lineEnd < 0 {
			lineEnd = len(s) - pos
		}
		line := s[pos : pos+lineEnd]
		body := strings.TrimLeft(line, " \t")
		if body != "" && !strings.HasPrefix(body, "#") {
			ind := line[:len(line)-len(body)]
			if ind == "" {
				hi = pos
				break
			}
			if indent == "" {
				indent = ind
			}
		}
		pos += lineEnd + 1
	}
	if indent == "" {
		return 0, 0, "", fmt.Errorf("class %s has no body", cls)
	}
	return lo, hi, indent, nil
}

func rSignature(src []byte, symbol string) (string, error) {
	if !rIdent.MatchString(symbol) {
		return "", fmt.Errorf("the R symbol %q is not a function name", symbol)
	}
	s := strings.ReplaceAll(string(src), "\r\n", "\n")
	q := regexp.QuoteMeta(symbol)
	re := lazyre.New("(?m)^([ \\t]*)(?:" + q + "|`" + q + "`)[ \\t]*(?:<<-|<-|=)[ \\t]*(?:function|\\\\)[ \\t]*\\(")
	all := re.FindAllStringSubmatchIndex(s, -1)
	if all == nil {
		return "", fmt.Errorf("no function %s <- function(...) in the file", symbol)
	}
	loc := all[0]
	for _, m := range all {
		if m[3] == m[2] { // empty indentation: a top-level definition
			loc = m
			break
		}
	}
	open := loc[1] - 1
	end, ok := scanParens(s, open, LangR)
	if !ok {
		return "", errNoHeader
	}
	return symbol + " <- function" + normalize(s[open:end], LangR), nil
}

// scanParens returns the index just past the ")" that closes the bracket at
// s[open], skipping strings and comments.
func scanParens(s string, open int, lang string) (int, bool) {
	depth := 0
	for i := open; i < len(s); {
		c := s[i]
		switch {
		case c == '#':
			i = lineEnd(s, i)
			continue
		case isQuote(c, lang):
			i = skipString(s, i, lang)
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
		i++
	}
	return 0, false
}

// scanUntilColon returns the index of the first ":" at bracket depth 0.
func scanUntilColon(s string, i int) (int, bool) {
	depth := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '#':
			i = lineEnd(s, i)
			continue
		case isQuote(c, LangPython):
			i = skipString(s, i, LangPython)
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ':' && depth <= 0:
			return i, true
		case c == '\n' && depth <= 0 && (i == 0 || s[i-1] != '\\'):
			return 0, false
		}
		i++
	}
	return 0, false
}

// skipBlank skips spaces, line continuations and comments.
func skipBlank(s string, i int, lang string) int {
	for i < len(s) {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i += 2
		case c == '#' && lang == LangR:
			i = lineEnd(s, i)
		default:
			return i
		}
	}
	return i
}

func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

func isQuote(c byte, lang string) bool {
	return c == '"' || c == '\'' || (c == '`' && lang == LangR)
}

// skipString returns the index just past the string literal at s[i],
// honouring backslash escapes and Python's triple quotes. An unterminated
// string runs to the end of the source.
func skipString(s string, i int, lang string) int {
	q := s[i]
	if lang == LangPython && strings.HasPrefix(s[i:], strings.Repeat(string(q), 3)) {
		delim := strings.Repeat(string(q), 3)
		for j := i + 3; j < len(s); j++ {
			if s[j] == '\\' {
				j++
				continue
			}
			if strings.HasPrefix(s[j:], delim) {
				return j + 3
			}
		}
		return len(s)
	}
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n':
			if lang == LangPython {
				return j // a one-line string cannot span lines
			}
		}
	}
	return len(s)
}

func isWord(c byte, lang string) bool {
	return c == '_' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		(c == '.' && lang == LangR)
}

// normalize renders a header in the canonical form of the package
// documentation: no comments or line breaks, whitespace only between two
// word characters, ", " after commas, no comma before a closing bracket.
func normalize(h, lang string) string {
	var out []byte
	space, comma := false, false
	emit := func(tok string) {
		first := tok[0]
		if comma {
			if first == ')' || first == ']' || first == '}' {
				out = out[:len(out)-1]
			} else {
				out = append(out, ' ')
			}
			comma, space = false, false
		}
		if space && len(out) > 0 && isWord(out[len(out)-1], lang) && isWord(first, lang) {
			out = append(out, ' ')
		}
		space = false
		out = append(out, tok...)
	}
	for i := 0; i < len(h); {
		c := h[i]
		switch {
		case c == '#':
			i = lineEnd(h, i)
		case c == '\\' && i+1 < len(h) && h[i+1] == '\n':
			i += 2
			space = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
			space = true
		case isQuote(c, lang):
			j := skipString(h, i, lang)
			emit(h[i:j])
			i = j
		case c == ',':
			emit(",")
			comma = true
			i++
		default:
			emit(h[i : i+1])
			i++
		}
	}
	if comma {
		out = out[:len(out)-1]
	}
	return string(out)
}
