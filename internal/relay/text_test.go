package relay

import (
	"errors"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// TestTextHelpersAsTheStandardLibrary: the client's own string helpers
// (text.go) answer as strings and strconv do.
func TestTextHelpersAsTheStandardLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const alphabet = `ab/\=_OFFofVIBE_`
	word := func() string {
		b := make([]byte, rng.IntN(10))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for i := 0; i < 20000; i++ {
		s, p := word(), word()
		p = p[:min(len(p), rng.IntN(3))]
		if hasPrefix(s, p) != strings.HasPrefix(s, p) {
			t.Fatalf("hasPrefix(%q, %q)", s, p)
		}
		if a, ok := cutPrefix(s, p); func() bool { b, ok2 := strings.CutPrefix(s, p); return a != b || ok != ok2 }() {
			t.Fatalf("cutPrefix(%q, %q)", s, p)
		}
		if lastSeparator(s) != strings.LastIndexAny(s, `/\`) {
			t.Fatalf("lastSeparator(%q)", s)
		}
		if hasSlash(s) != strings.Contains(s, "/") {
			t.Fatalf("hasSlash(%q)", s)
		}
		if c := alphabet[rng.IntN(len(alphabet))]; indexByte(s, c) != strings.IndexByte(s, c) {
			t.Fatalf("indexByte(%q, %q)", s, c)
		}
		if equalFoldASCII(s, "off") != strings.EqualFold(s, "off") {
			t.Fatalf("equalFoldASCII(%q, off)", s)
		}
		n := int(rng.Int64()) >> rng.IntN(63)
		if rng.IntN(2) == 0 {
			n = -n
		}
		if itoa(n) != strconv.Itoa(n) {
			t.Fatalf("itoa(%d) = %q", n, itoa(n))
		}
	}
	for _, n := range []int{0, -1, 1, 9, 10, -10, 1<<63 - 1, -1 << 63} {
		if itoa(n) != strconv.Itoa(n) {
			t.Errorf("itoa(%d) = %q", n, itoa(n))
		}
	}
}

// TestReadAllAsIoReadAll: the event is read whole whatever its size and
// however the pipe delivers it, up to the limit, and an error is passed on.
func TestReadAllAsIoReadAll(t *testing.T) {
	for _, size := range []int{0, 1, firstRead - 1, firstRead, firstRead + 1, 5*firstRead + 3} {
		data := strings.Repeat("x", size)
		got, err := readAll(iotest.HalfReader(strings.NewReader(data)), size+10)
		if err != nil || string(got) != data {
			t.Errorf("size %d: got %d bytes, %v", size, len(got), err)
		}
		if size > 2 {
			got, err = readAll(iotest.OneByteReader(strings.NewReader(data)), size-2)
			if err != nil || string(got) != data[:size-2] {
				t.Errorf("size %d, limit %d: got %d bytes, %v", size, size-2, len(got), err)
			}
		}
	}
	errBroken := errors.New("broken pipe")
	if _, err := readAll(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(errBroken)), 100); err != errBroken {
		t.Errorf("a failing read: %v", err)
	}
}
