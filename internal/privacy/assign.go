package privacy

import (
	"math"
	"strings"
)

// Assignments: a value given a name that says it is a secret, in the forms
// people write them and gitleaks' rules leave out or judge by entropy
// alone: NAME=value on a command line, `name: value` in YAML and headers,
// "name": "value" in JSON, typed declarations (`var xToken string = "…"`,
// `x_token: str = "…"`, `val xToken: String = "…"`), Go's :=, Make's ?=
// and +=, PHP's .= and ??=, R's <-, XML elements (<xToken>…</xToken>),
// name/value pairs (<add key="ApiKey" value="…"/>, {"name": "API_KEY",
// "value": "…"}, a Kubernetes env list), calls (setProperty("X_TOKEN",
// "…")), flags (--api-key …) and CSV (xToken,…). The operator and the
// quotes stay; only the value is replaced.
//
// The name decides (nameClass): a password, passphrase, secret or
// credential, an API, access, private or auth key or token, is "strong"
// and any literal value goes; a bare token, key, auth, cookie or
// signature is "weak" and its value goes only when it looks like a
// credential (credentialLike), so `key = "sample_id"` stays; and a name
// that describes the secret rather than holding it (max_tokens,
// token_count, pad_token, password_file, key_size, tokenizer) is none. A
// value that refers to a secret kept elsewhere (${VAR}, os.environ[…],
// getpass(), settings.API_KEY, a template's {token}) stays.

// stems start the words a secret's name holds; the scan looks for them.
var stems = []string{"pass", "pwd", "secret", "token", "key", "cred", "auth", "cookie", "sig"}

// assignSpans are the values named as secrets in s.
func assignSpans(s string) []span {
	var out []span
	done := -1 // the end of the last name looked at
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c != 'p' && c != 's' && c != 't' && c != 'k' && c != 'c' && c != 'a' {
			continue
		}
		hit := false
		for _, st := range stems {
			if hasPrefixFold(s[i:], st) {
				hit = true
				break
			}
		}
		if !hit || i < done {
			continue
		}
		a, b := nameBounds(s, i)
		done = b
		if a == b {
			continue
		}
		class := nameClass(s[a:b])
		if class == none {
			continue
		}
		if sp, ok := assignedValue(s, a, b, class); ok {
			out = append(out, sp)
			done = sp.to
		}
	}
	return out
}

// nameChar is a byte of a name: letters, digits, _ . - and $ or @ (PHP
// and shell variables, Ruby's instance variables) in front.
func nameChar(c byte) bool {
	return isAlnum(c) || c == '_' || c == '.' || c == '-'
}

// nameBounds is the name around s[i].
func nameBounds(s string, i int) (int, int) {
	a := i
	for a > 0 && nameChar(s[a-1]) {
		a--
	}
	if a > 0 && (s[a-1] == '$' || s[a-1] == '@') {
		a--
	}
	b := i
	for b < len(s) && nameChar(s[b]) {
		b++
	}
	// A name does not end in a dot or a dash (a sentence's full stop).
	for b > i && (s[b-1] == '.' || s[b-1] == '-') {
		b--
	}
	return a, b
}

type class int

const (
	none class = iota
	weak
	strong
)

