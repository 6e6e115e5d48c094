//go:build !linux

package tamper

import "os"

// lstat reads size, mtime and the kind of file through os.Lstat; systems
// other than Linux get no ctime or inode here, so a change that keeps size
// and mtime is seen only at a full check's hash (Stop).
func lstat(path string) (fileStat, error) { return statWith(os.Lstat, path) }

// fstat is lstat of an open file.
func fstat(f *os.File) (fileStat, error) {
	return statWith(func(string) (os.FileInfo, error) { return f.Stat() }, f.Name())
}

// stat is lstat through a final symlink.
func stat(path string) (fileStat, error) { return statWith(os.Stat, path) }

func statWith(f func(string) (os.FileInfo, error), path string) (fileStat, error) {
	fi, err := f(path)
	if err != nil {
		return fileStat{}, err
	}
	m := fileMode{Kind: kindOther, Perm: uint32(fi.Mode().Perm())}
	switch {
	case fi.Mode().IsRegular():
		m.Kind = kindRegular
	case fi.IsDir():
		m.Kind = kindDir
	case fi.Mode()&os.ModeSymlink != 0:
		m.Kind = kindLink
	}
	return fileStat{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: m}, nil
}

// setMeta gives the file at path the permission bits of want; owners are
// not compared on these systems.
func setMeta(path string, have, want fileStat) error {
	if have.Mode.Perm != want.Mode.Perm && want.Mode.Kind != kindLink {
		return os.Chmod(path, os.FileMode(want.Mode.Perm)&os.ModePerm)
	}
	return nil
}
