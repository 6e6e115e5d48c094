package tamper

import (
	"fmt"
	"os"
	"syscall"
)

// lstat reads what tells a file's content may have changed without reading
// it: size, mtime, ctime (which no user can set back), inode and device.
// syscall.Lstat costs about 1.6 µs on the development VM and allocates
// nothing, against os.Lstat's FileInfo.
func lstat(path string) (fileStat, error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return fileStat{}, err
	}
	return fileStat{
		Size:  st.Size,
		Mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec,
		Ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec,
		Ino:   st.Ino,
		Dev:   uint64(st.Dev),
		Mode:  modeOf(st.Mode),
		Uid:   st.Uid,
		Gid:   st.Gid,
	}, nil
}

// fstat is lstat of an open file.
func fstat(f *os.File) (fileStat, error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return fileStat{}, err
	}
	var st syscall.Stat_t
	var serr error
	if err := raw.Control(func(fd uintptr) { serr = syscall.Fstat(int(fd), &st) }); err != nil {
		return fileStat{}, err
	}
	if serr != nil {
		return fileStat{}, serr
	}
	return fileStat{Size: st.Size, Mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec, Ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec,
		Ino: st.Ino, Dev: uint64(st.Dev), Mode: modeOf(st.Mode), Uid: st.Uid, Gid: st.Gid}, nil
}

// stat is lstat through a final symlink (a guarded folder kept elsewhere).
func stat(path string) (fileStat, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return fileStat{}, err
	}
	return fileStat{Size: st.Size, Mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec, Ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec,
		Ino: st.Ino, Dev: uint64(st.Dev), Mode: modeOf(st.Mode), Uid: st.Uid, Gid: st.Gid}, nil
}

// setMeta gives the file or folder at path the mode (setuid, setgid and
// sticky bits included) and owner of want, where they differ from have;
// a symlink's own mode is left alone.
func setMeta(path string, have, want fileStat) error {
	if have.Uid != want.Uid || have.Gid != want.Gid {
		if err := syscall.Lchown(path, int(want.Uid), int(want.Gid)); err != nil {
			return fmt.Errorf("give %s back its owner %d:%d: %w", path, want.Uid, want.Gid, err)
		}
		have.Mode.Perm = ^uint32(0) // chown clears setuid bits: set the mode again
	}
	if have.Mode.Perm != want.Mode.Perm && want.Mode.Kind != kindLink {
		if err := syscall.Chmod(path, want.Mode.Perm); err != nil {
			return fmt.Errorf("give %s back its mode %04o: %w", path, want.Mode.Perm, err)
		}
	}
	return nil
}

func modeOf(m uint32) fileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFREG:
		return fileMode{Kind: kindRegular, Perm: m & 0o7777}
	case syscall.S_IFDIR:
		return fileMode{Kind: kindDir, Perm: m & 0o7777}
	case syscall.S_IFLNK:
		return fileMode{Kind: kindLink, Perm: m & 0o7777}
	}
	return fileMode{Kind: kindOther, Perm: m & 0o7777}
}