// describes are words that make a name describe a secret rather than hold
// one: sizes and counts, places and formats, a model's special tokens.
var describes = map[string]bool{
	"count": true, "counts": true, "num": true, "number": true, "n": true, "len": true, "length": true,
	"size": true, "max": true, "min": true, "limit": true, "budget": true, "total": true,
	"file": true, "files": true, "path": true, "dir": true, "folder": true, "env": true, "var": true,
	"name": true, "names": true, "type": true, "kind": true, "format": true, "field": true, "column": true,
	"col": true, "prompt": true, "url": true, "uri": true, "endpoint": true, "host": true, "header": true,
	"prefix": true, "suffix": true, "pattern": true, "regex": true, "policy": true, "rounds": true,
	"algo": true, "algorithm": true, "method": true, "mode": true, "ttl": true, "timeout": true,
	"expiry": true, "expires": true, "expiration": true, "lifetime": true, "index": true, "idx": true,
	"pos": true, "position": true, "id": true, "ids": true, "rate": true, "per": true, "window": true,
	"ratio": true, "dim": true, "dims": true, "dimension": true, "embedding": true, "embeddings": true,
	"embed": true, "vocab": true, "schema": true, "strategy": true, "level": true, "pad": true,
	"bos": true, "eos": true, "unk": true, "sep": true, "cls": true, "mask": true, "special": true,
	"start": true, "end": true, "stop": true, "new": true, "tokens": true, "tokenizer": true,
	"label": true, "labels": true, "map": true, "mapping": true, "dict": true, "list": true, "fn": true,
	"func": true, "function": true, "class": true, "attr": true, "arg": true, "args": true, "param": true,
	"params": true, "location": true, "store": true, "provider": true, "source": true, "ref": true,
	"hint": true, "help": true, "description": true, "desc": true, "doc": true, "title": true,
	"text": true, "message": true, "msg": true, "error": true, "err": true, "required": true,
	"enabled": true, "enable": true, "disable": true, "disabled": true, "use": true, "show": true,
	"is": true, "has": true, "check": true, "verify": true, "strength": true, "reset": true,
	"weight": true, "weights": true, "primary": true, "foreign": true, "sort": true, "partition": true,
	"group": true, "join": true, "order": true, "by": true, "cache": true, "lookup": true, "hot": true,
	"board": true, "word": true, "words": true, "up": true, "down": true, "left": true, "right": true,
	"press": true, "pressed": true, "code": true, "public": true, "pub": true, "csrf": true,
	"xsrf": true, "bucket": true, "hash": true, "digest": true, "checksum": true, "query": true,
	"q": true, "k": true, "v": true, "proj": true, "projection": true, "head": true, "heads": true,
	"layer": true, "layers": true, "value": true, "values": true, "pair": true, "pairs": true,
	"ring": true, "store_type": true, "storetype": true, "alias": true, "version": true, "author": true,
	"frame": true, "frames": true, "signal": true, "step": true, "steps": true, "idle": true,
	"interval": true, "retries": true, "retry": true,
}

// strongWords hold a secret whatever else the name says.
var strongWords = map[string]bool{
	"password": true, "passwd": true, "passphrase": true, "pwd": true, "pass": true, "secret": true,
	"credential": true, "credentials": true, "creds": true, "cred": true,
}

// keyOwners make the key or token after them a credential (api_key,
// AccessToken, private-key).
var keyOwners = map[string]bool{
	"api": true, "access": true, "secret": true, "private": true, "auth": true, "refresh": true,
	"bearer": true, "session": true, "bot": true, "account": true, "signing": true, "master": true,
	"encryption": true, "app": true, "consumer": true, "client": true, "personal": true, "oauth": true,
	"service": true, "admin": true, "deploy": true, "license": true, "webhook": true, "x": true,
}

// weakWords may hold a secret; their value must look like one.
var weakWords = map[string]bool{
	"token": true, "key": true, "auth": true, "oauth": true, "authorization": true, "cookie": true,
	"sig": true, "signature": true, "apikey": true, "sas": true,
}

// notSecret are words ending like a secret word that are not one.
var notSecret = map[string]bool{
	"monkey": true, "donkey": true, "turkey": true, "hockey": true, "jockey": true, "whiskey": true,
	"lackey": true, "hotkey": true, "passkey": true, "bypass": true, "compass": true, "subkey": true,
}

// nameClass judges a name by its words (split at _ . - and case changes).
func nameClass(name string) class {
	ws := words(name)
	best := none
	for i, w := range ws {
		if describes[w] {
			return none
		}
		c := wordClass(w)
		if c == weak && i > 0 && keyOwners[ws[i-1]] && (w == "key" || w == "token" || w == "secret") {
			c = strong
		}
		best = max(best, c)
	}
	return best
}

// wordClass judges one lower-case word, compounds included (apikey,
// dbpassword, mytoken).
func wordClass(w string) class {
	switch {
	case notSecret[w]:
		return none
	case strongWords[w]:
		return strong
	case weakWords[w]:
		return weak
	}
	for _, sfx := range []string{"password", "passwd", "secret", "pwd"} {
		if strings.HasSuffix(w, sfx) {
			return strong
		}
	}
	for _, sfx := range []string{"token", "key"} {
		if p, ok := strings.CutSuffix(w, sfx); ok {
			if keyOwners[p] {
				return strong
			}
			if len(p) >= 2 {
				return weak
			}
		}
	}
	if strings.HasPrefix(w, "password") || strings.HasPrefix(w, "passwd") {
		return strong
	}
	return none
}

