package hook

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// sameAsJSON fails when decodeFast answers data differently from
// encoding/json: an event it decodes must be the one encoding/json
// decodes, field for field, and encoding/json must accept the input.
func sameAsJSON(t *testing.T, data []byte) (fast bool) {
	t.Helper()
	data = bytes.TrimSpace(data)
	got, ok := decodeFast(data)
	if !ok {
		return false
	}
	want, err := decodeJSON(data)
	if err != nil {
		t.Fatalf("decodeFast accepted what encoding/json refuses (%v):\n%q", err, data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeFast and encoding/json differ on\n%q\nfast %+v\njson %+v", data, got, want)
	}
	return true
}

// TestDecodeFastMatchesEncodingJSON: the recorded events of the real client
// take the fast path, and so do most of 20,000 generated ones (keys of
// every field, in any case, repeated, unknown; strings with every escape,
// surrogate pairs and lone ones, invalid UTF-8, control bytes; nested raw
// values, numbers of every shape, nulls, broken JSON, trailing bytes);
// wherever it answers, it answers as encoding/json does.
func TestDecodeFastMatchesEncodingJSON(t *testing.T) {
	for _, p := range recordedEvents(t) {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !sameAsJSON(t, raw) {
			t.Errorf("%s: a recorded event left the fast path", filepath.Base(p))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	fast := 0
	const n = 20000
	for range n {
		if sameAsJSON(t, genEvent(rng)) {
			fast++
		}
	}
	if fast < n/4 {
		t.Errorf("only %d of %d generated events took the fast path: the generator or decodeFast is off", fast, n)
	}
	t.Logf("%d of %d generated events decoded by the fast path", fast, n)
}

func FuzzDecodeFast(f *testing.F) {
	for _, p := range recordedEvents(f) {
		raw, _ := os.ReadFile(p)
		f.Add(raw)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		f.Add(genEvent(rng))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameAsJSON(t, data) })
}

var genKeys = append(slices.Sorted(maps.Keys(fastFields)), "unknown", "tool_inputs", "x")

func genEvent(rng *rand.Rand) []byte {
	var b bytes.Buffer
	ws := func() {
		if rng.IntN(4) == 0 {
			b.WriteString([]string{" ", "\n", "\t", "\r\n  "}[rng.IntN(4)])
		}
	}
	ws()
	b.WriteByte('{')
	fields := 1 + rng.IntN(8)
	for i := range fields {
		if i > 0 {
			ws()
			b.WriteByte(',')
		}
		ws()
		key := genKeys[rng.IntN(len(genKeys))]
		switch rng.IntN(30) {
		case 0:
			key = strings.ToUpper(key)
		case 1:
			key = strings.Replace(key, "s", "ſ", 1) // folds to s in encoding/json
		case 2:
			key = strings.Replace(key, "_", `\u005f`, 1) // an escaped key
		}
		b.WriteString(`"` + key + `"`)
		ws()
		b.WriteByte(':')
		ws()
		genValue(rng, &b, key, 0)
	}
	ws()
	b.WriteByte('}')
	switch rng.IntN(40) {
	case 0:
		b.WriteString(" {}")
	case 1:
		b.WriteString("}")
	case 2:
		b.WriteString("x")
	}
	out := b.Bytes()
	if rng.IntN(30) == 0 && len(out) > 2 {
		out = out[:rng.IntN(len(out))] // cut short
	}
	return out
}

func genValue(rng *rand.Rand, b *bytes.Buffer, key string, depth int) {
	switch {
	case key == "duration_ms" && rng.IntN(2) == 0:
		b.WriteString([]string{"0", "12", "-7", "1.5", "1e3", "007", "9223372036854775807", "123456789012345678", "-0", "null", `"5"`}[rng.IntN(11)])
		return
	case (key == "is_interrupt" || key == "stop_hook_active") && rng.IntN(2) == 0:
		b.WriteString([]string{"true", "false", "null", "1", `"true"`}[rng.IntN(5)])
		return
	case (key == "tool_input" || key == "tool_response") && depth == 0:
		genAny(rng, b, 0)
		return
	}
	switch rng.IntN(12) {
	case 0:
		b.WriteString("null")
	case 1:
		genAny(rng, b, depth)
	default:
		genString(rng, b)
	}
}

func genAny(rng *rand.Rand, b *bytes.Buffer, depth int) {
	if depth > 4 {
		b.WriteString("1")
		return
	}
	switch rng.IntN(8) {
	case 0:
		b.WriteByte('{')
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			genString(rng, b)
			b.WriteString(" : ")
			genAny(rng, b, depth+1)
		}
		b.WriteByte('}')
	case 1:
		b.WriteByte('[')
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteString(", ")
			}
			genAny(rng, b, depth+1)
		}
		b.WriteByte(']')
	case 2:
		b.WriteString([]string{"0", "-0", "12.5", "1e10", "1E-3", "-1.0e+2", "01", "1.", ".5", "-", "1e", "+1"}[rng.IntN(12)])
	case 3:
		b.WriteString([]string{"true", "false", "null", "nul", "tru", "nulll"}[rng.IntN(6)])
	default:
		genString(rng, b)
	}
}

