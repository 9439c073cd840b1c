package filesystems

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fsbench/fsbench/internal/units"
)

// Resolve checks s against the real limits of its type's tools and returns
// the commands a build will run. The commands are filled in even when there
// are problems, so that `plan` can show them next to the diagnostics.
func Resolve(s Spec) (Resolved, []Problem) {
	t, ok := Lookup(s.Type)
	if !ok {
		p := Problem{Field: "type", Index: -1, Summary: "Unknown filesystem type",
			Detail: fmt.Sprintf("fsbench knows no filesystem %q; it knows %s.%s",
				s.Type, strings.Join(Names(), ", "), didYouMean(s.Type, Names()))}
		return Resolved{}, []Problem{p}
	}
	b := &build{t: t, s: s, tuning: map[string]any{}}
	b.checkSize()
	b.checkLabel()
	b.checkUUID()
	b.checkBlockSize()
	b.checkFeatures()
	b.checkJournal()
	b.checkTuning()
	b.checkGeometry()
	b.checkContents()
	b.checkNames()
	b.checkMount()
	b.probs = append(b.probs, t.CheckMkfsArgs(s.ExtraArgs)...)
	b.r.Deterministic = t.Deterministic
	b.r.Note = t.Note
	t.resolve(b)
	if t.Checker != nil {
		b.r.Check = Command{Argv: append(append([]string(nil), t.Checker...), "{image}")}
	}
	return b.r, b.probs
}

// build carries one Resolve call through the common checks and the type's
// own resolver.
type build struct {
	t      *Type
	s      Spec
	r      Resolved
	probs  []Problem
	bs     int64          // effective block size
	tuning map[string]any // tuning values that passed their field's checks
	uuid   [16]byte
	// features as given, parsed; disabled ones had a leading ^.
	features []feature
	journal  bool       // effective journal for types that have one
	mount    []mountUse // mount options that passed their checks
}

type feature struct {
	name    string
	enabled bool
	index   int
}

// problem records a Problem, written as every fsbench diagnostic is: the
// summary capitalised, the detail a sentence ending in a full stop.
func (b *build) problem(field string, index int, summary, format string, a ...any) {
	detail := fmt.Sprintf(format, a...)
	if !strings.HasSuffix(detail, ".") && !strings.HasSuffix(detail, "?") {
		detail += "."
	}
	b.probs = append(b.probs, Problem{Field: field, Index: index, Summary: capitalise(summary), Detail: detail})
}

