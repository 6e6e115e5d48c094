package privacy

import "sync"

// index finds which of a set of lower-case keywords (two bytes or more)
// occur in a text, in one pass and without a regex or an allocation: every
// keyword is filed under its first two bytes, and the scan looks each
// pair of the text up (ASCII letters folded). Ordinary text costs about a
// nanosecond a byte.
type index struct {
	once  sync.Once
	fill  func(add func(kw string, id int))
	pairs []uint16 // pair -> 1 + index in lists, 0 for none
	lists [][]trigger
	ids   int // 1 + the largest id
}

// trigger is one keyword of one id.
type trigger struct {
	kw string
	id int
}

// newIndex returns an index filled on first use by fill.
func newIndex(fill func(add func(kw string, id int))) *index {
	return &index{fill: fill}
}

func (x *index) build() {
	x.pairs = make([]uint16, 1<<16)
	x.fill(func(kw string, id int) {
		if len(kw) < 2 {
			panic("privacy: a keyword of fewer than two bytes: " + kw)
		}
		p := uint16(fold(kw[0]))<<8 | uint16(fold(kw[1]))
		if x.pairs[p] == 0 {
			x.lists = append(x.lists, nil)
			x.pairs[p] = uint16(len(x.lists))
		}
		x.lists[x.pairs[p]-1] = append(x.lists[x.pairs[p]-1], trigger{kw, id})
		x.ids = max(x.ids, id+1)
	})
}

// ruleSet is a set of ids.
type ruleSet []uint64

func (r ruleSet) add(i int)      { r[i>>6] |= 1 << (i & 63) }
func (r ruleSet) has(i int) bool { return i>>6 < len(r) && r[i>>6]&(1<<(i&63)) != 0 }

// scan returns the ids one of whose keywords occurs in s where ok (the
// offset is just after the keyword) holds; ok may be nil.
func (x *index) scan(s string, ok func(id, at int) bool) ruleSet {
	x.once.Do(x.build)
	hits := make(ruleSet, (x.ids+63)/64)
	x.each(s, func(id, at int) {
		if !hits.has(id) && (ok == nil || ok(id, at)) {
			hits.add(id)
		}
	})
	return hits
}

// each calls fn with every occurrence of a keyword in s: its id and the
// offset just after it.
func (x *index) each(s string, fn func(id, at int)) {
	x.once.Do(x.build)
	for i := 0; i+1 < len(s); i++ {
		l := x.pairs[uint16(fold(s[i]))<<8|uint16(fold(s[i+1]))]
		if l == 0 {
			continue
		}
		for _, t := range x.lists[l-1] {
			if hasPrefixFold(s[i:], t.kw) {
				fn(t.id, i+len(t.kw))
			}
		}
	}
}

// fold lower-cases an ASCII letter.
func fold(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold reports whether s starts with the lower-case kw, ignoring
// ASCII case in s.
func hasPrefixFold(s, kw string) bool {
	if len(s) < len(kw) {
		return false
	}
	for j := 0; j < len(kw); j++ {
		if fold(s[j]) != kw[j] {
			return false
		}
	}
	return true
}