// words splits a name into lower-case words at non-letters and case
// changes (APIKey: api key; xToken: x token).
func words(name string) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToLower(name[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isAlnum(c) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		p := name[i-1]
		upper := c >= 'A' && c <= 'Z'
		switch {
		case upper && p >= 'a' && p <= 'z':
			flush(i)
			start = i
		case upper && p >= 'A' && p <= 'Z' && i+1 < len(name) && name[i+1] >= 'a' && name[i+1] <= 'z':
			flush(i)
			start = i
		}
	}
	flush(len(name))
	return out
}

// assignedValue finds the value given to the name s[a:b], if it is a
// secret's: the operator after the name (or a name/value pair's glue, or
// an XML element's end), then a quoted or bare value.
func assignedValue(s string, a, b int, c class) (span, bool) {
	i := b
	quoted := false
	switch {
	case a > 0 && isQuote(s[a-1]) && i < len(s) && s[i] == s[a-1]:
		quoted = true
		i++
	case a > 1 && s[a-2:a] == `\"` && strings.HasPrefix(s[i:], `\"`):
		quoted = true
		i += 2
	case a > 0 && s[a-1] == '<':
		return elementValue(s, i, c)
	}
	if j := pairValue(s, i); j > 0 {
		return value2(s, j, c, opPair)
	}
	if quoted && i < len(s) && s[i] == ']' {
		i++ // os.environ["X_TOKEN"] = …
	}
	j := skipSpace(s, i, false)
	if k, ok := typed(s, j); ok && s[a] != '-' {
		return value2(s, k, c, opAssign)
	}
	o, k := operator(s, j, s[a] == '-')
	if o == opNone {
		return span{}, false
	}
	return value2(s, k, c, o)
}

// elementValue is an XML element's text: <xToken attr="…">value</xToken>
// (i is just after the element's name).
func elementValue(s string, i int, c class) (span, bool) {
	j := strings.IndexByte(s[i:], '>')
	if j < 0 || strings.Contains(s[i:i+j], "<") || (j > 0 && s[i+j-1] == '/') {
		return span{}, false
	}
	from := skipSpace(s, i+j+1, true)
	to := strings.Index(s[from:], "</")
	if to < 0 {
		return span{}, false
	}
	to += from
	for to > from && (isSpace(s[to-1]) || s[to-1] == '\n' || s[to-1] == '\r') {
		to--
	}
	return judge(s, from, to, c, true)
}

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

type op int

const (
	opNone op = iota
	opAssign
	opColon
	opComma
	opSpace
	opPair
)

// operator reads an assignment operator at s[i:]; it returns where the
// value may start.
func operator(s string, i int, flag bool) (op, int) {
	if i >= len(s) {
		return opNone, i
	}
	for _, o := range []string{":::=", "::=", ":=", "??=", "?=", "+=", ".=", "||=", "=>", "==", "<-", "="} {
		if strings.HasPrefix(s[i:], o) {
			return opAssign, i + len(o)
		}
	}
	switch s[i] {
	case ':':
		if i+1 < len(s) && s[i+1] == ':' {
			return opNone, i // a C++ or Rust path (Key::new)
		}
		return opColon, i + 1
	case ',':
		return opComma, i + 1
	}
	if flag && i > 0 && isSpace(s[i-1]) {
		return opSpace, i
	}
	return opNone, i
}

// typed reads ": Type =" or " Type =" at s[i:] (a declaration's type) and
// returns where the value may start.
func typed(s string, i int) (int, bool) {
	j := i
	if j < len(s) && s[j] == ':' {
		j = skipSpace(s, j+1, false)
	} else if j == 0 || !isSpace(s[j-1]) {
		return 0, false
	}
	k := j
	for k < len(s) && (isAlnum(s[k]) || strings.IndexByte("_.<>[]&?*", s[k]) >= 0) {
		k++
	}
	if k == j || !(s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] == '[' || s[j] == '&' || s[j] == '*') {
		return 0, false
	}
	if k2 := skipSpace(s, k, false); k2 > k && k2 < len(s) && s[k2] == '=' && (k2+1 >= len(s) || s[k2+1] != '=') {
		return k2 + 1, true
	}
	return 0, false
}

