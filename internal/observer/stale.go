package observer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/project"
)

// CheckStale is the other half of the findings/JSON check (the blueprint's
// M6): the JSON changed after the findings file and the findings no longer
// match it. findings-json catches prose newer than its data; this catches
// data newer than its prose, for as long as the two disagree.
const CheckStale = "findings-stale"

// staleCache remembers DQ4's verdict on one findings file for one pair of
// modification times, so an unchanged pair is not judged again.
type staleCache struct {
	MdNS int64  `json:"md_ns"`
	JsNS int64  `json:"js_ns"`
	Msg  string `json:"msg,omitempty"` // the mismatches, "" when they agree
}

// maxStaleItems is how many mismatches the alert quotes.
const maxStaleItems = 3

// checkStale runs DQ4 on each findings file whose JSON (the file of the
// same name) changed after it, once FindingsLag has passed since the JSON
// changed (a write-up that follows its script within that time is not
// flagged), and warns while the numbers or headline values disagree.
func (o *outcome) checkStale(proj project.Project, lay layout, now time.Time, cfg Config) {
	o.ran[CheckStale] = true
	if o.cache.Stale == nil {
		o.cache.Stale = map[string]staleCache{}
	}
	var d gate.Domain
	loaded := false
	seen := map[string]bool{}
	for _, md := range lay.findings {
		js := strings.TrimSuffix(md, filepath.Ext(md)) + ".json"
		mi, err := os.Stat(md)
		if err != nil {
			continue
		}
		ji, err := os.Stat(js)
		if err != nil || !ji.ModTime().After(mi.ModTime()) || now.Sub(ji.ModTime()) < cfg.FindingsLag {
			continue
		}
		rel := proj.Rel(md)
		seen[rel] = true
		c, ok := o.cache.Stale[rel]
		if !ok || c.MdNS != mi.ModTime().UnixNano() || c.JsNS != ji.ModTime().UnixNano() {
			if !loaded {
				if d, err = gate.LoadDomain(proj.Root); err != nil {
					return // the domain config is broken: gate commands report it
				}
				loaded = true
			}
			c = staleCache{MdNS: mi.ModTime().UnixNano(), JsNS: ji.ModTime().UnixNano()}
			if res, err := gate.DQ4File(md, nil, d); err == nil {
				c.Msg = staleDetails(res)
			}
			o.cache.Stale[rel] = c
			o.dirty = true
		}
		if c.Msg == "" {
			continue
		}
		o.add(CheckStale, Warn, fmt.Sprintf("%s:%d", rel, ji.ModTime().UnixMilli()),
			"%s no longer matches %s, which changed %s after it (single source of truth, gate DQ4): %s. Rewrite the findings from the JSON; DQ4 checks them at the write.",
			rel, filepath.Base(js), roundLag(ji.ModTime().Sub(mi.ModTime())), c.Msg)
	}
	for rel := range o.cache.Stale {
		if !seen[rel] {
			delete(o.cache.Stale, rel)
			o.dirty = true
		}
	}
}

// staleDetails lists DQ4's failed number and headline checks, the ones a
// change of the JSON explains; "" when there are none.
func staleDetails(res gate.Result) string {
	var items []string
	n := 0
	for _, c := range res.Checks {
		if c.Status != gate.StatusFail || (c.Name != "number" && c.Name != "headline") {
			continue
		}
		n++
		if len(items) < maxStaleItems {
			items = append(items, c.Detail)
		}
	}
	if n > len(items) {
		items = append(items, fmt.Sprintf("and %d more", n-len(items)))
	}
	return strings.Join(items, "; ")
}
