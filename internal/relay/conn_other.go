//go:build !unix

package relay

import (
	"errors"
	"time"
)

// roundTrip is not available without Unix sockets: hooks run locally.
func roundTrip(string, []byte, time.Duration) ([]byte, error) {
	return nil, errors.New("no Unix sockets on this system")
}
