package gate

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// DQ1Head runs DQ1 on at most the first maxBytes of a features table, cut
// at the last complete line, so a table too large to read within a hook
// is still judged on a sample; the result says how much was read. A table
// no larger than maxBytes is judged whole, as DQ1Compare does; prev, when
// not nil, is the profile of the table's previous version.
func DQ1Head(featuresPath string, maxBytes int64, prev *TableProfile, d Domain) (Result, error) {
	f, err := os.Open(featuresPath)
	if err != nil {
		return Result{}, fmt.Errorf("dq1: open features: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Result{}, fmt.Errorf("dq1: open features: %w", err)
	}
	if info.Size() <= maxBytes {
		return dq1With(f, featuresPath, d, prev), nil
	}
	buf := make([]byte, maxBytes)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF {
		return Result{}, fmt.Errorf("dq1: read features: %w", err)
	}
	buf = buf[:n]
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		buf = buf[:i+1]
	}
	res := dq1With(bytes.NewReader(buf), featuresPath, d, prev)
	res.Groups = nil // a sample's groups are not the table's
	rows := bytes.Count(buf, []byte{'\n'}) - 1
	res.pass("sample", fmt.Sprintf("%s is %s; judged on its first %d data rows (%s); run `vibe gate run DQ1 --features %s` for the whole table",
		filepath.Base(featuresPath), humanBytes(info.Size()), rows, humanBytes(int64(len(buf))), featuresPath))
	return res, nil
}

// humanBytes renders a size for messages: 512 B, 3.2 MB, 1.5 GB.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
