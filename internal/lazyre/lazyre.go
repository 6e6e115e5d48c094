// Package lazyre holds regular expressions that compile on first use. Hook
// binaries are fresh processes on every tool call, and package-level
// regexp.MustCompile runs for every expression of every linked package at
// start-up whether the call needs it or not; a lazy expression costs
// nothing until it is matched. The methods vibe calls mirror regexp.Regexp's
// (Re gives the compiled expression for the others). Standard library only.
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

func (l *Regexp) MatchString(s string) bool              { return l.Re().MatchString(s) }
func (l *Regexp) FindString(s string) string             { return l.Re().FindString(s) }
func (l *Regexp) FindStringIndex(s string) []int         { return l.Re().FindStringIndex(s) }
func (l *Regexp) FindStringSubmatch(s string) []string   { return l.Re().FindStringSubmatch(s) }
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
func (l *Regexp) ReplaceAllString(s, repl string) string { return l.Re().ReplaceAllString(s, repl) }
