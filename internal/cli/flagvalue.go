package cli

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// durationValue is a duration flag that also takes days and weeks ("7d",
// "2w", "1d12h"): Go's time.ParseDuration stops at hours, and a researcher
// asks for the last week, not the last 168h.
type durationValue struct{ d *time.Duration }

// NewDurationValue is a --since style flag value stored in p (default
// def) that takes Go durations and days or weeks (7d, 2w).
func NewDurationValue(p *time.Duration, def time.Duration) *durationValue {
	*p = def
	return &durationValue{p}
}

var dayUnit = regexp.MustCompile(`^([0-9]*\.?[0-9]+)([dw])`)

// Set parses s as a duration, days or weeks.
func (v *durationValue) Set(s string) error {
	d, err := ParseDays(strings.TrimSpace(s))
	if err != nil {
		return err
	}
	*v.d = d
	return nil
}

// ParseDays reads a duration in days or weeks (7d, 2w) or as Go writes one
// (36h).
func ParseDays(s string) (time.Duration, error) {
	var total time.Duration
	for {
		m := dayUnit.FindStringSubmatch(s)
		if m == nil {
			break
		}
		n, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return 0, errDuration
		}
		unit := 24 * time.Hour
		if m[2] == "w" {
			unit *= 7
		}
		total += time.Duration(n * float64(unit))
		s = s[len(m[0]):]
	}
	if s == "" {
		if total == 0 {
			return 0, errDuration
		}
		return total, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errDuration
	}
	return total + d, nil
}

var errDuration = errors.New("want a duration such as 90s, 30m, 24h, 7d or 2w")

// Type is the word help shows for the value.
func (v *durationValue) Type() string { return "duration" }

// String is the value as help shows its default. Zero is "0", which
// pflag leaves out of the help: a --since with no default means "all",
// and "(default 0s)" reads as "nothing".
func (v *durationValue) String() string {
	if v.d == nil || *v.d == 0 {
		return "0"
	}
	d := *v.d
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}

// flagInvalid matches pflag's "invalid argument" error, whose cause is in
// Go's words (strconv.ParseInt: parsing "abc": invalid syntax).
var flagInvalid = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?(--[\w-]+)" flag: (.*)$`)

// flagUnknown matches pflag's error for a flag the command does not have.
var flagUnknown = regexp.MustCompile(`^unknown flag: --([\w-]+)$`)

// FlagError turns a flag-parsing error of c into sentences that say what
// the flag wants, followed by the flag's own line of c's help (a bad value),
// or the flags of c it was probably meant to be (an unknown flag).
func FlagError(c *cobra.Command, err error) error {
	if m := flagUnknown.FindStringSubmatch(err.Error()); m != nil {
		if s := flagSuggestions(c, m[1]); len(s) > 0 {
			return fmt.Errorf("%w\n\nDid you mean this?\n\t%s", err, strings.Join(s, "\n\t"))
		}
		return err
	}
	m := flagInvalid.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	value, flag, cause := m[1], m[2], m[3]
	switch {
	case strings.HasPrefix(cause, "strconv.ParseInt"), strings.HasPrefix(cause, "strconv.ParseUint"):
		cause = "want a whole number"
	case strings.HasPrefix(cause, "strconv.ParseFloat"):
		cause = "want a number"
	case strings.HasPrefix(cause, "strconv.ParseBool"):
		cause = "want true or false"
	case strings.HasPrefix(cause, "time: "):
		cause = errDuration.Error()
	}
	msg := fmt.Sprintf("%s %q: %s", flag, value, cause)
	if f := c.Flags().Lookup(strings.TrimPrefix(flag, "--")); f != nil {
		one := pflag.NewFlagSet("", pflag.ContinueOnError)
		one.AddFlag(f)
		msg += "\n" + strings.TrimRight(one.FlagUsages(), "\n")
	}
	return errors.New(msg)
}

// flagSuggestions are c's flags nearest to name (Nearest), as cobra
// suggests commands.
func flagSuggestions(c *cobra.Command, name string) []string {
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	out := Nearest(name, names)
	for i, n := range out {
		out[i] = "--" + n
	}
	return out
}

// CheckLimit refuses a --limit below 1: "how many" of none prints nothing,
// and a negative one would mean "all of them" to SQLite; neither is what
// the researcher asked for.
func CheckLimit(n int) error {
	if n < 1 {
		return &UsageError{Err: fmt.Errorf("--limit must be at least 1, not %d", n)}
	}
	return nil
}
