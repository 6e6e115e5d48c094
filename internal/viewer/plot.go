package viewer

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/calibrate"
	"github.com/vibe-science/vibe/internal/store/record"
)

// The plots are SVG written here, not by a script in the browser: the pages
// then work without JavaScript, and the Content-Security-Policy needs no
// exception. Colours come from classes the stylesheet sets per theme; every
// text is escaped with esc.

// svg accumulates one SVG document.
type svg struct{ b strings.Builder }

func esc(s string) string { return html.EscapeString(s) }

func (s *svg) f(format string, args ...any) { fmt.Fprintf(&s.b, format, args...) }

func (s *svg) html() template.HTML { return template.HTML(s.b.String()) }

// frame is the plotting area of a chart with axes from 0 to 1.
type frame struct {
	w, h, left, top, right, bottom float64
}

func (fr frame) x(v float64) float64 { return fr.left + v*(fr.w-fr.left-fr.right) }
func (fr frame) y(v float64) float64 { return fr.h - fr.bottom - v*(fr.h-fr.top-fr.bottom) }

// axes draws a unit box with ticks at every 0.2 and the axis titles.
func (s *svg) axes(fr frame, xTitle, yTitle string) {
	s.f(`<rect class="plot-area" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`,
		fr.x(0), fr.y(1), fr.x(1)-fr.x(0), fr.y(0)-fr.y(1))
	for i := 0; i <= 5; i++ {
		v := float64(i) / 5
		s.f(`<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, fr.x(v), fr.y(0), fr.x(v), fr.y(1))
		s.f(`<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, fr.x(0), fr.y(v), fr.x(1), fr.y(v))
		s.f(`<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%.1f</text>`, fr.x(v), fr.y(0)+14, v)
		s.f(`<text class="tick" x="%.1f" y="%.1f" text-anchor="end">%.1f</text>`, fr.x(0)-5, fr.y(v)+4, v)
	}
	s.f(`<text class="axis-title" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`,
		(fr.x(0)+fr.x(1))/2, fr.h-4, esc(xTitle))
	s.f(`<text class="axis-title" transform="translate(12 %.1f) rotate(-90)" text-anchor="middle">%s</text>`,
		(fr.y(0)+fr.y(1))/2, esc(yTitle))
}

// ReliabilityDiagram draws the calibration bins: for each non-empty bin a bar
// up to the share of its claims that held, a dot at (mean confidence, held
// share) sized by the bin's count, and the diagonal a calibrated researcher
// would follow.
func ReliabilityDiagram(c calibrate.Calibration) template.HTML {
	fr := frame{w: 380, h: 380, left: 48, top: 16, right: 16, bottom: 44}
	var s svg
	s.f(`<svg id="reliability" class="plot reliability" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s">`,
		fr.w, fr.h, fr.w, fr.h, esc(fmt.Sprintf("Reliability diagram of %d claim outcomes", c.N)))
	s.f(`<title>Reliability diagram: Brier %.4f, ECE %.4f, %d outcomes</title>`, c.Brier, c.ECE, c.N)
	s.axes(fr, "stated confidence", "share of claims that held")
	for _, b := range c.Bins {
		if b.N == 0 {
			continue
		}
		s.f(`<rect class="bin" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s</title></rect>`,
			fr.x(b.Lo)+1, fr.y(b.HeldRate), fr.x(b.Hi)-fr.x(b.Lo)-2, fr.y(0)-fr.y(b.HeldRate),
			esc(fmt.Sprintf("%.2f–%.2f: %s, mean confidence %.3f, held %.3f, gap %.3f",
				b.Lo, b.Hi, claims(b.N), b.MeanConfidence, b.HeldRate, b.Gap)))
	}
	s.f(`<line class="diagonal" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"><title>perfect calibration</title></line>`,
		fr.x(0), fr.y(0), fr.x(1), fr.y(1))
	for _, b := range c.Bins {
		if b.N == 0 {
			continue
		}
		r := 3 + 2*math.Sqrt(float64(b.N))
		s.f(`<line class="gap" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`,
			fr.x(b.MeanConfidence), fr.y(b.MeanConfidence), fr.x(b.MeanConfidence), fr.y(b.HeldRate))
		s.f(`<circle class="bin-dot" cx="%.1f" cy="%.1f" r="%.1f"><title>%s</title></circle>`,
			fr.x(b.MeanConfidence), fr.y(b.HeldRate), r, esc(claims(b.N)))
	}
	s.f(`<text class="plot-note" x="%.1f" y="%.1f">Brier %.3f · ECE %.3f · n=%d</text>`,
		fr.x(0)+6, fr.y(1)+14, c.Brier, c.ECE, c.N)
	s.f(`</svg>`)
	return s.html()
}