// capitalise starts a summary with a capital, unless it starts with a
// filesystem's name, which is lower case ("ext4 stride too large").
func capitalise(s string) string {
	first, _, _ := strings.Cut(s, " ")
	if s == "" || contains(Names(), first) {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (b *build) derive(name string, value any, from string) {
	b.r.Derived = append(b.r.Derived, Derivation{Name: name, Value: value, From: from})
}

func (b *build) checkSize() {
	t, s := b.t, b.s
	switch {
	case s.Size <= 0:
		b.problem("size", -1, "size missing",
			"a %s filesystem needs the size of its partition; got %d bytes", t.Name, s.Size)
	case s.Size < t.MinSize:
		b.problem("size", -1, t.Name+" partition too small",
			"%s needs at least %s, the partition has %s; enlarge it", t.Tool, size(t.MinSize), size(s.Size))
	}
}

func (b *build) checkLabel() {
	t, l := b.t, b.s.Label
	switch {
	case l == "":
	case t.MaxLabel == 0:
		b.problem("label", -1, t.Name+" has no label",
			"%s cannot set a volume label; remove label %q", t.Tool, l)
	case !utf8.ValidString(l):
		b.problem("label", -1, "label is not UTF-8", "label %q is not valid UTF-8", l)
	case strings.ContainsFunc(l, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		b.problem("label", -1, "control character in label",
			"label %q contains a control character; use printable characters", l)
	case len(l) > t.MaxLabel:
		b.problem("label", -1, t.Name+" label too long",
			"%s stores at most %d bytes of label and %q has %d; shorten it (the tool would truncate it or refuse it)",
			t.Tool, t.MaxLabel, l, len(l))
	}
}

func (b *build) checkUUID() {
	if !b.t.SetsUUID {
		return
	}
	if b.s.UUID == "" {
		b.problem("uuid", -1, "uuid missing",
			"%s stores a UUID and none was given; the spec derives one from the partition name", b.t.Name)
		return
	}
	u, err := parseUUID(b.s.UUID)
	if err != nil {
		b.problem("uuid", -1, "bad uuid", "%v", err)
		return
	}
	b.uuid = u
}

func (b *build) checkBlockSize() {
	t, bs := b.t, b.s.BlockSize
	b.bs = t.DefaultBlockSize
	if bs == 0 {
		return
	}
	for _, ok := range t.BlockSizes {
		if bs == ok {
			b.bs = bs
			return
		}
	}
	b.problem("block_size", -1, "unsupported "+t.Name+" block size",
		"%s accepts block sizes %s, not %s", t.Tool, sizeList(t.BlockSizes), size(bs))
}

func (b *build) checkFeatures() {
	t := b.t
	seen := map[string]int{}
	for i, raw := range b.s.Features {
		f := strings.TrimSpace(raw)
		name := strings.TrimPrefix(f, "^")
		switch {
		case t.Features == nil:
			b.problem("features", i, t.Name+" has no features",
				"%s has no feature list; remove %q", t.Tool, raw)
			continue
		case name == "":
			b.problem("features", i, "empty feature", "feature %d is empty", i+1)
			continue
		case !contains(t.Features, name):
			b.problem("features", i, "unknown "+t.Name+" feature",
				"%s knows no feature %q; it knows %s.%s", t.Tool, name,
				strings.Join(t.Features, ", "), didYouMean(name, t.Features))
			continue
		}
		if j, dup := seen[name]; dup {
			b.problem("features", i, "feature given twice",
				"%q repeats or contradicts feature %d (%q); give each feature once", raw, j+1, b.s.Features[j])
			continue
		}
		seen[name] = i
		b.features = append(b.features, feature{name: name, enabled: !strings.HasPrefix(f, "^"), index: i})
	}
}

// feature returns the state the spec asked for, if it named the feature.
func (b *build) feature(name string) (enabled, given bool) {
	for _, f := range b.features {
		if f.name == name {
			return f.enabled, true
		}
	}
	return false, false
}

func (b *build) checkJournal() {
	t, j := b.t, b.s.Journal
	switch t.Journal {
	case JournalNone:
		if j != nil && *j {
			b.problem("journal", -1, t.Name+" has no journal",
				"%s has no journal; remove journal = true or choose a journaling filesystem", t.Name)
		}
	case JournalRequired:
		b.journal = true
		if j != nil && !*j {
			b.problem("journal", -1, t.Name+" requires a journal",
				"%s always has a journal; remove journal = false or choose ext4 or ext2", t.Name)
		}
	case JournalOptional:
		b.journal = j == nil || *j
	}
}

func (b *build) checkTuning() {
	keys := slices.Sorted(maps.Keys(b.s.Tuning))
	var names []string
	for _, f := range b.t.Tuning {
		names = append(names, f.Name)
	}
	for _, k := range keys {
		f, ok := b.t.TuningField(k)
		if !ok {
			b.problem("tuning."+k, -1, "unknown "+b.t.Name+" tuning",
				"%s has no tuning %q; it has %s.%s", b.t.Name, k, strings.Join(names, ", "), didYouMean(k, names))
			continue
		}
		v, err := recheck(f, b.s.Tuning[k])
		if err != nil {
			summary := "bad " + b.t.Name + " " + k
			switch {
			case strings.Contains(err.Error(), "above the maximum"):
				summary = b.t.Name + " " + k + " too large"
			case strings.Contains(err.Error(), "below the minimum"):
				summary = b.t.Name + " " + k + " too small"
			}
			b.problem("tuning."+k, -1, summary, "%s %s: %v (%s)", b.t.Name, k, err, f.Doc)
			continue
		}
		b.tuning[k] = v
	}
}

func (b *build) checkGeometry() {
	g := b.s.Geometry
	switch {
	case g.EraseBlock < 0:
		b.problem("geometry.erase_block", -1, "negative erase block", "erase_block is %d bytes", g.EraseBlock)
	case g.EraseBlock%512 != 0:
		b.problem("geometry.erase_block", -1, "erase block not in sectors",
			"erase_block %s is not a multiple of 512-byte sectors", size(g.EraseBlock))
	}
	switch {
	case g.PageSize < 0:
		b.problem("geometry.page_size", -1, "negative page size", "page_size is %d bytes", g.PageSize)
	case g.PageSize > 0 && !units.IsPowerOfTwo(g.PageSize):
		b.problem("geometry.page_size", -1, "page size not a power of two",
			"flash pages are powers of two; page_size is %s", size(g.PageSize))
	case g.PageSize > 0 && g.EraseBlock > 0 && g.EraseBlock%g.PageSize != 0:
		b.problem("geometry.erase_block", -1, "erase block not whole pages",
			"erase_block %s is not a multiple of page_size %s", size(g.EraseBlock), size(g.PageSize))
	}
}

func (b *build) checkContents() {
	if b.s.HasContents && b.t.Populate == PopulateNone {
		b.problem("contents", -1, b.t.Name+" cannot be populated offline",
			"%s has no tool that fills a filesystem image without mounting it; populate it on the target or choose another filesystem", b.t.Name)
	}
}

// eraseBlocks returns the erase block in units of the block size, or
// problems when it does not divide.
func (b *build) eraseBlocks() (int64, bool) {
	eb := b.s.Geometry.EraseBlock
	if eb <= 0 || eb%512 != 0 {
		return 0, false
	}
	if eb%b.bs != 0 {
		b.problem("geometry.erase_block", -1, "erase block not whole blocks",
			"erase_block %s is not a multiple of the %s block size %s, so no %s setting can align to it; fix the geometry or the block size",
			size(eb), b.t.Name, size(b.bs), b.t.Name)
		return 0, false
	}
	return eb / b.bs, true
}

func (b *build) tuningInt(name string) (int64, bool) {
	v, ok := b.tuning[name].(int64)
	return v, ok
}

func (b *build) tuningBool(name string) (bool, bool) {
	v, ok := b.tuning[name].(bool)
	return v, ok
}

func (b *build) tuningString(name string) (string, bool) {
	v, ok := b.tuning[name].(string)
	return v, ok
}

func (b *build) tuningFloat(name string) (float64, bool) {
	v, ok := b.tuning[name].(float64)
	return v, ok
}

func (b *build) tuningStrings(name string) ([]string, bool) {
	l, ok := b.tuning[name].([]any)
	if !ok {
		return nil, false
	}
	var out []string
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out, true
}

// mkfs starts the mkfs command line.
func (b *build) mkfs(argv ...string) {
	b.r.Mkfs = Command{Argv: append([]string{b.t.Tool}, argv...)}
}

func (b *build) arg(argv ...string) { b.r.Mkfs.Argv = append(b.r.Mkfs.Argv, argv...) }

func (b *build) extra() { b.r.Mkfs.Argv = append(b.r.Mkfs.Argv, b.s.ExtraArgs...) }

func size(n int64) string { return units.FormatSize(n) }

func sizeList(ns []int64) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = size(n)
	}
	return strings.Join(s, ", ")
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func itoa(n int64) string { return fmt.Sprint(n) }

// bit writes a boolean the way mkfs options take it.
func bit(v bool) string {
	if v {
		return "1"
	}
	return "0"
}

// String writes a feature as -O lists take it, ^ for off.
func (f feature) String() string {
	if f.enabled {
		return f.name
	}
	return "^" + f.name
}

// unless returns text when cond is false: optional clauses in details.
func unless(cond bool, text string) string {
	if cond {
		return ""
	}
	return text
}
