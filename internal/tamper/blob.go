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
)

// blobs is the content store: one file per distinct content, named by its
// SHA-256, shared by every project under the same VIBE_HOME (a review
// copied into two projects is kept once).
type blobs struct{ dir string }

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
	if err := os.MkdirAll(b.dir, 0o700); err != nil {
		return sum, 0, fmt.Errorf("create %s: %w", b.dir, err)
	}
	tmp, err := os.CreateTemp(b.dir, ".tmp-blob-*")
	if err != nil {
		return sum, 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	size, err = io.Copy(io.MultiWriter(h, tmp), f)
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return sum, 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	copy(sum[:], h.Sum(nil))
	dst := b.path(sum)
	if _, err := os.Stat(dst); err == nil {
		return sum, size, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return sum, 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return sum, 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
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

// restoreTo writes the kept content sum to target atomically: a temporary
// file in target's folder (recreated if it was removed), checked against
// the hash while it is written, then renamed over target. A hard link or
// symlink that stood at target is replaced, not written through.
func (b blobs) restoreTo(sum [32]byte, target string, perm fs.FileMode) error {
	src, err := os.Open(b.path(sum))
	if err != nil {
		return fmt.Errorf("open the kept copy: %w", err)
	}
	defer src.Close()
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("recreate %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, ".vibe-restore-*")
	if err != nil {
		return fmt.Errorf("write beside %s: %w", target, err)
	}
	defer os.Remove(tmp.Name())
	var h hash.Hash = sha256.New()
	_, err = io.Copy(io.MultiWriter(h, tmp), src)
	if err == nil && [32]byte(h.Sum(nil)) != sum {
		err = errDamaged
	}
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
		return err
	}
	return os.Rename(tmp.Name(), target)
}
