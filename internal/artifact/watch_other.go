//go:build !linux

package artifact

import "errors"

// watcher is Linux-only; elsewhere the tracker stats every look.
type watcher struct{}

func newWatcher() (*watcher, error)                  { return nil, errors.New("no change reports on this system") }
func (w *watcher) add(string) error                  { return errors.New("no change reports on this system") }
func (w *watcher) close()                            {}
func (w *watcher) drain() ([]string, []string, bool) { return nil, nil, false }