// ConfidenceOutcome draws one dot per claim: its stated confidence across,
// whether it held (top row) or fell (bottom row), spread vertically within
// the row so dots of equal confidence stay apart.
func ConfidenceOutcome(points []calibrate.Point) template.HTML {
	fr := frame{w: 380, h: 200, left: 48, top: 16, right: 16, bottom: 44}
	var s svg
	s.f(`<svg id="confidence-outcome" class="plot outcome" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="Confidence against outcome per claim">`,
		fr.w, fr.h, fr.w, fr.h)
	s.f(`<rect class="plot-area" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`,
		fr.x(0), fr.y(1), fr.x(1)-fr.x(0), fr.y(0)-fr.y(1))
	for i := 0; i <= 5; i++ {
		v := float64(i) / 5
		s.f(`<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, fr.x(v), fr.y(0), fr.x(v), fr.y(1))
		s.f(`<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%.1f</text>`, fr.x(v), fr.y(0)+14, v)
	}
	s.f(`<text class="tick" x="%.1f" y="%.1f" text-anchor="end">held</text>`, fr.x(0)-5, fr.y(0.75)+4)
	s.f(`<text class="tick" x="%.1f" y="%.1f" text-anchor="end">fell</text>`, fr.x(0)-5, fr.y(0.25)+4)
	s.f(`<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, fr.x(0), fr.y(0.5), fr.x(1), fr.y(0.5))
	s.f(`<text class="axis-title" x="%.1f" y="%.1f" text-anchor="middle">stated confidence</text>`, (fr.x(0)+fr.x(1))/2, fr.h-4)
	for i, p := range points {
		row, class := 0.25, "fell"
		if p.Held {
			row, class = 0.75, "held"
		}
		jitter := (float64(i%7) - 3) * 0.05
		s.f(`<circle class="claim-dot %s" cx="%.1f" cy="%.1f" r="4.5"><title>%s</title></circle>`,
			class, fr.x(clamp01(p.Confidence)), fr.y(row+jitter), esc(fmt.Sprintf("%s: confidence %.2f, %s", p.ClaimID, p.Confidence, class)))
	}
	s.f(`</svg>`)
	return s.html()
}

// GateStrip draws a gate's results oldest to newest, one cell per run,
// coloured by status.
func GateStrip(id string, runs []record.GateRecord) template.HTML {
	const cell, gap, h = 9.0, 2.0, 22.0
	w := math.Max(float64(len(runs))*(cell+gap), cell)
	var s svg
	s.f(`<svg class="plot strip" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s">`,
		w, h, w, h, esc(fmt.Sprintf("%s: %d runs, oldest first", id, len(runs))))
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		x := float64(len(runs)-1-i) * (cell + gap)
		claim := ""
		if r.ClaimID != "" {
			claim = " for " + r.ClaimID
		}
		s.f(`<rect class="run %s" x="%.1f" y="2" width="%.1f" height="%.1f"><title>%s</title></rect>`,
			esc(strings.ToLower(string(r.Status))), x, cell, h-4,
			esc(fmt.Sprintf("%s %s%s at %s (%d passed, %d warned, %d failed)", id, r.Status, claim,
				r.At.Format(timeLayout), r.Passed, r.Warned, r.Failed)))
	}
	s.f(`</svg>`)
	return s.html()
}

