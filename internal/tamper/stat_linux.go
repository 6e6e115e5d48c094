package tamper

import "syscall"

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
	}, nil
}

// stat is lstat through a final symlink (a guarded folder kept elsewhere).
func stat(path string) (fileStat, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return fileStat{}, err
	}
	return fileStat{Size: st.Size, Mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec, Ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec,
		Ino: st.Ino, Dev: uint64(st.Dev), Mode: modeOf(st.Mode)}, nil
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
