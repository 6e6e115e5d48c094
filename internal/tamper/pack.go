package tamper

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// PackMaxBytes is the largest content kept in a project's pack rather than
// in a blob file of its own. Creating a file costs far more than appending
// to one (on the development VM creating 10k blob files took most of a
// 10k-file first sight), and most guarded files are small.
const PackMaxBytes = 256 << 10

// pack is a project's append-only file of small contents. Each content is
// written with one write on an O_APPEND descriptor, which the kernel
// positions at the end atomically, so two processes appending at once
// never overlap; its offset is read back from the descriptor. A content is
// checked against its hash whenever it is read back.
type pack struct {
	path string
	f    *os.File
}

func (p *pack) open() error {
	if p.f != nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(p.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	p.f = f
	return nil
}

// add appends data and returns where it starts.
func (p *pack) add(data []byte) (int64, error) {
	if err := p.open(); err != nil {
		return 0, fmt.Errorf("open %s: %w", p.path, err)
	}
	if _, err := p.f.Write(data); err != nil {
		return 0, fmt.Errorf("write %s: %w", p.path, err)
	}
	end, err := p.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, fmt.Errorf("write %s: %w", p.path, err)
	}
	return end - int64(len(data)), nil
}

// read returns the content at off after checking its hash.
func (p *pack) read(off, n int64, sum [32]byte) ([]byte, error) {
	if err := p.open(); err != nil {
		return nil, fmt.Errorf("open the kept copy: %w", err)
	}
	data := make([]byte, n)
	if _, err := p.f.ReadAt(data, off); err != nil {
		return nil, fmt.Errorf("read the kept copy: %w", err)
	}
	if sha256.Sum256(data) != sum {
		return nil, errDamaged
	}
	return data, nil
}

// close closes the descriptor; the next use opens the file again.
func (p *pack) close() {
	if p.f != nil {
		p.f.Close()
		p.f = nil
	}
}

// reset empties the pack (a new first sight starts a new snapshot).
func (p *pack) reset() {
	if p.f != nil {
		p.f.Close()
		p.f = nil
	}
	os.Remove(p.path)
}

// stageData writes data into a temporary file in dir (recreated if it was
// removed) and returns its name.
func stageData(dir string, data []byte, perm os.FileMode) (string, error) {
	tmp, err := createStage(dir)
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(data)
	return finishStage(tmp, perm, err)
}

func createStage(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("recreate %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, ".vibe-restore-*")
	if err != nil {
		return nil, fmt.Errorf("write in %s: %w", dir, err)
	}
	return tmp, nil
}

// finishStage sets the mode, syncs and closes a staged file; on any error
// (err included) the file is removed.
func finishStage(tmp *os.File, perm os.FileMode, err error) (string, error) {
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}
