package relay

import (
	"os"
	"slices"
	"testing"
)

func TestClientArgumentBecomesTheClientVariable(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"separate":    {[]string{"--client", "codex"}, "codex"},
		"joined":      {[]string{"--client=gemini"}, "gemini"},
		"none":        {nil, ""},
		"flag at end": {[]string{"--client"}, ""},
	}
	for name, c := range cases {
		env := map[string]string{"HOME": "/h"}
		e := Env{
			Args:   func() []string { return c.args },
			Setenv: func(k, v string) error { env[k] = v; return nil },
			Environ: func() []string {
				var kv []string
				for k, v := range env {
					kv = append(kv, k+"="+v)
				}
				return kv
			},
		}
		nameClient(e)
		if env[ClientVar] != c.want {
			t.Errorf("%s: %s=%q, want %q", name, ClientVar, env[ClientVar], c.want)
		}
		if c.want != "" && !slices.Contains(forwarded(e.Environ()), ClientVar+"="+c.want) {
			t.Errorf("%s: the worker would not see the client: %v", name, forwarded(e.Environ()))
		}
	}
}

func TestArgsOfThisProcess(t *testing.T) {
	got := args()
	if len(got) == 0 || !slices.Equal(got, os.Args[1:]) {
		t.Fatalf("args() = %q, want os.Args[1:] = %q (the test binary always has flags)", got, os.Args[1:])
	}
}