// GateTimeline draws a gate's runs on a time axis, one lane per result
// (PASS on top, FAIL at the bottom), so a run of failures and a fix show as
// when they happened, not only in what order.
func GateTimeline(id string, runs []record.GateRecord) template.HTML {
	if len(runs) == 0 {
		return ""
	}
	fr := frame{w: 640, h: 150, left: 48, top: 12, right: 16, bottom: 30}
	lanes := map[string]float64{"PASS": 5.0 / 6, "WARN": 0.5, "FAIL": 1.0 / 6}
	var s svg
	s.f(`<svg id="gate-timeline" class="plot timeline" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s">`,
		fr.w, fr.h, fr.w, fr.h, esc(fmt.Sprintf("%s: %d runs over time", id, len(runs))))
	s.f(`<rect class="plot-area" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`,
		fr.x(0), fr.y(1), fr.x(1)-fr.x(0), fr.y(0)-fr.y(1))
	for _, name := range []string{"PASS", "WARN", "FAIL"} {
		y := fr.y(lanes[name])
		s.f(`<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, fr.x(0), y, fr.x(1), y)
		s.f(`<text class="tick" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, fr.x(0)-5, y+4, name)
	}
	t0, t1 := runs[len(runs)-1].At, runs[0].At // runs come newest first
	span := t1.Sub(t0).Seconds()
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		lane, ok := lanes[string(r.Status)]
		if !ok {
			continue
		}
		pos := 0.5
		if span > 0 {
			pos = r.At.Sub(t0).Seconds() / span
		}
		claim := ""
		if r.ClaimID != "" {
			claim = " for " + r.ClaimID
		}
		s.f(`<circle class="run %s" cx="%.1f" cy="%.1f" r="5"><title>%s</title></circle>`,
			esc(strings.ToLower(string(r.Status))), fr.x(pos), fr.y(lane),
			esc(fmt.Sprintf("%s %s%s at %s", id, r.Status, claim, r.At.Format(timeLayout))))
	}
	s.f(`<text class="tick" x="%.1f" y="%.1f">%s</text>`, fr.x(0), fr.h-8, esc(t0.Format(timeLayout)))
	s.f(`<text class="tick" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, fr.x(1), fr.h-8, esc(t1.Format(timeLayout)))
	s.f(`</svg>`)
	return s.html()
}

// ClaimLifecycles draws one lane per claim across the project's time: a bar
// in the colour of each status the claim held, from the event that set it to
// the next (an open claim's last status runs to the end of the axis), and a
// dot at every event. Claims come in the order given.
func (s *Server) claimLifecycles(hist map[string][]record.ClaimEventRecord, order []string) template.HTML {
	var t0, t1 time.Time
	for _, id := range order {
		for _, e := range hist[id] {
			if t0.IsZero() || e.At.Before(t0) {
				t0 = e.At
			}
			if e.At.After(t1) {
				t1 = e.At
			}
		}
	}
	if t0.IsZero() {
		return ""
	}
	const lane, label = 22.0, 70.0
	fr := frame{w: 720, h: 30 + lane*float64(len(order)), left: label, top: 6, right: 16, bottom: 24}
	span := t1.Sub(t0).Seconds()
	x := func(t time.Time) float64 {
		if span <= 0 {
			return fr.x(0.5)
		}
		return fr.x(t.Sub(t0).Seconds() / span)
	}
	var b svg
	b.f(`<svg id="claim-lifecycles" class="plot lifecycles" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s">`,
		fr.w, fr.h, fr.w, fr.h, esc(fmt.Sprintf("Lifecycles of %d claims", len(order))))
	for i, id := range order {
		y := fr.top + float64(i)*lane
		b.f(`<a href="%s"><text class="tick lane-label" x="4" y="%.1f">%s</text></a>`, esc(s.link("/claim", "id", id)), y+lane/2+4, esc(id))
		evs := hist[id]
		status := ""
		for j, e := range evs {
			if e.NewStatus != "" {
				status = e.NewStatus
			}
			end := t1
			if j+1 < len(evs) {
				end = evs[j+1].At
			} else if slices.Contains(closedStatuses, status) {
				end = e.At
			}
			if status != "" && end.After(e.At) {
				b.f(`<rect class="life s-%s" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s</title></rect>`,
					esc(strings.ToLower(status)), x(e.At), y+5, x(end)-x(e.At), lane-10,
					esc(fmt.Sprintf("%s %s from %s", id, status, e.At.Format(timeLayout))))
			}
		}
		for _, e := range evs {
			b.f(`<circle class="life-event s-%s" cx="%.1f" cy="%.1f" r="4"><title>%s</title></circle>`,
				esc(strings.ToLower(e.NewStatus)), x(e.At), y+lane/2,
				esc(fmt.Sprintf("%s %s at %s", id, e.Type, e.At.Format(timeLayout))))
		}
	}
	b.f(`<text class="tick" x="%.1f" y="%.1f">%s</text>`, fr.x(0), fr.h-6, esc(t0.Format(timeLayout)))
	b.f(`<text class="tick" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, fr.x(1), fr.h-6, esc(t1.Format(timeLayout)))
	b.f(`</svg>`)
	return b.html()
}

// ConfidenceTimeline draws a claim's confidence at each event that stated
// one, over time, with the status it moved to.
func ConfidenceTimeline(evs []record.ClaimEventRecord) template.HTML {
	type pt struct {
		at   time.Time
		c    float64
		text string
	}
	var pts []pt
	for _, e := range evs {
		if e.Confidence != nil {
			pts = append(pts, pt{e.At, *e.Confidence, e.Type + " → " + e.NewStatus})
		}
	}
	if len(pts) == 0 {
		return ""
	}
	fr := frame{w: 480, h: 180, left: 48, top: 12, right: 16, bottom: 30}
	var s svg
	s.f(`<svg id="claim-confidence" class="plot timeline" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="Confidence over time">`,
		fr.w, fr.h, fr.w, fr.h)
	s.f(`<rect class="plot-area" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`,
		fr.x(0), fr.y(1), fr.x(1)-fr.x(0), fr.y(0)-fr.y(1))
	for i := 0; i <= 4; i++ {
		v := float64(i) / 4
		s.f(`<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, fr.x(0), fr.y(v), fr.x(1), fr.y(v))
		s.f(`<text class="tick" x="%.1f" y="%.1f" text-anchor="end">%.2f</text>`, fr.x(0)-5, fr.y(v)+4, v)
	}
	t0, t1 := pts[0].at, pts[len(pts)-1].at
	span := t1.Sub(t0).Seconds()
	pos := func(i int) float64 {
		if span <= 0 {
			if len(pts) == 1 {
				return 0.5
			}
			return float64(i) / float64(len(pts)-1)
		}
		return pts[i].at.Sub(t0).Seconds() / span
	}
	var line strings.Builder
	for i, p := range pts {
		fmt.Fprintf(&line, "%.1f,%.1f ", fr.x(pos(i)), fr.y(clamp01(p.c)))
	}
	s.f(`<polyline class="series" points="%s"/>`, strings.TrimSpace(line.String()))
	for i, p := range pts {
		s.f(`<circle class="series-dot" cx="%.1f" cy="%.1f" r="4"><title>%s</title></circle>`,
			fr.x(pos(i)), fr.y(clamp01(p.c)), esc(fmt.Sprintf("%s: %.2f (%s)", p.at.Format(timeLayout), p.c, p.text)))
	}
	s.f(`<text class="tick" x="%.1f" y="%.1f">%s</text>`, fr.x(0), fr.h-8, esc(t0.Format(timeLayout)))
	s.f(`<text class="tick" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, fr.x(1), fr.h-8, esc(t1.Format(timeLayout)))
	s.f(`</svg>`)
	return s.html()
}

func claims(n int) string {
	if n == 1 {
		return "1 claim"
	}
	return fmt.Sprintf("%d claims", n)
}

func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }
