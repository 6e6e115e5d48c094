//go:build linux

package tamper

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The sandbox runs one shell command for real, the way a man page's
// reader would, without letting it reach anything but a scratch copy of a
// project. It is the test binary itself, started again as the first
// process of new mount, PID, network, UTS and IPC namespaces (sandboxInit,
// from TestMain): the root file system becomes an overlay whose writes go
// to a tmpfs, the project copy is bound in writable, /dev holds only
// null, zero, full, random, urandom and tty, /proc and /sys are read-only,
// and the command runs with only the file capabilities (chown, DAC,
// fowner, fsetid, kill, setuid/gid) in its bounding set. What it wrote
// outside the project is listed from the overlay's upper layer.

const (
	sandboxEnv     = "VIBE_TAMPER_SANDBOX" // the scratch folder: proj/ and report/ in it
	sandboxCmdEnv  = "VIBE_TAMPER_SANDBOX_CMD"
	sandboxCwdEnv  = "VIBE_TAMPER_SANDBOX_CWD"
	sandboxTimeEnv = "VIBE_TAMPER_SANDBOX_TIMEOUT"
	overlayMagic   = 0x794c7630
)

// sandboxResult is what one run did.
type sandboxResult struct {
	exit    int      // the command's exit status (-1: killed at the timeout)
	outside []string // "f path", "d path", "c path" (a removal) written outside the project
	output  string   // the start of what it printed
}

// runSandboxed runs cmd in cwd (inside base/proj) in the sandbox.
func runSandboxed(base, cwd, cmd string, timeout time.Duration) (sandboxResult, error) {
	for _, d := range []string{"report", "sb"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			return sandboxResult{}, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout+10*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	c.Env = []string{sandboxEnv + "=" + base, sandboxCmdEnv + "=" + cmd, sandboxCwdEnv + "=" + cwd,
		sandboxTimeEnv + "=" + timeout.String()}
	c.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET | syscall.CLONE_NEWUTS | syscall.CLONE_NEWIPC,
		Pdeathsig:  syscall.SIGKILL,
	}
	out, err := c.CombinedOutput()
	res := sandboxResult{output: string(out)}
	if len(res.output) > 400 {
		res.output = res.output[:400]
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.exit = ee.ExitCode()
	case err != nil:
		return res, err
	}
	if res.exit == sandboxBroken {
		return res, fmt.Errorf("the sandbox could not be set up: %s", res.output)
	}
	report, err := os.ReadFile(filepath.Join(base, "report", "outside"))
	if err != nil {
		return res, fmt.Errorf("the sandbox wrote no report (exit %d): %s", res.exit, res.output)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(report)), "\n") {
		if l == "" {
			continue
		}
		if l[0] == 'd' {
			// A folder in the upper layer is a write only when it is new:
			// one that exists below was only copied up for a file in it.
			if _, err := os.Lstat("/" + l[2:]); err == nil {
				continue
			}
		}
		if strings.HasPrefix(l[2:], "dev/") || strings.HasPrefix(l[2:], ".vibe-sbx-") {
			continue // the sandbox's own
		}
		res.outside = append(res.outside, l)
	}
	if v, err := strconv.Atoi(strings.TrimSpace(readOr(filepath.Join(base, "report", "exit"), "-1"))); err == nil {
		res.exit = v
	}
	return res, nil
}

func readOr(path, def string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return def
	}
	return string(b)
}

// sandboxBroken is the exit status of a sandbox that could not be set up:
// the command did not run.
const sandboxBroken = 99

