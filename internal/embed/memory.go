package embed

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// Memory is this process's resident set, the figure `vibe worker status`
// and the benchmark report: a loaded MiniLM on the Go backend holds
// hundreds of megabytes, so it is worth watching.
type Memory struct {
	RSS  int64 `json:"rss_bytes"`      // resident now (VmRSS)
	Peak int64 `json:"rss_peak_bytes"` // high-water mark (VmHWM)
}

// ReadMemory reads /proc/self/status. Where there is no /proc (macOS), it
// returns zeros and an error the caller may ignore.
func ReadMemory() (Memory, error) {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return Memory{}, fmt.Errorf("read memory: %w", err)
	}
	return parseStatus(raw)
}

func parseStatus(raw []byte) (Memory, error) {
	var m Memory
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		key, rest, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		var dst *int64
		switch string(key) {
		case "VmRSS":
			dst = &m.RSS
		case "VmHWM":
			dst = &m.Peak
		default:
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return m, fmt.Errorf("read memory: unexpected %s line %q", key, sc.Text())
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return m, fmt.Errorf("read memory: %s: %w", key, err)
		}
		*dst = kb * 1024
	}
	return m, nil
}
