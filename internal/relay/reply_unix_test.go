//go:build unix

package relay

import (
	"bytes"
	"syscall"
	"testing"

	"github.com/vibe-science/vibe/internal/wire"
)

// TestReadReplyReadsExactlyTheFrame: the client reads the worker's reply
// frame, however large and in however many pieces it comes, without
// waiting for the connection to close; a frame cut short, or followed by
// bytes it did not announce, is an error, never a reply.
func TestReadReplyReadsExactlyTheFrame(t *testing.T) {
	big := bytes.Repeat([]byte("context line\n"), 3000) // 39 KB: the buffer grows
	for _, tc := range []struct {
		name    string
		frame   []byte
		extra   string
		close   bool
		wantErr bool
	}{
		{name: "small", frame: wire.AppendHookReply(nil, wire.HookReply{Stdout: []byte("{}\n")})},
		{name: "large", frame: wire.AppendHookReply(nil, wire.HookReply{Exit: 2, Stdout: big, Stderr: []byte("why")})},
		{name: "refusal", frame: wire.AppendHookReply(nil, wire.HookReply{Code: wire.CodeVersion, Error: "another build"})},
		{name: "cut short", frame: wire.AppendHookReply(nil, wire.HookReply{Stdout: big})[:5000], close: true, wantErr: true},
		{name: "more than announced", frame: wire.AppendHookReply(nil, wire.HookReply{Stdout: []byte("{}")}), extra: "junk", wantErr: true},
		{name: "not a frame", frame: []byte(`{"ok":false,"error":"unknown op"}` + "\n"), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer syscall.Close(fds[0])
			done := make(chan struct{})
			go func() { // the worker's side, in pieces, and left open unless told
				defer close(done)
				out := append(append([]byte(nil), tc.frame...), tc.extra...)
				for len(out) > 0 {
					n := min(len(out), 1000)
					fd(fds[1]).Write(out[:n])
					out = out[n:]
				}
				if tc.close {
					syscall.Close(fds[1])
				}
			}()
			b, err := readReply(fd(fds[0]))
			var rep wire.HookReply
			if err == nil {
				rep, err = wire.ParseHookReply(b, maxReply)
			}
			<-done
			if !tc.close {
				syscall.Close(fds[1])
			}
			if tc.wantErr {
				if err == nil {
					t.Fatalf("accepted as %+v", rep)
				}
				return
			}
			want, werr := wire.ReadHookReply(bytes.NewReader(tc.frame), maxReply)
			if err != nil || werr != nil || rep.Exit != want.Exit || rep.Code != want.Code || !bytes.Equal(rep.Stdout, want.Stdout) ||
				!bytes.Equal(rep.Stderr, want.Stderr) || rep.Error != want.Error {
				t.Fatalf("got %+v %v, want %+v %v", rep, err, want, werr)
			}
		})
	}
}