// sandboxInit is the sandbox's first process.
func sandboxInit() int {
	// Capabilities are a thread's: the bounding set dropped below must be
	// the one of the thread that forks the command, so this goroutine stays
	// on its thread until the process ends.
	runtime.LockOSThread()
	base := os.Getenv(sandboxEnv)
	fail := func(step string, err error) int {
		fmt.Fprintf(os.Stderr, "sandbox: %s: %v\n", step, err)
		return sandboxBroken
	}
	sb := filepath.Join(base, "sb")
	root := filepath.Join(sb, "root")
	up := filepath.Join(sb, "up")
	mounts := []struct {
		step         string
		src, dst, fs string
		flags        uintptr
		data         string
	}{
		{"private", "", "/", "", syscall.MS_REC | syscall.MS_PRIVATE, ""},
		{"tmpfs", "vibe-sbx", sb, "tmpfs", 0, "size=512m,mode=0755"},
	}
	for _, m := range mounts {
		if err := syscall.Mount(m.src, m.dst, m.fs, m.flags, m.data); err != nil {
			return fail(m.step, err)
		}
	}
	for _, d := range []string{root, filepath.Join(up, "u"), filepath.Join(up, "w")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fail("mkdir", err)
		}
	}
	steps := []struct {
		step         string
		src, dst, fs string
		flags        uintptr
		data         string
	}{
		{"overlay", "overlay", root, "overlay", 0, "lowerdir=/,upperdir=" + filepath.Join(up, "u") + ",workdir=" + filepath.Join(up, "w")},
		{"proc", "proc", root + "/proc", "proc", syscall.MS_RDONLY | syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC, ""},
		{"dev", "tmpfs", root + "/dev", "tmpfs", syscall.MS_NOSUID, "mode=0755"},
		{"sys", "/sys", root + "/sys", "", syscall.MS_BIND | syscall.MS_REC, ""},
		{"sys ro", "", root + "/sys", "", syscall.MS_BIND | syscall.MS_REMOUNT | syscall.MS_RDONLY, ""},
	}
	for _, m := range steps {
		if err := syscall.Mount(m.src, m.dst, m.fs, m.flags, m.data); err != nil {
			return fail(m.step, err)
		}
	}
	for _, d := range []string{"null", "zero", "full", "random", "urandom", "tty"} {
		p := root + "/dev/" + d
		if err := os.WriteFile(p, nil, 0o666); err != nil {
			return fail("dev "+d, err)
		}
		if err := syscall.Mount("/dev/"+d, p, "", syscall.MS_BIND, ""); err != nil {
			return fail("dev "+d, err)
		}
	}
	os.Mkdir(root+"/dev/shm", 0o1777)
	os.Mkdir(root+"/dev/pts", 0o755)
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		os.Symlink(target, root+"/dev/"+name)
	}
	if err := syscall.Mount("tmpfs", root+"/dev/shm", "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "size=64m"); err != nil {
		return fail("shm", err)
	}
	for _, d := range []string{"proj", "report"} {
		if err := syscall.Mount(filepath.Join(base, d), root+filepath.Join(base, d), "", syscall.MS_BIND, ""); err != nil {
			return fail("bind "+d, err)
		}
	}
	upView := root + "/.vibe-sbx-up"
	if err := os.Mkdir(upView, 0o755); err != nil {
		return fail("upper view", err)
	}
	if err := syscall.Mount(filepath.Join(up, "u"), upView, "", syscall.MS_BIND, ""); err != nil {
		return fail("upper view", err)
	}
	if err := syscall.Mount("", upView, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		return fail("upper view ro", err)
	}
	old := root + "/.vibe-sbx-old"
	if err := os.Mkdir(old, 0o700); err != nil {
		return fail("old root", err)
	}
	if err := syscall.PivotRoot(root, old); err != nil {
		return fail("pivot_root", err)
	}
	if err := syscall.Chdir("/"); err != nil {
		return fail("chdir", err)
	}
	if err := syscall.Unmount("/.vibe-sbx-old", syscall.MNT_DETACH); err != nil {
		return fail("detach the old root", err)
	}
	os.Remove("/.vibe-sbx-old")
	var sfs syscall.Statfs_t
	if err := syscall.Statfs("/", &sfs); err != nil || sfs.Type != overlayMagic {
		return fail("the root is not the overlay", fmt.Errorf("statfs type %x, %v", sfs.Type, err))
	}
	// The command runs with the file capabilities only.
	keep := map[int]bool{0: true, 1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true}
	for capNo := 0; capNo <= 63; capNo++ {
		if keep[capNo] {
			continue
		}
		const prCapbsetDrop = 24
		if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prCapbsetDrop, uintptr(capNo), 0); errno != 0 && errno != syscall.EINVAL {
			return fail("drop capability "+strconv.Itoa(capNo), errno)
		}
	}
	for _, l := range []struct {
		res int
		max uint64
	}{{syscall.RLIMIT_FSIZE, 64 << 20}, {syscall.RLIMIT_AS, 2 << 30}, {syscall.RLIMIT_CORE, 0}} {
		if err := syscall.Setrlimit(l.res, &syscall.Rlimit{Cur: l.max, Max: l.max}); err != nil {
			return fail("rlimit", err)
		}
	}
	timeout, _ := time.ParseDuration(os.Getenv(sandboxTimeEnv))
	home := filepath.Join(base, "home")
	os.MkdirAll(home, 0o755)
	sh := exec.Command("/bin/bash", "-c", os.Getenv(sandboxCmdEnv))
	sh.Dir = os.Getenv(sandboxCwdEnv)
	sh.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + home, "LANG=C.UTF-8",
		"USER=root", "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@example.org", "GIT_COMMITTER_NAME=A",
		"GIT_COMMITTER_EMAIL=a@example.org", "TERM=dumb", "PAGER=cat", "GIT_PAGER=cat", "EDITOR=true"}
	out := &headWriter{max: 400}
	sh.Stdout, sh.Stderr = out, out
	exit := -1
	if err := sh.Start(); err == nil {
		done := make(chan error, 1)
		go func() { done <- sh.Wait() }()
		select {
		case err := <-done:
			exit = 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				exit = ee.ExitCode()
			}
		case <-time.After(timeout):
		}
	}
	syscall.Kill(-1, syscall.SIGKILL) // whatever it left running
	var b strings.Builder
	upView = "/.vibe-sbx-up" // where it is after the pivot
	filepath.WalkDir(upView, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == upView {
			return nil
		}
		kind := "f"
		switch {
		case d.IsDir():
			kind = "d"
		case d.Type()&fs.ModeCharDevice != 0:
			kind = "c" // a whiteout: removed
		}
		fmt.Fprintf(&b, "%s %s\n", kind, strings.TrimPrefix(p, upView+"/"))
		return nil
	})
	os.Stdout.Write(out.buf)
	os.MkdirAll(filepath.Join(base, "report"), 0o755) // the command may have removed it
	os.WriteFile(filepath.Join(base, "report", "outside"), []byte(b.String()), 0o644)
	os.WriteFile(filepath.Join(base, "report", "exit"), []byte(strconv.Itoa(exit)), 0o644)
	return 0
}

