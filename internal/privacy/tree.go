package privacy

import (
	"encoding/json"
	"html/template"
	"reflect"
)

// ScrubAll returns a copy of v with every string in it scrubbed: the
// strings of its structs' exported fields, slices, arrays, maps (keys
// included), pointers and interfaces, however deep. What vibe shows (a
// viewer page's data, a --json listing) goes through it on its way out, so
// a record stored before a rule existed is never shown; v itself is not
// changed (the records may be shared with a cache). A json.RawMessage is
// scrubbed string by string (ScrubJSON). Unexported fields are copied as
// they are, and so are other bytes and markup values (template.HTML and
// its kin: vibe builds them from records that are scrubbed as they go in).
func ScrubAll[T any](v T) T {
	rv := reflect.ValueOf(&v).Elem()
	out := scrubValue(rv, map[uintptr]reflect.Value{}, 0)
	return out.Interface().(T)
}

// maxDepth bounds the walk of a value that nests itself.
const maxDepth = 64

var markup = map[reflect.Type]bool{
	reflect.TypeOf(template.HTML("")): true, reflect.TypeOf(template.HTMLAttr("")): true,
	reflect.TypeOf(template.JS("")): true, reflect.TypeOf(template.CSS("")): true,
	reflect.TypeOf(template.URL("")): true, reflect.TypeOf(template.Srcset("")): true,
	reflect.TypeOf(template.JSStr("")): true,
}

var rawJSON = reflect.TypeOf(json.RawMessage(nil))

// scrubValue returns a scrubbed copy of v (of v's type); seen maps the
// pointers already copied to their copies.
func scrubValue(v reflect.Value, seen map[uintptr]reflect.Value, depth int) reflect.Value {
	if depth > maxDepth || !v.IsValid() {
		return v
	}
	t := v.Type()
	switch v.Kind() {
	case reflect.String:
		if markup[t] {
			return v
		}
		out := reflect.New(t).Elem()
		out.SetString(Scrub(v.String()))
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		if c, ok := seen[v.Pointer()]; ok {
			return c
		}
		c := reflect.New(t.Elem())
		seen[v.Pointer()] = c
		c.Elem().Set(scrubValue(v.Elem(), seen, depth+1))
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(t).Elem()
		out.Set(scrubValue(v.Elem(), seen, depth+1))
		return out
	case reflect.Struct:
		out := reflect.New(t).Elem()
		out.Set(v)
		for i := 0; i < t.NumField(); i++ {
			if f := out.Field(i); f.CanSet() {
				f.Set(scrubValue(v.Field(i), seen, depth+1))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		if t == rawJSON {
			out := reflect.New(t).Elem()
			out.SetBytes(ScrubJSON(v.Bytes()))
			return out
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return v // bytes: a digest or a blob, not a text
		}
		out := reflect.MakeSlice(t, v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(scrubValue(v.Index(i), seen, depth+1))
		}
		return out
	case reflect.Array:
		out := reflect.New(t).Elem()
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(scrubValue(v.Index(i), seen, depth+1))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(t, v.Len())
		it := v.MapRange()
		for it.Next() {
			out.SetMapIndex(scrubValue(it.Key(), seen, depth+1), scrubValue(it.Value(), seen, depth+1))
		}
		return out
	}
	return v
}
