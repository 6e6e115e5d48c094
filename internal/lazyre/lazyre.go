// Package lazyre holds regular expressions that compile on first use. Hook
// binaries are fresh processes on every tool call, and package-level
// regexp.MustCompile runs for every expression of every linked package at
// start-up whether the call needs it or not; a lazy expression costs
// nothing until it is matched. Methods mirror regexp.Regexp's. Standard
// library only.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use. An invalid
// expression panics on first use, as regexp.MustCompile would at start-up;
// a test that touches every expression catches it.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// New returns a lazily compiled expression.
func New(expr string) *Regexp { return &Regexp{expr: expr} }

// Re compiles (once) and returns the expression.
func (l *Regexp) Re() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

// String is the source text.
func (l *Regexp) String() string { return l.expr }

func (l *Regexp) Match(b []byte) bool                  { return l.Re().Match(b) }
func (l *Regexp) MatchString(s string) bool            { return l.Re().MatchString(s) }
func (l *Regexp) FindString(s string) string           { return l.Re().FindString(s) }
func (l *Regexp) FindStringIndex(s string) []int       { return l.Re().FindStringIndex(s) }
func (l *Regexp) FindStringSubmatch(s string) []string { return l.Re().FindStringSubmatch(s) }
func (l *Regexp) FindStringSubmatchIndex(s string) []int {
	return l.Re().FindStringSubmatchIndex(s)
}
func (l *Regexp) FindAllString(s string, n int) []string { return l.Re().FindAllString(s, n) }
func (l *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return l.Re().FindAllStringIndex(s, n)
}
func (l *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.Re().FindAllStringSubmatch(s, n)
}
func (l *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.Re().FindAllStringSubmatchIndex(s, n)
}
func (l *Regexp) FindSubmatch(b []byte) [][]byte             { return l.Re().FindSubmatch(b) }
func (l *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte { return l.Re().FindAllSubmatch(b, n) }
func (l *Regexp) FindAllIndex(b []byte, n int) [][]int       { return l.Re().FindAllIndex(b, n) }
func (l *Regexp) FindIndex(b []byte) []int                   { return l.Re().FindIndex(b) }
func (l *Regexp) ReplaceAllString(s, repl string) string     { return l.Re().ReplaceAllString(s, repl) }
func (l *Regexp) ReplaceAllStringFunc(s string, f func(string) string) string {
	return l.Re().ReplaceAllStringFunc(s, f)
}
func (l *Regexp) ReplaceAllLiteralString(s, repl string) string {
	return l.Re().ReplaceAllLiteralString(s, repl)
}
func (l *Regexp) Split(s string, n int) []string { return l.Re().Split(s, n) }
func (l *Regexp) SubexpNames() []string          { return l.Re().SubexpNames() }
func (l *Regexp) SubexpIndex(name string) int    { return l.Re().SubexpIndex(name) }
func (l *Regexp) NumSubexp() int                 { return l.Re().NumSubexp() }
