//go:build !linux

package filememo

import "os"

// stampOf has only the portable fields here: size and modification time
// (standing in for the status change time too).
func stampOf(info os.FileInfo) stamp {
	return stamp{size: info.Size(), mtimeNS: info.ModTime().UnixNano(), ctimeNS: info.ModTime().UnixNano()}
}
