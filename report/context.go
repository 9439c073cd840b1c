package report

import (
	"strings"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// contextKeys are the result attributes that say where and with what a
// result was measured. Results that differ in any of them are never
// pooled: each distinct combination is a Context of its own, reported in
// a section of its own.
var contextKeys = []struct{ key, label string }{
	{"target", "target"},
	{"board", "board"},
	{"lava_device", "LAVA device"},
	{"machine", "machine"},
	{"accel", "accelerator"},
	{"disk", "storage device"},
	{"kernel", "kernel"},
	{"kernel_package", "kernel package"},
	{"runner", "runner"},
	{"fingerprint", "spec fingerprint"},
}

// Attr is one context attribute.
type Attr struct {
	Key, Label, Value string
}

// Context is one combination of context attributes.
type Context struct {
	// ID names the context in tables and file names: "A", "B", ... in
	// the order the contexts first appear in the inputs.
	ID string
	// Attrs holds every context attribute, in contextKeys order; a value
	// the results do not record is empty.
	Attrs []Attr
	// Tools lists the measuring tools the results name (fio or the
	// built-in engine with its version, sqlite3), sorted.
	Tools []string
	// Variants lists the variants measured, in order of appearance.
	Variants []string
	key      string
}

// Value returns the value of attribute key, "" when not recorded.
func (c *Context) Value(key string) string {
	for _, a := range c.Attrs {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}

// Line describes the context in one line, for chart captions.
func (c *Context) Line() string {
	var parts []string
	for _, a := range c.Attrs {
		switch {
		case a.Value == "", a.Key == "kernel_package":
			continue
		case a.Key == "fingerprint":
			// A prefix names the spec as a short commit id does; the
			// context table has the whole fingerprint.
			parts = append(parts, "spec "+a.Value[:min(len(a.Value), 19)])
		default:
			parts = append(parts, a.Label+" "+a.Value)
		}
	}
	if len(parts) == 0 {
		return "context not recorded"
	}
	return strings.Join(parts, " · ")
}

// contextKey is the identity of r's context.
func contextKey(r *resultframe.Result) string {
	var b strings.Builder
	for _, k := range contextKeys {
		b.WriteString(r.Attrs[k.key])
		b.WriteByte(0)
	}
	return b.String()
}

func newContext(id string, r *resultframe.Result) *Context {
	c := &Context{ID: id, key: contextKey(r)}
	for _, k := range contextKeys {
		c.Attrs = append(c.Attrs, Attr{Key: k.key, Label: k.label, Value: r.Attrs[k.key]})
	}
	return c
}

// contextID names the n-th context (from 0): A..Z, then AA, AB, ...
func contextID(n int) string {
	id := ""
	for {
		id = string(rune('A'+n%26)) + id
		n = n/26 - 1
		if n < 0 {
			return id
		}
	}
}

// toolOf names the tool that measured r, for recipes that use one whose
// version matters: fio or the built-in engine, sqlite3.
func toolOf(r *resultframe.Result) string {
	switch a := r.Attrs; {
	case a["engine_version"] != "":
		return a["engine_version"]
	case a["engine"] != "":
		return a["engine"]
	case a["sqlite_version"] != "":
		return "sqlite3 " + a["sqlite_version"]
	}
	return ""
}
