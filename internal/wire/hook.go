package wire

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
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

// AppendHookRequest encodes r as a frame.
func AppendHookRequest(dst []byte, r HookRequest) []byte {
	envLen := 0
	for _, kv := range r.Env {
		envLen += len(kv) + 1
	}
	dst = append(dst, HookMagic...)
	dst = append(dst, ' ')
	dst = append(dst, word(r.Hook)...)
	dst = append(dst, ' ')
	dst = append(dst, word(r.Version)...)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(envLen), 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(len(r.Stdin)), 10)
	dst = append(dst, '\n')
	for _, kv := range r.Env {
		dst = append(dst, kv...)
		dst = append(dst, 0)
	}
	return append(dst, r.Stdin...)
}

// word keeps a header field one token (names and versions never contain
// blanks; a damaged one must not shift the fields after it).
func word(s string) string {
	if s == "" {
		return "-"
	}
	return strings.Map(func(r rune) rune {
		if r <= ' ' {
			return '_'
		}
		return r
	}, s)
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
	for _, kv := range bytes.Split(body[:envLen], []byte{0}) {
		if len(kv) > 0 {
			req.Env = append(req.Env, string(kv))
		}
	}
	return req, nil
}

// AppendHookReply encodes r as a frame.
func AppendHookReply(dst []byte, r HookReply) []byte {
	if r.Code != "" {
		dst = append(dst, replyNo+" "...)
		dst = append(dst, word(r.Code)...)
		dst = append(dst, ' ')
		dst = append(dst, strings.ReplaceAll(r.Error, "\n", " ")...)
		return append(dst, '\n')
	}
	dst = append(dst, replyOK+" "...)
	dst = strconv.AppendInt(dst, int64(r.Exit), 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(len(r.Stdout)), 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(len(r.Stderr)), 10)
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
	switch f[0] {
	case replyNo:
		msg := f[2]
		if f[3] != "" {
			msg += " " + f[3]
		}
		return HookReply{Code: f[1], Error: msg}, nil
	case replyOK:
	default:
		return HookReply{}, errors.New("not a hook reply")
	}
	exit, err := strconv.Atoi(f[1])
	if err != nil {
		return HookReply{}, errors.New("hook reply: bad exit code")
	}
	outLen, errLen, err := sizes(f[2], f[3], max)
	if err != nil {
		return HookReply{}, err
	}
	body, err := readBody(r, rest, outLen+errLen)
	if err != nil {
		return HookReply{}, err
	}
	return HookReply{Exit: exit, Stdout: body[:outLen], Stderr: body[outLen:]}, nil
}

// readFrame reads up to the end of the header line and splits it into n
// fields (the last one keeps its blanks); rest is what was read past it.
func readFrame(r io.Reader, n, max int) (fields []string, rest []byte, err error) {
	buf := make([]byte, 0, 4<<10)
	for {
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			f := strings.SplitN(string(buf[:i]), " ", n)
			for len(f) < n {
				f = append(f, "")
			}
			return f, buf[i+1:], nil
		}
		if len(buf) > maxHeader+max {
			return nil, nil, errors.New("hook frame: no header line")
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
			return nil, nil, err
		}
	}
}

func sizes(a, b string, max int) (int, int, error) {
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || x < 0 || y < 0 || x+y > max {
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
