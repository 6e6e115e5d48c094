package viewer

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultPollInterval is how often the live stream looks for new spine
// entries.
const DefaultPollInterval = time.Second

// ContentSecurityPolicy is sent with every response: only this server's own
// stylesheet and script, no inline script or style, no remote fetch, no
// framing, forms only to this server.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Config is what a Server needs.
type Config struct {
	// Store is the database, opened read-only by the caller
	// (store.Options{ReadOnly: true}).
	Store Reads
	// Project is the project root whose records are shown.
	Project string
	// Token is the per-run secret every request must carry (?t=...); empty
	// means New draws a random one.
	Token string
	// Now is the clock (ages of seeds and sessions).
	Now func() time.Time
	// PollInterval overrides DefaultPollInterval (tests shrink it).
	PollInterval time.Duration
}

// Server is the viewer's HTTP server.
type Server struct {
	cfg     Config
	pages   *pages
	handler http.Handler
	http    *http.Server
	cancel  context.CancelFunc
	spine   spineFacets
}

// New builds a server; it does not listen yet.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("viewer: no store")
	}
	if cfg.Project == "" {
		return nil, errors.New("viewer: no project")
	}
	if cfg.Token == "" {
		t, err := NewToken()
		if err != nil {
			return nil, err
		}
		cfg.Token = t
	}
	if cfg.Now == nil {
		return nil, errors.New("viewer: no clock")
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	s := &Server{cfg: cfg}
	p, err := newPages(s)
	if err != nil {
		return nil, err
	}
	s.pages = p
	s.handler = s.guard(p.mux())
	// The base context ends the live streams on Close: http.Server.Close
	// does not wait for a handler that never returns by itself.
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.http = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       time.Minute,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	return s, nil
}

// NewToken draws a random 128-bit token, hex encoded.
func NewToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("draw viewer token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Handler is the whole viewer behind its guards (tests call it directly).
func (s *Server) Handler() http.Handler { return s.handler }

// Listen opens the listening socket on addr, which must name 127.0.0.1 (or
// localhost, which means 127.0.0.1) and a port (0: any free one). Any other
// host, including an empty one, a wildcard or another interface, is refused:
// the viewer shows research records to whoever can reach it.
func Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("viewer address %q: %w", addr, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	if host != "127.0.0.1" {
		return nil, fmt.Errorf("viewer address %q: the viewer only listens on 127.0.0.1 (loopback), never on %q", addr, host)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return nil, fmt.Errorf("viewer address %q: port must be a number from 0 to 65535", addr)
	}
	ln, err := net.Listen("tcp4", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w (choose another --port)", net.JoinHostPort(host, port), err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		ln.Close()
		return nil, fmt.Errorf("viewer address %q: listener is not on loopback (%s)", addr, ln.Addr())
	}
	return ln, nil
}

// Serve answers on ln until Close; it returns nil after Close.
func (s *Server) Serve(ln net.Listener) error {
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		return fmt.Errorf("viewer: refusing to serve on %s: not a loopback address", ln.Addr())
	}
	err := s.http.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// URL is the address to open: the overview page with the token.
func (s *Server) URL(ln net.Listener) string {
	return "http://" + ln.Addr().String() + "/?t=" + url.QueryEscape(s.cfg.Token)
}

// Close stops the server and ends the live streams; a Serve called after
// it returns at once.
func (s *Server) Close() error {
	s.cancel()
	return s.http.Close()
}

// guard refuses what the viewer never serves: a peer that is not loopback, a
// Host header naming another site (a DNS-rebinding page), a request without
// the token, and any method but GET and HEAD. It also sets the security
// headers on every response, refusals included.
func (s *Server) guard(next http.Handler) http.Handler {
	token := []byte(s.cfg.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if !loopbackPeer(r.RemoteAddr) {
			http.Error(w, "vibe ui answers only on this machine (loopback)", http.StatusForbidden)
			return
		}
		if !loopbackHost(r.Host) {
			http.Error(w, "vibe ui answers only to http://127.0.0.1 or http://localhost; open the URL it printed", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "vibe ui is read-only", http.StatusMethodNotAllowed)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("t")), token) != 1 {
			http.Error(w, "missing or wrong token: open the URL `vibe ui` printed (it ends in ?t=...)", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func loopbackPeer(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