// pairValue reads what joins a name to its value in a name/value pair
// (`" value="`, `", "value": "`, a newline then `value:`), returning
// where the value may start, or 0.
func pairValue(s string, i int) int {
	j := i
	for j < len(s) && (isSpace(s[j]) || s[j] == ',' || s[j] == '\n' || s[j] == '\r') && j-i < 16 {
		j++
	}
	if j == i {
		return 0
	}
	if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	if !hasPrefixFold(s[j:], "value") {
		return 0
	}
	j += len("value")
	if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	j = skipSpace(s, j, false)
	if j < len(s) && (s[j] == '=' || s[j] == ':') {
		return j + 1
	}
	return 0
}

// value2 reads the value at s[i:] after an operator and judges it.
func value2(s string, i int, c class, o op) (span, bool) {
	i = skipSpace(s, i, o == opPair)
	if i >= len(s) {
		return span{}, false
	}
	// YAML block scalars: the value is on the next line.
	if o == opColon && (s[i] == '|' || s[i] == '>') {
		j := i + 1
		for j < len(s) && (s[j] == '-' || s[j] == '+') {
			j++
		}
		if j < len(s) && (s[j] == '\n' || s[j] == '\r') {
			i = skipSpace(s, j, true)
			j = i
			for j < len(s) && s[j] != '\n' && s[j] != '\r' {
				j++
			}
			return judge(s, i, j, c, true)
		}
	}
	// String prefixes: f"…", b'…', r"…", u"…", @"…".
	if i+1 < len(s) && strings.IndexByte("fFbBrRuU@", s[i]) >= 0 && (s[i+1] == '"' || s[i+1] == '\'') {
		i++
	}
	if strings.HasPrefix(s[i:], `\"`) || strings.HasPrefix(s[i:], `\'`) {
		end := strings.Index(s[i+2:], s[i:i+2])
		if end < 0 {
			return span{}, false
		}
		return judge(s, i+2, i+2+end, c, true)
	}
	if q := s[i]; q == '"' || q == '\'' || q == '`' {
		j := i + 1
		for j < len(s) && s[j] != q && s[j] != '\n' {
			if s[j] == '\\' && q != '`' {
				if j+1 < len(s) && (s[j+1] == 'n' || s[j+1] == 'r') && q == '"' {
					break // a string inside a string: its line ends here
				}
				j++
			}
			j++
		}
		if j >= len(s) || s[j] != q {
			if j < len(s) && s[j] == '\\' {
				return judge(s, i+1, j, c, true)
			}
			return span{}, false
		}
		if pairValue(s, j+1) > 0 {
			return span{}, false // key="ApiKey" value="…": the name of a pair
		}
		return judge(s, i+1, j, c, true)
	}
	j := i
	for j < len(s) && !isSpace(s[j]) && s[j] != '\n' && s[j] != '\r' && strings.IndexByte(",;&<>()[]{}\"'`\\", s[j]) < 0 {
		j++
	}
	if j == i {
		return span{}, false
	}
	// An expression, not a literal: a call, an index, a member.
	if j < len(s) && (s[j] == '(' || s[j] == '[') {
		return span{}, false
	}
	// After a colon (YAML, a header, prose), a bare value that does not
	// look like a credential ends its line: "password: see the vault" is
	// prose.
	if (o == opColon || o == opComma) && !credentialLike(s[i:j]) {
		k := skipSpace(s, j, false)
		if k < len(s) && s[k] != '\n' && s[k] != '\r' && strings.IndexByte(",;}#'\"\\", s[k]) < 0 {
			return span{}, false
		}
	}
	return judge(s, i, j, c, false)
}

// judge decides whether the value s[from:to] is a secret to redact.
func judge(s string, from, to int, c class, quoted bool) (span, bool) {
	v := s[from:to]
	if v == "" || reference(v, quoted) {
		return span{}, false
	}
	if c == weak && !credentialLike(v) {
		return span{}, false
	}
	return span{from, to}, true
}

// placeholders are values that stand for no secret.
var placeholders = map[string]bool{
	"none": true, "null": true, "nil": true, "undefined": true, "true": true, "false": true, "yes": true,
	"no": true, "on": true, "off": true, "required": true, "optional": true, "empty": true,
}