// headWriter keeps the first max bytes written to it and drops the rest.
type headWriter struct {
	buf []byte
	max int
}

func (w *headWriter) Write(p []byte) (int, error) {
	if room := w.max - len(w.buf); room > 0 {
		w.buf = append(w.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// TestMain starts the sandbox when the test binary is started as one.
func TestMain(m *testing.M) {
	if os.Getenv(sandboxEnv) != "" {
		os.Exit(sandboxInit())
	}
	os.Exit(m.Run())
}

// sandboxUsable runs a probe in the sandbox and reports why it cannot be
// used here ("" when it can): it needs root (for the overlay and the new
// namespaces) and must hold a hostile command in.
func sandboxUsable(t *testing.T) string {
	t.Helper()
	if os.Getuid() != 0 {
		return "the sandbox needs root (mount and PID namespaces, an overlay on /)"
	}
	base := t.TempDir()
	os.MkdirAll(filepath.Join(base, "proj"), 0o755)
	os.WriteFile(filepath.Join(base, "proj", "f.txt"), []byte("a\n"), 0o644)
	probe := fmt.Sprintf("/etc/vibe-sbx-probe-%d", os.Getpid())
	res, err := runSandboxed(base, filepath.Join(base, "proj"),
		"echo x > "+probe+"; rm -rf /usr/share/doc/bash; echo b >> f.txt; date -s @$(date +%s) >/dev/null 2>&1 && echo CLOCK-SET; echo b > /proc/sysrq-trigger 2>/dev/null; exit 3", 5*time.Second)
	if _, serr := os.Lstat(probe); serr == nil {
		os.Remove(probe)
		t.Fatalf("the sandbox let a write through to %s", probe)
	}
	if _, serr := os.Stat("/usr/share/doc/bash"); serr != nil && err == nil {
		t.Fatal("the sandbox let a removal through to /usr/share/doc/bash")
	}
	if err != nil {
		return err.Error()
	}
	// The probe sets the clock to the time it reads (a second's change at
	// most, should it get through): a sandbox that let it would let a
	// command of the corpus move the host's clock.
	if strings.Contains(res.output, "CLOCK-SET") {
		t.Fatal("the sandbox let a command set the system clock")
	}
	if b, _ := os.ReadFile(filepath.Join(base, "proj", "f.txt")); string(b) != "a\nb\n" || res.exit != 3 {
		t.Fatalf("the sandbox did not run the command in the project: %q, exit %d (%s)", b, res.exit, res.output)
	}
	got := strings.Join(res.outside, "\n")
	if !strings.Contains(got, "f "+strings.TrimPrefix(probe, "/")) {
		t.Fatalf("the sandbox's report lacks the write: %v", res.outside)
	}
	if !strings.Contains(got, "c usr/share/doc/bash") {
		t.Fatalf("the sandbox's report lacks the removal: %v", res.outside)
	}
	return ""
}

// TestSandbox: a command that writes outside the project, removes system
// files and tries to set the clock changes only the project copy, and what
// it did outside is reported.
func TestSandbox(t *testing.T) {
	if why := sandboxUsable(t); why != "" {
		t.Skip(why)
	}
}