func genString(rng *rand.Rand, b *bytes.Buffer) {
	b.WriteByte('"')
	weird := rng.IntN(8) == 0 // most strings are well formed
	for range rng.IntN(12) {
		switch rng.IntN(16) {
		case 0:
			b.WriteString([]string{`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`}[rng.IntN(8)])
		case 1:
			if weird {
				fmt.Fprintf(b, `\u%04x`, []int{0xd83d, 0xde00, 0xdbff}[rng.IntN(3)]) // lone surrogates
			} else {
				fmt.Fprintf(b, `\u%04X`, []int{0, 0x1f, 0x41, 0xe9, 0x2028, 0xfffd}[rng.IntN(6)])
			}
		case 2:
			b.WriteString(`\ud83d\ude00`) // a surrogate pair
		case 3:
			if weird {
				b.WriteString([]string{"\xff", "\xe2\x82", "\x01", "\\x", `\u12`, `\ud83d`, `\ude00x`}[rng.IntN(7)])
			} else {
				b.WriteString([]string{"é", "日本", "😀", "\u00e9"}[rng.IntN(4)])
			}
		default:
			b.WriteString([]string{"a", "Bash", "/home/r/p", "data.csv", " ", "0.71"}[rng.IntN(6)])
		}
	}
	b.WriteByte('"')
}

// BenchmarkDecode: a small event and a PostToolUse carrying a 1 MB output,
// by Decode and by encoding/json.
func BenchmarkDecode(b *testing.B) {
	small, err := os.ReadFile(filepath.Join(recorded, "04-PostToolUse.json"))
	if err != nil {
		b.Fatal(err)
	}
	big := []byte(`{"session_id":"s","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"cat data.csv"},"tool_response":{"stdout":"` +
		strings.Repeat(`line 1,2,3 with \"quotes\" and a tab\t\n`, 1<<20/40) + `","stderr":""}}`)
	for _, c := range []struct {
		name string
		data []byte
	}{{"small", small}, {"1MB", big}} {
		b.Run(c.name+"/Decode", func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				if _, err := Decode(c.data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				if _, err := decodeJSON(bytes.TrimSpace(c.data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDecodeFastKnowsEveryField: fastFields has a setter for every JSON key
// of Event and no other, so a field added to Event is decoded by the fast
// path too (or the test says it is missing).
func TestDecodeFastKnowsEveryField(t *testing.T) {
	var tags []string
	typ := reflect.TypeFor[Event]()
	for i := range typ.NumField() {
		if tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ","); tag != "" && tag != "-" {
			tags = append(tags, tag)
		}
	}
	slices.Sort(tags)
	if keys := slices.Sorted(maps.Keys(fastFields)); !slices.Equal(keys, tags) {
		t.Errorf("fastFields decodes %v; Event's JSON keys are %v", keys, tags)
	}
}
