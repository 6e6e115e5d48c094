package wire

import (
	"errors"
	"io"
	"math/bits"
)

// The hook relay framing (doc.go describes it).
const (
	HookMagic  = "HOOK"
	replyOK    = "OK"
	replyNo    = "NO"
	maxHeader  = 4 << 10
	maxVersion = 200
)

// Framing is which of the socket's two framings a connection speaks.
type Framing int

// The framings.
const (
	// Query: JSON lines (Request, Response); the first byte is '{' (or
	// blank space before it).
	Query Framing = iota
	// Hook: one hook frame each way (HookRequest, HookReply).
	Hook
)

// FramingOf tells the framing of a connection from its first byte: a hook
// frame starts with HookMagic, which no JSON text starts with.
func FramingOf(first byte) Framing {
	if first == HookMagic[0] {
		return Hook
	}
	return Query
}

// HookRequest is one hook event for the worker to run.
type HookRequest struct {
	Hook    string
	Version string   // the client's build (buildinfo.Version)
	Env     []string // KEY=VALUE
	Stdin   []byte
}

// HookReply is the worker's answer: the hook's outcome, or a refusal (Code
// set) after which the client runs the handler itself.
type HookReply struct {
	Exit   int
	Stdout []byte
	Stderr []byte
	Code   string
	Error  string
}

// AppendHookRequest encodes r as a frame, growing dst once.
func AppendHookRequest(dst []byte, r HookRequest) []byte {
	envLen := 0
	for _, kv := range r.Env {
		envLen += len(kv) + 1
	}
	if need := len(HookMagic) + len(r.Hook) + len(r.Version) + 48 + envLen + len(r.Stdin); cap(dst)-len(dst) < need {
		dst = append(make([]byte, 0, len(dst)+need), dst...)
	}
	dst = append(dst, HookMagic...)
	dst = append(dst, ' ')
	dst = appendWord(dst, r.Hook)
	dst = append(dst, ' ')
	dst = appendWord(dst, r.Version)
	dst = append(dst, ' ')
	dst = AppendInt(dst, envLen)
	dst = append(dst, ' ')
	dst = AppendInt(dst, len(r.Stdin))
	dst = append(dst, '\n')
	for _, kv := range r.Env {
		dst = append(dst, kv...)
		dst = append(dst, 0)
	}
	return append(dst, r.Stdin...)
}

// ReadHookRequest reads one request frame of at most max payload bytes.
func ReadHookRequest(r io.Reader, max int) (HookRequest, error) {
	f, rest, err := readFrame(r, 5, max)
	if err != nil {
		return HookRequest{}, err
	}
	if f[0] != HookMagic {
		return HookRequest{}, errors.New("not a hook frame")
	}
	envLen, stdinLen, err := sizes(f[3], f[4], max)
	if err != nil {
		return HookRequest{}, err
	}
	body, err := readBody(r, rest, envLen+stdinLen)
	if err != nil {
		return HookRequest{}, err
	}
	req := HookRequest{Hook: f[1], Version: f[2], Stdin: body[envLen:]}
	for env := body[:envLen]; len(env) > 0; {
		i := indexByte(env, 0)
		if i < 0 {
			i = len(env)
		}
		if i > 0 {
			req.Env = append(req.Env, string(env[:i]))
		}
		env = env[min(i+1, len(env)):]
	}
	return req, nil
}

// AppendHookReply encodes r as a frame.
func AppendHookReply(dst []byte, r HookReply) []byte {
	if r.Code != "" {
		dst = append(dst, replyNo+" "...)
		dst = appendWord(dst, r.Code)
		dst = append(dst, ' ')
		for i := 0; i < len(r.Error); i++ { // one line
			if c := r.Error[i]; c == '\n' {
				dst = append(dst, ' ')
			} else {
				dst = append(dst, c)
			}
		}
		return append(dst, '\n')
	}
	dst = append(dst, replyOK+" "...)
	dst = AppendInt(dst, r.Exit)
	dst = append(dst, ' ')
	dst = AppendInt(dst, len(r.Stdout))
	dst = append(dst, ' ')
	dst = AppendInt(dst, len(r.Stderr))
	dst = append(dst, '\n')
	dst = append(dst, r.Stdout...)
	return append(dst, r.Stderr...)
}

// ReadHookReply reads one reply frame of at most max payload bytes. A
// refusal is a reply with Code set, not an error; anything that is not a
// reply frame (a worker of another protocol answering in JSON) is an error.
func ReadHookReply(r io.Reader, max int) (HookReply, error) {
	f, rest, err := readFrame(r, 4, max)
	if err != nil {
		return HookReply{}, err
	}
	rep, outLen, errLen, err := replyHeader(f, max)
	if err != nil || rep.Code != "" {
		return rep, err
	}
	body, err := readBody(r, rest, outLen+errLen)
	if err != nil {
		return HookReply{}, err
	}
	rep.Stdout, rep.Stderr = body[:outLen:outLen], body[outLen:]
	return rep, nil
}

