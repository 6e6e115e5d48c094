module github.com/vibe-science/vibe

go 1.26.0

require (
	github.com/asg017/sqlite-vec-go-bindings v0.1.6 // indirect
	github.com/gobwas/glob v0.2.3 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/mattn/go-sqlite3 v1.14.53 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/term v0.45.0 // indirect
	golang.org/x/text v0.14.0 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)
