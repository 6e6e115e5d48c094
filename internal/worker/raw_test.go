package worker

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"
)

// rawExchange writes raw to the socket and reads n reply lines.
func rawExchange(t *testing.T, socket, raw string, n int) []string {
	t.Helper()
	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	var out []string
	for range n {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d replies: %v", len(out), err)
		}
		out = append(out, strings.TrimSuffix(line, "\n"))
	}
	return out
}
