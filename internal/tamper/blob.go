package tamper

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// blobs is the content store: one file per distinct content, named by its
// SHA-256, shared by every project under the same VIBE_HOME (a review
// copied into two projects is kept once).
type blobs struct {
	dir  string
	made *sync.Map // sub-folders known to exist, to skip a mkdir per copy
}

func newBlobs(dir string) blobs { return blobs{dir: dir, made: &sync.Map{}} }

// mkdir creates a folder of the store once per process.
func (b blobs) mkdir(dir string) error {
	if _, ok := b.made.Load(dir); ok {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b.made.Store(dir, true)
	return nil
}

func (b blobs) path(sum [32]byte) string {
	h := hex.EncodeToString(sum[:])
	return filepath.Join(b.dir, h[:2], h)
}

// hashFile returns the SHA-256 and size of the file at path, reading it
// once; with keep, the content is also copied into the store on the way
// (unless the store already has it).
func (b blobs) hashFile(path string, keep bool) (sum [32]byte, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return sum, 0, err
	}
	defer f.Close()
	h := sha256.New()
	if !keep {
		size, err = io.Copy(h, f)
		copy(sum[:], h.Sum(nil))
		return sum, size, err
	}
	if err := b.mkdir(b.dir); err != nil {
		return sum, 0, fmt.Errorf("create %s: %w", b.dir, err)
	}
	// CreateTemp makes the file 0600.
	tmp, err := os.CreateTemp(b.dir, ".tmp-blob-*")
	if err != nil {
		return sum, 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(tmp.Name())
		}
	}()
	size, err = io.Copy(io.MultiWriter(h, tmp), f)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return sum, 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	copy(sum[:], h.Sum(nil))
	dst := b.path(sum)
	if err := b.mkdir(filepath.Dir(dst)); err != nil {
		return sum, 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	err = os.Rename(tmp.Name(), dst)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		// The store's folder was removed under us: make it again.
		b.made.Delete(filepath.Dir(dst))
		if err = os.MkdirAll(filepath.Dir(dst), 0o700); err == nil {
			err = os.Rename(tmp.Name(), dst)
		}
	}
	if err != nil {
		return sum, 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	renamed = true
	return sum, size, nil
}

// errDamaged says a kept content no longer has the hash it is named by
// (someone changed VIBE_HOME): restoring it would restore the wrong thing.
var errDamaged = errors.New("the kept copy was changed since it was taken")

// read returns a kept content after checking its hash.
func (b blobs) read(sum [32]byte) ([]byte, error) {
	data, err := os.ReadFile(b.path(sum))
	if err != nil {
		return nil, err
	}
	if sha256.Sum256(data) != sum {
		return nil, errDamaged
	}
	return data, nil
}

// stage writes the kept content sum into a temporary file in dir
// (recreated if it was removed), checked against the hash while it is
// written, and returns its name; renaming it over the target completes a
// restore.
func (b blobs) stage(sum [32]byte, dir string, perm fs.FileMode) (string, error) {
	src, err := os.Open(b.path(sum))
	if err != nil {
		return "", fmt.Errorf("open the kept copy: %w", err)
	}
	defer src.Close()
	tmp, err := createStage(dir)
	if err != nil {
		return "", err
	}
	var h hash.Hash = sha256.New()
	_, err = io.Copy(io.MultiWriter(h, tmp), src)
	if err == nil && [32]byte(h.Sum(nil)) != sum {
		err = errDamaged
	}
	return finishStage(tmp, perm, err)
}
