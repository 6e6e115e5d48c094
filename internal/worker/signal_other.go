//go:build !unix

package worker

import "errors"

func terminate(int) error { return errors.New("stopping the worker needs a Unix system") }