// reference reports whether v names a secret kept elsewhere or stands for
// none: ${VAR}, $VAR, %VAR%, {{ var }}, {token}, <your-token>, ****,
// a dotted reference (settings.API_KEY), an already redacted value.
func reference(v string, quoted bool) bool {
	if strings.Contains(v, Redacted) || strings.Contains(v, PrivateMarker) {
		return true
	}
	switch v[0] {
	case '$', '%', '<', '{', '*', '#', '(', '[':
		return true
	}
	if placeholders[strings.ToLower(v)] || strings.Trim(v, "*xX.…-_") == "" {
		return true
	}
	if quoted && strings.Contains(v, "{") && strings.Contains(v, "}") {
		return true // a format string: f"Bearer {token}"
	}
	if !quoted && dottedName(v) {
		return true
	}
	return false
}

// dottedName: two or more identifiers joined by dots, no digit
// (settings.API_KEY, os.environ, secrets.token).
func dottedName(v string) bool {
	if !strings.Contains(v, ".") {
		return false
	}
	for _, p := range strings.Split(v, ".") {
		if p == "" || !(p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z' || p[0] == '_') {
			return false
		}
		for i := 0; i < len(p); i++ {
			if !(isAlnum(p[i]) || p[i] == '_') || p[i] >= '0' && p[i] <= '9' {
				return false
			}
		}
	}
	return true
}

// credentialLike reports whether v looks like a credential rather than a
// word, a number, a path or a model's name: 8 characters or more without
// blanks, not a number (but a 16-digit id) or a path, and letters and
// digits mixed, 16 hex digits or more, or, letters alone, 20 or more with
// the randomness of a generated key (entropy of 3.5 bits a character or
// more, gitleaks' generic threshold).
func credentialLike(v string) bool {
	if len(v) < 8 || strings.ContainsAny(v, " \t\n\r") {
		return false
	}
	if strings.Contains(v, "://") {
		return false
	}
	if number(v) {
		// A number is a measure, unless it is as long as a client id
		// or an account key (16 digits and more, no point).
		return len(v) >= 16 && strings.Trim(v, "0123456789") == ""
	}
	if v[0] == '/' || v[0] == '~' || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || (len(v) > 2 && v[1] == ':' && v[2] == '\\') {
		return false
	}
	if slash := strings.LastIndexByte(v, '/'); slash >= 0 {
		if dot := strings.LastIndexByte(v, '.'); dot > slash && dot >= len(v)-5 && letters(v[dot+1:]) {
			return false // dir/file.ext
		}
	}
	digits, lettersN := 0, 0
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] >= '0' && v[i] <= '9':
			digits++
		case v[i] >= 'a' && v[i] <= 'z' || v[i] >= 'A' && v[i] <= 'Z':
			lettersN++
		}
	}
	if digits > 0 && lettersN > 0 || hexDigits(v) >= 16 {
		return true
	}
	// Letters alone: a generated key is long and random, a word or a
	// name (adafruitToken, bert-base-uncased) is not.
	return len(v) >= 20 && entropy(v) >= 3.5
}

// hexDigits counts v's hexadecimal digits, or 0 when v holds anything but
// hex digits and the separators - and : (cafebabe:deadbeef).
func hexDigits(v string) int {
	n := 0
	for i := 0; i < len(v); i++ {
		switch c := v[i] | 0x20; {
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'f':
			n++
		case v[i] == '-' || v[i] == ':':
		default:
			return 0
		}
	}
	return n
}

func letters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
			return false
		}
	}
	return s != ""
}

// number: digits with at most a sign, one point, an exponent and _ or ,
// separators (4096, 3e-4, 1_000_000, -0.5).
func number(v string) bool {
	seen := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			seen = true
		case strings.IndexByte("+-._,eE", c) >= 0:
		default:
			return false
		}
	}
	return seen
}

// entropy is the Shannon entropy of v in bits per byte.
func entropy(v string) float64 {
	var n [256]int
	for i := 0; i < len(v); i++ {
		n[v[i]]++
	}
	e := 0.0
	for _, k := range n {
		if k > 0 {
			p := float64(k) / float64(len(v))
			e -= p * math.Log2(p)
		}
	}
	return e
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// skipSpace skips blanks (and line breaks when lines is set).
func skipSpace(s string, i int, lines bool) int {
	for i < len(s) && (isSpace(s[i]) || lines && (s[i] == '\n' || s[i] == '\r')) {
		i++
	}
	return i
}
