package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromModinfo(t *testing.T) {
	for _, c := range []struct{ info, want string }{
		{"", "devel"},
		{"path\tx\nmod\tx\t(devel)\t\nbuild\t-compiler=gc\n", "devel"},
		{"build\tvcs=git\nbuild\tvcs.revision=0123456789abcdef0123\nbuild\tvcs.time=2026-11-24T10:00:00Z\nbuild\tvcs.modified=false\n", "devel-0123456789ab"},
		{"build\tvcs.revision=abc\nbuild\tvcs.modified=true", "devel-abc-dirty"},
	} {
		if got := fromModinfo(c.info); got != c.want {
			t.Errorf("fromModinfo(%q) = %q, want %q", c.info, got, c.want)
		}
	}
}

// TestModinfoIsWhatRuntimeDebugReads: the linkname reads the same
// information as runtime/debug.ReadBuildInfo.
func TestModinfoIsWhatRuntimeDebugReads(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build information in this test binary")
	}
	raw := modinfo()
	if !strings.Contains(raw, "path\t"+bi.Path+"\n") {
		t.Fatalf("modinfo() does not hold the main package path %q:\n%s", bi.Path, raw)
	}
	for _, s := range bi.Settings {
		if !strings.HasPrefix(s.Key, "vcs") && s.Key != "-compiler" {
			continue // other values may be quoted
		}
		if got := setting(raw, s.Key); got != s.Value {
			t.Errorf("setting %s = %q, runtime/debug says %q", s.Key, got, s.Value)
		}
	}
	if Version == "" {
		t.Error("Version is empty")
	}
}

// BenchmarkFallback is what a hook client built without ldflags pays at
// start-up for its version.
func BenchmarkFallback(b *testing.B) {
	for i := 0; i < b.N; i++ {
		fromModinfo(modinfo())
	}
}
