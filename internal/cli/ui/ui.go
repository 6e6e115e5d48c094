package ui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/viewer"
)

// UIOptions are the flags of `vibe ui`.
type UIOptions struct {
	IO          cli.IO
	Paths       func() config.Paths
	ProjectRoot func(dir string, all bool) (string, error)
	Now         func() time.Time
	// Exec and LookPath start the browser (--open).
	Exec     func(ctx context.Context, name string, args ...string) (string, error)
	LookPath func(string) (string, error)

	Project string
	Port    int
	Open    bool
	// Listening, when set, is told the URL once the server listens (tests).
	Listening func(url string)
}

// NewCmdUI builds `vibe ui`.
func NewCmdUI(f *cli.Factory, runF func(*UIOptions) error) *cobra.Command {
	opts := &UIOptions{IO: f.IO, Paths: f.Paths, ProjectRoot: f.ProjectRoot, Now: f.Now, Exec: f.Exec, LookPath: f.LookPath}
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Open a local, read-only web viewer of the project's research record",
		Long: "Serves the project's sessions, spine, claims with their evidence graph, gate history, calibration " +
			"(reliability diagram, Brier, ECE), literature, seeds, what vibe denied, blocked, asked and warned, and " +
			"the memories (search, kinds, trust, superseded and disputed ones) on http://127.0.0.1 only, behind a random " +
			"token printed with the URL. The database is opened read-only; pages refresh when new spine entries " +
			"land. Stop it with Ctrl-C.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Port < 0 || opts.Port > 65535 {
				return &cli.UsageError{Err: fmt.Errorf("--port must be between 0 and 65535, not %d", opts.Port)}
			}
			if runF != nil {
				return runF(opts)
			}
			return runUI(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().IntVar(&opts.Port, "port", 0, "port on 127.0.0.1 (default: any free port)")
	cmd.Flags().BoolVar(&opts.Open, "open", false, "open the viewer in the default browser (xdg-open / open)")
	return cmd
}

func runUI(ctx context.Context, o *UIOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	dbPath := o.Paths().DB
	if _, err := os.Stat(dbPath); errors.Is(err, fs.ErrNotExist) {
		return fault.Errorf(fault.NotFound, "open viewer", "no database at %s: run `vibe setup` (or set VIBE_HOME) first", dbPath)
	}
	// A connection of its own, read-only: the viewer has no write path, and
	// SQLite refuses one should a bug add it.
	st, err := store.Open(ctx, dbPath, store.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer st.Close()
	// A read-only connection cannot migrate: an older file would miss
	// tables the pages read.
	if v, err := st.Version(ctx); err != nil {
		return err
	} else if v < db.Latest() {
		return fault.Errorf(fault.Unavailable, "open viewer",
			"database schema version %d is older than this vibe's (%d): run `vibe setup` to migrate it, then `vibe ui` again", v, db.Latest())
	}
	root, err := o.ProjectRoot(o.Project, false)
	if err != nil {
		return err
	}
	srv, err := viewer.New(viewer.Config{Store: st, Project: root, Now: o.Now})
	if err != nil {
		return err
	}
	ln, err := viewer.Listen(net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port)))
	if err != nil {
		return err
	}
	url := srv.URL(ln)
	fmt.Fprintf(o.IO.ErrOut, "vibe ui: serving %s read-only; stop with Ctrl-C\n", root)
	fmt.Fprintln(o.IO.Out, url)
	if o.Open {
		if err := openBrowser(ctx, o, url); err != nil {
			fmt.Fprintf(o.IO.ErrOut, "vibe ui: could not open a browser (%v); open the URL above yourself\n", err)
		}
	}
	if o.Listening != nil {
		o.Listening(url)
	}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	return srv.Serve(ln)
}

// openBrowser hands the URL to the desktop's opener.
func openBrowser(ctx context.Context, o *UIOptions, url string) error {
	if o.Exec == nil || o.LookPath == nil {
		return errors.New("no way to start programs")
	}
	for _, opener := range []string{"xdg-open", "open"} {
		if _, err := o.LookPath(opener); err == nil {
			_, err := o.Exec(ctx, opener, url)
			return err
		}
	}
	return errors.New("neither xdg-open nor open is installed")
}
