package filememo

import (
	"os"
	"syscall"
)

func stampOf(info os.FileInfo) stamp {
	s := stamp{size: info.Size(), mtimeNS: info.ModTime().UnixNano()}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		s.dev, s.ino = uint64(st.Dev), st.Ino
		s.ctimeNS = st.Ctim.Sec*1e9 + st.Ctim.Nsec
	}
	return s
}
