package disclosure

import (
	"fmt"
	"sort"
	"strings"
)

// The layers of progressive disclosure (blueprint §9). Layer 3, full detail,
// is never injected: it is `vibe recall`, `vibe memory show` and `vibe
// sessions show`, on demand.
const (
	LayerState  = 1 // where the project stands: at most Budgets.Layer1
	LayerRecall = 2 // what to keep in mind: at most Budgets.Layer2
)

// Priorities order parts within a layer (lower first); when a layer runs
// out of tokens the last parts are cut. Other packages pick the constant
// that names their part.
const (
	PriorityState       = 0  // layer 1: project, sessions, claims, gates, last session
	PriorityStage       = 5  // layer 1: stage or phase from STATE.md
	PriorityBlueprint   = 10 // layer 1: the domain blueprint line
	PriorityAlerts      = 10 // layer 2: unresolved observer alerts, most severe first
	PriorityBrief       = 15 // layer 2: critical research-brief constraints
	PriorityMemories    = 20 // layer 2: recalled memories
	PriorityCalibration = 30 // layer 2: the R2 calibration hint
	PrioritySeeds       = 40 // layer 2: pending serendipity seeds
)

// Part is one block of injected context: a title and its lines, already
// formatted by the package that owns the facts. More names the command that
// shows what a cut left out.
type Part struct {
	Layer    int
	Priority int
	Title    string
	Lines    []string
	More     string
}

// Budgets are the token caps of the injected context (see Tokens).
type Budgets struct {
	Layer1 int // blueprint: about 200
	Layer2 int // blueprint: about 500
	Total  int // Settings.SessionStartTokens, 1,000 by default
}

// DefaultBudgets are the blueprint's caps under a total.
func DefaultBudgets(total int) Budgets { return Budgets{Layer1: 200, Layer2: 500, Total: total} }

// defaultMore is what a cut points to when the part names nothing.
const defaultMore = "vibe recall QUERY"

// markerCost is reserved for the cut marker when a layer overflows. It is
// the worst case: a five-digit count and every More of the layer.
func markerCost(mores []string) int { return Tokens(marker(99999, mores) + "\n") }

func marker(n int, mores []string) string {
	cmds := make([]string, len(mores))
	for i, m := range mores {
		cmds[i] = "`" + m + "`"
	}
	return fmt.Sprintf("[… cut: %d more tokens; run %s]", n, strings.Join(cmds, " or "))
}

// minShortened is the smallest budget a line is shortened into: below it
// the stub would say nothing and the marker already says something was cut.
const minShortened = 8

// Build renders parts within budgets: layer 1 then layer 2, each part's
// title as "[Title]" and its lines below, in priority order (ties keep the
// order given). Each layer gets at most its budget, and together at most
// Total. A layer that overflows shares its budget between its parts max-min
// fairly (see shares), keeps each part's lines in order, shortens the last
// line that half fits, passes what a part leaves unused to the parts after
// it, and ends with one marker saying how many tokens were cut and which
// commands show them. A part whose title cannot come with at least one line
// is left out whole. Tokens(Build(...)) never exceeds Total.
func Build(parts []Part, b Budgets) string {
	var out []string
	used := 0
	for _, layer := range []int{LayerState, LayerRecall} {
		budget := b.Layer1
		if layer == LayerRecall {
			budget = b.Layer2
		}
		budget = min(budget, b.Total-used)
		if budget <= 0 {
			continue
		}
		lines, cost := buildLayer(partsOf(parts, layer), budget)
		out = append(out, lines...)
		used += cost
	}
	return strings.Join(out, "\n")
}

func partsOf(parts []Part, layer int) []Part {
	var out []Part
	for _, p := range parts {
		if p.Layer == layer && len(p.Lines) > 0 {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Priority < out[j].Priority })
	return out
}

// cost is a line's tokens with its newline, so the sum over lines bounds
// the tokens of the joined text.
func cost(line string) int { return Tokens(line + "\n") }

func title(p Part) string {
	if p.Title == "" {
		return ""
	}
	return "[" + p.Title + "]"
}

// buildLayer places a layer's parts within budget and returns the lines and
// the tokens they cost.
func buildLayer(parts []Part, budget int) ([]string, int) {
	full := 0
	var mores []string
	for _, p := range parts {
		if t := title(p); t != "" {
			full += cost(t)
		}
		for _, l := range p.Lines {
			full += cost(l)
		}
		mores = appendMore(mores, p.More)
	}
	if full <= budget {
		var out []string
		for _, p := range parts {
			if t := title(p); t != "" {
				out = append(out, t)
			}
			out = append(out, p.Lines...)
		}
		return out, full
	}

	room := budget - markerCost(mores)
	if room < 0 {
		// Too small even to say what was cut.
		return nil, 0
	}
	alloc := shares(parts, room)
	var out []string
	var cutMores []string
	placed, cut, carry := 0, 0, 0
	for pi, p := range parts {
		allowed := alloc[pi] + carry
		t := title(p)
		head := 0
		if t != "" {
			head = cost(t)
		}
		partOut := []string{}
		partCost := head
		shortened := false
		i := 0
		for ; i < len(p.Lines); i++ {
			c := cost(p.Lines[i])
			if partCost+c <= allowed {
				partOut = append(partOut, p.Lines[i])
				partCost += c
				continue
			}
			// Shorten the line that does not fit, if enough room is left for
			// it to say something.
			if left := allowed - partCost - 1; left >= minShortened {
				s := Shorten(p.Lines[i], left)
				partOut = append(partOut, s)
				partCost += cost(s)
				cut += Tokens(p.Lines[i]) - Tokens(s)
				shortened = true
				i++
			}
			break
		}
		for j := i; j < len(p.Lines); j++ {
			cut += Tokens(p.Lines[j])
		}
		if len(partOut) == 0 {
			cut += head
			cutMores = appendMore(cutMores, p.More)
			carry = allowed
			continue
		}
		if shortened || i < len(p.Lines) {
			cutMores = appendMore(cutMores, p.More)
		}
		if t != "" {
			out = append(out, t)
		}
		out = append(out, partOut...)
		placed += partCost
		carry = allowed - partCost
	}
	if cut == 0 {
		return out, placed
	}
	m := marker(cut, cutMores)
	out = append(out, m)
	return out, placed + cost(m)
}

// shares splits room between parts max-min fairly: a part that needs less
// than an equal share gets what it needs, and the parts that need more
// split the rest equally (the remainder of the division goes to the first
// by priority). So one long list of alerts cannot crowd out the memories,
// and a one-line hint is always shown whole when anything is.
func shares(parts []Part, room int) []int {
	need := make([]int, len(parts))
	for i, p := range parts {
		if t := title(p); t != "" {
			need[i] = cost(t)
		}
		for _, l := range p.Lines {
			need[i] += cost(l)
		}
	}
	alloc := make([]int, len(parts))
	open := make([]bool, len(parts))
	left, n := room, len(parts)
	for i := range open {
		open[i] = true
	}
	for n > 0 {
		share := left / n
		settled := false
		for i := range parts {
			if open[i] && need[i] <= share {
				alloc[i], open[i] = need[i], false
				left -= need[i]
				n--
				settled = true
			}
		}
		if settled {
			continue
		}
		rest := left - share*n
		for i := range parts {
			if open[i] {
				alloc[i] = share
				if rest > 0 {
					alloc[i]++
					rest--
				}
			}
		}
		break
	}
	return alloc
}

func appendMore(mores []string, m string) []string {
	if m == "" {
		m = defaultMore
	}
	for _, x := range mores {
		if x == m {
			return mores
		}
	}
	return append(mores, m)
}
