package report

import (
	"cmp"
	"encoding/json"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// redactor replaces, in the text a report quotes, what the run itself
// created and the OS named — its proxies' addresses (the ports are the
// OS's choice), its built-in upstreams' addresses, the path of the
// mcpchaos binary — by the template a scenario writes for the same
// thing: {{ upstream "carrier" }}, {{ upstream_addr "carrier" }},
// {{ target "carrier" }}, {{ target_addr "carrier" }}, {{ mcpchaos }}.
// The same seed then gives the same report, and a placeholder expands
// back to what the server wrote under that run.
//
// It is applied to the finished run, after the signals, the leaks and
// the findings have read the raw text: a leaked proxy address is still a
// leak, and the report shows it as its placeholder.
type redactor struct {
	re   *regexp.Regexp // nil: nothing to replace
	repl map[string]string
}

// newRedactor replaces each key of repl by its value.
func newRedactor(repl map[string]string) *redactor {
	if len(repl) == 0 {
		return &redactor{}
	}
	keys := make([]string, 0, len(repl))
	for k := range repl {
		keys = append(keys, k)
	}
	// Longest first: a URL is replaced whole before its host:port.
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b))
	})
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = regexp.QuoteMeta(k)
	}
	return &redactor{re: regexp.MustCompile(strings.Join(quoted, "|")), repl: repl}
}

// replace returns s with every address replaced. A match that runs into
// more digits is another address ("127.0.0.1:4000" inside
// "127.0.0.1:40001") and is left alone.
func (r *redactor) replace(s string) string {
	if r == nil || r.re == nil || s == "" {
		return s
	}
	locs := r.re.FindAllStringIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, l := range locs {
		if isDigitAt(s, l[0]-1) && isDigitAt(s, l[0]) || isDigitAt(s, l[1]) && isDigitAt(s, l[1]-1) {
			continue
		}
		b.WriteString(s[last:l[0]])
		b.WriteString(r.repl[s[l[0]:l[1]]])
		last = l[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// localEnd matches the local end of a connection as Go's net errors
// print it, "read tcp 127.0.0.1:57698->REMOTE": group 1 is the address
// and group 2 its port.
var localEnd = regexp.MustCompile(`((?:\b\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])):(\d{1,5})->`)

// clientPorts finds, in every string of v, the server's own end of a
// connection to an address the run created ("read tcp
// 127.0.0.1:57698->127.0.0.1:41234"): a port the server's kernel picked,
// different on every run. It returns a replacement for each, to be
// applied everywhere (a leak candidate quotes the address alone), so
// that the same seed gives the same report. A port the server chose to
// quote, or one next to an address the run did not create, stays.
func (r *redactor) clientPorts(v reflect.Value) map[string]string {
	out := map[string]string{}
	visitStrings(v, 0, func(s string) {
		for _, m := range localEnd.FindAllStringSubmatchIndex(s, -1) {
			rest := s[m[1]:]
			if l := r.re.FindStringIndex(rest); l == nil || l[0] != 0 || isDigitAt(rest, l[1]) {
				continue
			}
			out[s[m[0]:m[1]-2]] = s[m[2]:m[3]] + ":{{ client_port }}"
		}
	})
	return out
}

// visitStrings calls fn with every string reachable from v, without
// changing anything.
func visitStrings(v reflect.Value, depth int, fn func(string)) {
	if depth > maxRedactDepth {
		return
	}
	switch v.Kind() {
	case reflect.String:
		fn(v.String())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				visitStrings(v.Field(i), depth+1, fn)
			}
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			visitStrings(v.Elem(), depth+1, fn)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type() == reflect.TypeFor[json.RawMessage]() {
			fn(string(v.Bytes()))
			return
		}
		for i := range v.Len() {
			visitStrings(v.Index(i), depth+1, fn)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			visitStrings(it.Value(), depth+1, fn)
		}
	}
}

func isDigitAt(s string, i int) bool {
	return i >= 0 && i < len(s) && s[i] >= '0' && s[i] <= '9'
}

// maxRedactDepth bounds the walk; a report is a few levels deep, and
// arguments are bounded when a scenario is parsed.
const maxRedactDepth = 64

// Redact replaces in every string of the run: call texts, observation
// texts, decision phrases, signals, finding evidence, arguments, errors,
// the server's stderr. Walking every string rather than a list of fields
// means a text field added later is covered too. Maps, slices and
// pointers are copied, never written through: a call's arguments are the
// scenario's own, shared by every run of the matrix.
func Redact(rep *RunReport, placeholders map[string]string) {
	r := newRedactor(placeholders)
	if r.re == nil {
		return
	}
	r = r.with(r.clientPorts(reflect.ValueOf(rep).Elem()))
	r.walk(reflect.ValueOf(rep).Elem(), 0)
}

// walk replaces in v, which is settable.
func (r *redactor) walk(v reflect.Value, depth int) {
	if depth > maxRedactDepth {
		return
	}
	switch v.Kind() {
	case reflect.String:
		if s := r.replace(v.String()); s != v.String() {
			v.SetString(s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				r.walk(f, depth+1)
			}
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		cp := reflect.New(v.Elem().Type())
		cp.Elem().Set(v.Elem())
		r.walk(cp.Elem(), depth+1)
		v.Set(cp)
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			// Raw JSON (structuredContent) holds text too: redact its
			// strings and write it back as valid JSON.
			var x any
			if json.Unmarshal(v.Bytes(), &x) != nil {
				return
			}
			r.walk(reflect.ValueOf(&x).Elem(), depth+1)
			if b, err := json.Marshal(x); err == nil {
				v.SetBytes(b)
			}
			return
		}
		cp := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(cp, v)
		for i := range cp.Len() {
			r.walk(cp.Index(i), depth+1)
		}
		v.Set(cp)
	case reflect.Map:
		if v.IsNil() {
			return
		}
		cp := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			e := reflect.New(it.Value().Type()).Elem()
			e.Set(it.Value())
			r.walk(e, depth+1)
			cp.SetMapIndex(it.Key(), e)
		}
		v.Set(cp)
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := reflect.New(v.Elem().Type()).Elem()
		e.Set(v.Elem())
		r.walk(e, depth+1)
		v.Set(e)
	}
}

// with returns a redactor that also replaces extra's keys.
func (r *redactor) with(extra map[string]string) *redactor {
	if len(extra) == 0 {
		return r
	}
	repl := maps.Clone(r.repl)
	if repl == nil {
		repl = map[string]string{}
	}
	maps.Copy(repl, extra)
	return newRedactor(repl)
}
