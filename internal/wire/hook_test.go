package wire

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

func TestHookRequestRoundTrip(t *testing.T) {
	req := HookRequest{Hook: "post-tool-use", Version: "abc123-dirty",
		Env:   []string{"VIBE_HOME=/v", "HOME=/h", "CLAUDE_X=a=b c", "VIBE_EMPTY="},
		Stdin: []byte("{\"a\":\"line\\nbreak\"}\n\x00binary\xff")}
	frame := AppendHookRequest(nil, req)
	// One byte per read: the header and body must still come together.
	got, err := ReadHookRequest(iotest.OneByteReader(bytes.NewReader(frame)), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if got.Hook != req.Hook || got.Version != req.Version || !bytes.Equal(got.Stdin, req.Stdin) || strings.Join(got.Env, "|") != strings.Join(req.Env, "|") {
		t.Fatalf("got %+v\nwant %+v", got, req)
	}
}

func TestHookReplyRoundTrip(t *testing.T) {
	for _, rep := range []HookReply{
		{Exit: 0},
		{Exit: 2, Stderr: []byte("denied\nreason")},
		{Exit: 0, Stdout: []byte(`{"decision":"block"}` + "\n"), Stderr: []byte("warn")},
	} {
		got, err := ReadHookReply(bytes.NewReader(AppendHookReply(nil, rep)), 1<<20)
		if err != nil || got.Exit != rep.Exit || !bytes.Equal(got.Stdout, rep.Stdout) || !bytes.Equal(got.Stderr, rep.Stderr) || got.Code != "" {
			t.Errorf("%+v: got %+v %v", rep, got, err)
		}
	}
	got, err := ReadHookReply(bytes.NewReader(AppendHookReply(nil, HookReply{Code: CodeVersion, Error: "the worker is build a,\nthe hook b"})), 1<<20)
	if err != nil || got.Code != CodeVersion || got.Error != "the worker is build a, the hook b" {
		t.Errorf("refusal: %+v %v", got, err)
	}
}

// TestDamagedFrames: every malformed or truncated frame is an error, never
// a reply with made-up contents.
func TestDamagedFrames(t *testing.T) {
	good := string(AppendHookReply(nil, HookReply{Exit: 1, Stdout: []byte("out"), Stderr: []byte("err")}))
	for name, raw := range map[string]string{
		"empty":               "",
		"JSON":                `{"ok":false,"error":"unknown op","code":"invalid"}` + "\n",
		"no newline":          "OK 0 3 3",
		"truncated body":      good[:len(good)-2],
		"bad exit":            "OK x 0 0\n",
		"negative size":       "OK 0 -1 0\n",
		"sizes over max":      "OK 0 2000000 0\n",
		"longer than said":    "OK 0 1 0\nabc",
		"refusal, no code":    "NO\n",
		"refusal, empty code": "NO  the worker said nothing more\n",
	} {
		if rep, err := ReadHookReply(strings.NewReader(raw), 1<<20); err == nil {
			t.Errorf("%s: accepted as %+v", name, rep)
		}
	}
	for name, raw := range map[string]string{
		"not a hook frame": "HELLO a b 0 0\n",
		"truncated env":    "HOOK stop v 10 0\nVIBE_",
		"sizes over max":   "HOOK stop v 0 99999999\n",
	} {
		if req, err := ReadHookRequest(strings.NewReader(raw), 1<<20); err == nil {
			t.Errorf("%s: accepted as %+v", name, req)
		}
	}
}

// TestFieldsStayOneWord: a blank in a name cannot shift the sizes.
func TestFieldsStayOneWord(t *testing.T) {
	frame := AppendHookRequest(nil, HookRequest{Hook: "post tool", Version: "", Stdin: []byte("x")})
	got, err := ReadHookRequest(bytes.NewReader(frame), 100)
	if err != nil || got.Hook != "post_tool" || got.Version != "-" || string(got.Stdin) != "x" {
		t.Fatalf("%+v %v", got, err)
	}
}

// TestFramingOf: a hook frame and every JSON request a client sends are
// told apart by their first byte.
func TestFramingOf(t *testing.T) {
	if f := FramingOf(AppendHookRequest(nil, HookRequest{Hook: "stop"})[0]); f != Hook {
		t.Errorf("a hook frame reads as framing %d", f)
	}
	for _, line := range []string{`{"op":"health"}`, ` {"op":"knn"}`, "\n", "[1]"} {
		if f := FramingOf(line[0]); f != Query {
			t.Errorf("%q reads as framing %d", line, f)
		}
	}
}

// TestParseHookReplyAgreesWithReadHookReply: a reply read whole gives what
// the reader gives, good and damaged frames alike.
func TestParseHookReplyAgreesWithReadHookReply(t *testing.T) {
	frames := []string{
		string(AppendHookReply(nil, HookReply{Exit: 0})),
		string(AppendHookReply(nil, HookReply{Exit: 2, Stderr: []byte("denied\nreason")})),
		string(AppendHookReply(nil, HookReply{Exit: -1, Stdout: []byte("{}\n"), Stderr: []byte("w")})),
		string(AppendHookReply(nil, HookReply{Code: CodeVersion, Error: "the worker is  build a,\nthe hook b"})),
		"", "OK 0 3 3", "OK x 0 0\n", "OK 0 -1 0\n", "OK 0 2000000 0\n", "OK 0 1 0\nabc", "OK 0 3 0\nab",
		`{"ok":false}` + "\n", "OK 0 0 0 0\n", "NO\n", "NO  message\n", "OK 9999999999999999999 0 0\n",
	}
	for _, raw := range frames {
		want, werr := ReadHookReply(strings.NewReader(raw), 1<<20)
		got, gerr := ParseHookReply([]byte(raw), 1<<20)
		// HookReplyLen finds the frame's end in any prefix holding its header.
		for cut := 0; cut <= len(raw) && werr == nil; cut++ {
			n, err := HookReplyLen([]byte(raw[:cut]), 1<<20)
			header := strings.IndexByte(raw[:cut], '\n') >= 0
			if err != nil || (header && n != len(raw)) || (!header && n != 0) {
				t.Errorf("%q cut at %d: HookReplyLen %d, %v", raw, cut, n, err)
			}
		}
		if (werr == nil) != (gerr == nil) || got.Exit != want.Exit || got.Code != want.Code || got.Error != want.Error ||
			!bytes.Equal(got.Stdout, want.Stdout) || !bytes.Equal(got.Stderr, want.Stderr) {
			t.Errorf("%q: parsed %+v (%v), read %+v (%v)", raw, got, gerr, want, werr)
		}
	}
}

// TestHeaderNumbersAndFieldsAsStrconv: the headers' own number and field
// helpers (the hook binaries link no strconv or strings) agree with the
// standard library on every input tried.
func TestHeaderNumbersAndFieldsAsStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		n := int(rng.Int64N(1<<40)) - 1<<39
		if i%3 == 0 {
			n = int(rng.Int64N(100)) - 50
		}
		if got, want := string(AppendInt(nil, n)), strconv.Itoa(n); got != want {
			t.Fatalf("AppendInt(%d) = %q", n, got)
		}
		if got, ok := atoi(strconv.Itoa(n)); !ok || got != n {
			t.Fatalf("atoi(%d) = %d, %v", n, got, ok)
		}
	}
	for _, n := range []int{0, -1, 1 << 62, -1 << 63, 1<<63 - 1} {
		if got := string(AppendInt(nil, n)); got != strconv.Itoa(n) {
			t.Errorf("AppendInt(%d) = %q", n, got)
		}
	}
	for _, s := range []string{"", "-", "+1", "1x", " 1", "1 ", "0x10", "١", "-0", "007", "1234567890123456789"} {
		got, ok := atoi(s)
		want, err := strconv.Atoi(s)
		if ok && (err != nil || got != want) {
			t.Errorf("atoi(%q) = %d, accepted; strconv: %d, %v", s, got, want, err)
		}
	}
	const alphabet = "ab  c\t"
	for i := 0; i < 5000; i++ {
		b := make([]byte, rng.IntN(12))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		for n := 1; n <= 5; n++ {
			want := strings.SplitN(string(b), " ", n)
			got := header(b, n)
			for k := 0; k < n; k++ {
				w := ""
				if k < len(want) {
					w = want[k]
				}
				if got[k] != w {
					t.Fatalf("header(%q, %d) = %q, SplitN %q", b, n, got[:n], want)
				}
			}
		}
	}
}
