//go:build linux

package artifact

import (
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watcher reads the kernel's change reports (inotify) for the watched
// folders: which folders gained or lost entries, which files were written.
type watcher struct {
	fd   int
	dirs map[int32]string // watch descriptor → folder
	buf  []byte
}

const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_MODIFY |
	unix.IN_CLOSE_WRITE | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

func newWatcher() (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &watcher{fd: fd, dirs: map[int32]string{}, buf: make([]byte, 64<<10)}, nil
}

func (w *watcher) add(dir string) error {
	wd, err := unix.InotifyAddWatch(w.fd, dir, watchMask)
	if err != nil {
		return err
	}
	w.dirs[int32(wd)] = dir
	return nil
}

func (w *watcher) close() { unix.Close(w.fd) }

// drain reads every queued report: the folders whose entries changed and
// the files written. ok is false when reports were lost (the queue
// overflowed, a watched folder itself moved or vanished, a read failed):
// the caller must then look at everything.
func (w *watcher) drain() (dirs, files []string, ok bool) {
	seenDir, seenFile := map[string]bool{}, map[string]bool{}
	for {
		n, err := unix.Read(w.fd, w.buf)
		if err == unix.EAGAIN || n == 0 {
			return dirs, files, true
		}
		if err != nil || n < 0 {
			return nil, nil, false
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			nameLen := int(ev.Len)
			name := ""
			if nameLen > 0 {
				raw := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+nameLen]
				for i, c := range raw {
					if c == 0 {
						raw = raw[:i]
						break
					}
				}
				name = string(raw)
			}
			off += unix.SizeofInotifyEvent + nameLen
			if ev.Mask&(unix.IN_Q_OVERFLOW|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0 {
				return nil, nil, false
			}
			dir, known := w.dirs[ev.Wd]
			if !known {
				continue
			}
			if name == "" {
				continue
			}
			if ev.Mask&(unix.IN_CREATE|unix.IN_DELETE|unix.IN_MOVED_FROM|unix.IN_MOVED_TO) != 0 && !seenDir[dir] {
				seenDir[dir] = true
				dirs = append(dirs, dir)
			}
			if f := filepath.Join(dir, name); ev.Mask&(unix.IN_MODIFY|unix.IN_CLOSE_WRITE|unix.IN_ATTRIB|unix.IN_MOVED_TO|unix.IN_CREATE) != 0 && !seenFile[f] {
				seenFile[f] = true
				files = append(files, f)
			}
		}
	}
}