// HookReplyLen is the length of the reply frame that b begins with, header
// and body, once b holds its header line (0 before: read more), so a
// client reads exactly the frame, as ReadHookReply does, without waiting
// for the worker to close the connection.
func HookReplyLen(b []byte, max int) (int, error) {
	i := indexByte(b, '\n')
	if i < 0 {
		if len(b) > maxHeader+max {
			return 0, errors.New("hook frame: no header line")
		}
		return 0, nil
	}
	rep, outLen, errLen, err := replyHeader(header(b[:i], 4), max)
	if err != nil || rep.Code != "" {
		return i + 1, err
	}
	return i + 1 + outLen + errLen, nil
}

// ParseHookReply is ReadHookReply on a whole frame already read (its
// length is HookReplyLen); Stdout and Stderr share frame's bytes.
func ParseHookReply(frame []byte, max int) (HookReply, error) {
	i := indexByte(frame, '\n')
	if i < 0 {
		return HookReply{}, errors.New("hook frame: no header line")
	}
	rep, outLen, errLen, err := replyHeader(header(frame[:i], 4), max)
	if err != nil || rep.Code != "" {
		return rep, err
	}
	body := frame[i+1:]
	if len(body) < outLen+errLen {
		return HookReply{}, errors.New("hook frame: " + io.ErrUnexpectedEOF.Error())
	}
	if len(body) > outLen+errLen {
		return HookReply{}, errors.New("hook frame: more bytes than announced")
	}
	rep.Stdout, rep.Stderr = body[:outLen:outLen], body[outLen:]
	return rep, nil
}

// replyHeader reads a reply's header fields: a refusal (Code set), or the
// exit code and the sizes of stdout and stderr.
func replyHeader(f fields, max int) (rep HookReply, outLen, errLen int, err error) {
	switch f[0] {
	case replyNo:
		if f[1] == "" {
			return HookReply{}, 0, 0, errors.New("hook reply: a refusal without its code")
		}
		msg := f[2]
		if f[3] != "" {
			msg += " " + f[3]
		}
		return HookReply{Code: f[1], Error: msg}, 0, 0, nil
	case replyOK:
	default:
		return HookReply{}, 0, 0, errors.New("not a hook reply")
	}
	exit, ok := atoi(f[1])
	if !ok {
		return HookReply{}, 0, 0, errors.New("hook reply: bad exit code")
	}
	outLen, errLen, err = sizes(f[2], f[3], max)
	if err != nil {
		return HookReply{}, 0, 0, err
	}
	return HookReply{Exit: exit}, outLen, errLen, nil
}

// fields are a header line's blank-separated fields: a request has five, a
// reply four.
type fields [5]string

// header splits a header line into n fields, as strings.SplitN does: the
// last keeps the rest of the line, blanks included (a refusal's message),
// and those missing are empty.
func header(line []byte, n int) fields {
	var f fields
	s := string(line)
	for k := 0; k < n-1; k++ {
		i := 0
		for i < len(s) && s[i] != ' ' {
			i++
		}
		f[k] = s[:i]
		if i == len(s) {
			return f
		}
		s = s[i+1:]
	}
	f[n-1] = s
	return f
}

// appendWord keeps a header field one token (names and versions never
// contain blanks; a damaged one must not shift the fields after it).
func appendWord(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, '-')
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' {
			dst = append(dst, '_')
		} else {
			dst = append(dst, c)
		}
	}
	return dst
}

// AppendInt and atoi are strconv's, for the decimal numbers of the headers
// (and AppendInt for the hook binaries' other numbers: internal/relay).
// The hook binaries start on every tool call, and each page of another
// package's code they run costs them a page fault (relay's package doc).
func AppendInt(dst []byte, n int) []byte {
	u := uint64(n)
	if n < 0 {
		dst = append(dst, '-')
		u = -u
	}
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	return append(dst, b[i:]...)
}

// atoi reads a decimal integer, signed, of at most 18 digits (9 where an
// int has 32 bits), so it cannot overflow.
func atoi(s string) (int, bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if s == "" || len(s) > bits.UintSize*9/32 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		return -n, true
	}
	return n, true
}

func indexByte(b []byte, c byte) int {
	for i := range b {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// readFrame reads up to the end of the header line and splits it into n
// fields; rest is what was read past it.
func readFrame(r io.Reader, n, max int) (f fields, rest []byte, err error) {
	buf := make([]byte, 0, 4<<10)
	scanned := 0
	for {
		if i := indexByte(buf[scanned:], '\n'); i >= 0 {
			return header(buf[:scanned+i], n), buf[scanned+i+1:], nil
		}
		scanned = len(buf)
		if len(buf) > maxHeader+max {
			return f, nil, errors.New("hook frame: no header line")
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		k, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err != nil && k == 0 {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return f, nil, err
		}
	}
}

func sizes(a, b string, max int) (int, int, error) {
	x, ok1 := atoi(a)
	y, ok2 := atoi(b)
	if !ok1 || !ok2 || x < 0 || y < 0 || x > max || y > max-x {
		return 0, 0, errors.New("hook frame: bad or too large sizes")
	}
	return x, y, nil
}

// readBody completes the payload of size n, of which rest was already read.
func readBody(r io.Reader, rest []byte, n int) ([]byte, error) {
	if len(rest) > n {
		return nil, errors.New("hook frame: more bytes than announced")
	}
	body := make([]byte, n)
	copy(body, rest)
	if _, err := io.ReadFull(r, body[len(rest):]); err != nil {
		return nil, err
	}
	return body, nil
}
