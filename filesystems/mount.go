package filesystems

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/internal/cmdline"
	"github.com/fsbench/fsbench/internal/units"
)

// ValueKind is the kind of value a mount option takes.
type ValueKind int

const (
	// NoValue: a flag such as "noatime".
	NoValue ValueKind = iota
	// UintValue: a decimal unsigned number ("commit=5").
	UintValue
	// IntValue: a decimal number that may be negative ("time_offset=-60").
	IntValue
	// OctalValue: an octal permission mask ("umask=022").
	OctalValue
	// SizeValue: bytes with an optional k, m or g suffix ("allocsize=64k").
	SizeValue
	// EnumValue: one of MountOption.Enum ("data=ordered").
	EnumValue
	// BoolValue: 0/1, yes/no, true/false or on/off ("utf8=1").
	BoolValue
	// StringValue: free text such as a path or a name.
	StringValue
)

// OptionStatus says whether current kernels still honour an option.
type OptionStatus int

const (
	// Supported: the option works.
	Supported OptionStatus = iota
	// Deprecated: still accepted, replaced by another option.
	Deprecated
	// Ignored: accepted, logged and without effect.
	Ignored
	// Removed: the kernel refuses it and the mount fails.
	Removed
)

// MountOption is one option a filesystem's mount accepts.
type MountOption struct {
	Name  string
	Value ValueKind
	// ValueOptional means the option is also valid as a bare flag
	// ("barrier" as well as "barrier=0").
	ValueOptional bool
	Enum          []string
	// Min and Max bound numeric values when Max > Min.
	Min, Max   int64
	PowerOfTwo bool
	// VFS marks the generic flags that mount(2) takes as flags, not in the
	// filesystem's data string.
	VFS bool
	// Group names options that set the same state ("barrier", "nobarrier",
	// "barrier=0"); two of them with different states contradict each
	// other. Options without a Group form a group of their own name.
	Group string
	// Sets is the state a flag sets in its Group ("on", "off", "sync").
	Sets string
	// Conflicts names options outside the Group that contradict this one.
	Conflicts []string
	Status    OptionStatus
	// Reason says why a non-Supported option is reported, citing the kernel.
	Reason string
	Doc    string

	emptyOK bool                 // StringValue may be empty (ext4 usrjquota=)
	check   func(v string) error // further value rules
}

// mountUse is one option from the spec after parsing.
type mountUse struct {
	opt      MountOption
	text     string // trimmed as written
	value    string
	hasValue bool
	index    int
}

func (u mountUse) state() string {
	o := u.opt
	switch {
	case !u.hasValue:
		if o.Sets != "" {
			return o.Sets
		}
		return "on"
	case o.Value == BoolValue:
		if b, _ := parseBool(u.value); b {
			return "on"
		}
		return "off"
	case o.Value == UintValue && o.Sets != "":
		// "barrier=N": any non-zero number switches it on.
		if n, _ := strconv.ParseUint(u.value, 10, 64); n != 0 {
			return "on"
		}
		return "off"
	}
	return u.value
}

// checkMount parses the spec's mount options, reports every problem and
// fills the normalised lists.
func (b *build) checkMount() {
	var uses []mountUse
	seen := map[string]int{}
	groups := map[string]mountUse{}
	for i, raw := range b.s.Mount {
		u, ok := b.parseMountOption(i, raw)
		if !ok {
			continue
		}
		if j, dup := seen[u.text]; dup {
			b.problem("mount", i, "duplicate mount option", "%q repeats mount option %d; give it once", u.text, j+1)
			continue
		}
		seen[u.text] = i
		g := u.opt.Group
		if g == "" {
			g = u.opt.Name
		}
		if prev, ok := groups[g]; ok {
			if prev.state() != u.state() {
				b.problem("mount", i, "conflicting mount options",
					"%q contradicts %q (mount option %d); keep one of them", u.text, prev.text, prev.index+1)
			} else {
				b.problem("mount", i, "duplicate mount option",
					"%q says again what %q (mount option %d) says; give it once", u.text, prev.text, prev.index+1)
			}
			continue
		}
		groups[g] = u
		uses = append(uses, u)
	}
	b.mountConflicts(uses)
	b.mount = uses
	var data []string
	for _, u := range uses {
		b.r.MountOptions = append(b.r.MountOptions, u.text)
		if u.opt.VFS {
			b.r.VFSFlags = append(b.r.VFSFlags, u.text)
		} else {
			data = append(data, u.text)
		}
	}
	b.r.RootFlags = strings.Join(data, ",")
}

// parseMountOption checks one element of the mount list on its own.
func (b *build) parseMountOption(i int, raw string) (mountUse, bool) {
	t := b.t
	text := strings.TrimSpace(raw)
	key, value, hasValue := strings.Cut(text, "=")
	switch {
	case text == "":
		b.problem("mount", i, "empty mount option", "mount option %d is empty; remove it", i+1)
		return mountUse{}, false
	case strings.Contains(text, ","):
		b.problem("mount", i, "several options in one element",
			"%q holds several options; give one option per list element", raw)
		return mountUse{}, false
	}
	// The option reaches rootflags= on the kernel command line, the boot
	// files and fstab: it must stay one word there.
	if err := cmdline.MountOption(text); err != nil {
		b.problem("mount", i, "mount option unfit for the boot files",
			"%q cannot be written into rootflags= and fstab: %v", raw, err)
		return mountUse{}, false
	}
	o, ok := t.MountOption(key)
	if !ok {
		var names []string
		for _, o := range t.MountOptions {
			names = append(names, o.Name)
		}
		b.problem("mount", i, "unknown "+t.Name+" mount option",
			"the %s kernel filesystem and the VFS know no mount option %q.%s", t.Name, key, didYouMean(key, names))
		return mountUse{}, false
	}
	if err := checkValue(o, value, hasValue); err != nil {
		b.problem("mount", i, "bad "+t.Name+" mount option "+key, "%s: %v", text, err)
		return mountUse{}, false
	}
	if o.Status != Supported {
		b.problem("mount", i, t.Name+" "+statusVerb(o.Status)+" "+key, "%s: %s", text, o.Reason)
		return mountUse{}, false
	}
	return mountUse{opt: o, text: text, value: value, hasValue: hasValue, index: i}, true
}

// mountConflicts reports pairs where either option names the other in
// Conflicts, at the later of the two.
func (b *build) mountConflicts(uses []mountUse) {
	for i, u := range uses {
		for _, v := range uses[:i] {
			if contains(u.opt.Conflicts, v.opt.Name) || contains(v.opt.Conflicts, u.opt.Name) {
				b.problem("mount", u.index, "conflicting mount options",
					"%q contradicts %q (mount option %d); keep one of them", u.text, v.text, v.index+1)
			}
		}
	}
}

// mounted returns the spec's use of option name, if any.
func (b *build) mounted(name string) (mountUse, bool) {
	for _, u := range b.mount {
		if u.opt.Name == name {
			return u, true
		}
	}
	return mountUse{}, false
}

func statusVerb(s OptionStatus) string {
	switch s {
	case Deprecated:
		return "deprecates"
	case Ignored:
		return "ignores"
	case Removed:
		return "refuses"
	}
	return "accepts"
}

func checkValue(o MountOption, v string, has bool) error {
	if !has {
		if o.Value != NoValue && !o.ValueOptional {
			return fmt.Errorf("%s needs a value", o.Name)
		}
		return nil
	}
	if o.Value == NoValue {
		return fmt.Errorf("%s takes no value", o.Name)
	}
	if v == "" && !(o.Value == StringValue && o.emptyOK) {
		return fmt.Errorf("%s needs a value after =", o.Name)
	}
	var n int64
	var err error
	switch o.Value {
	case UintValue:
		var u uint64
		u, err = strconv.ParseUint(v, 10, 32)
		n = int64(u)
		if err != nil {
			return fmt.Errorf("%q is not a whole number from 0 to 4294967295", v)
		}
	case IntValue:
		n, err = strconv.ParseInt(v, 10, 32)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", v)
		}
	case OctalValue:
		n, err = strconv.ParseInt(v, 8, 32)
		if err != nil || n < 0 || n > 0777 {
			return fmt.Errorf("%q is not an octal mask from 0 to 0777", v)
		}
	case SizeValue:
		n, err = parseKernelSize(v)
		if err != nil {
			return err
		}
	case EnumValue:
		if !contains(o.Enum, v) {
			return fmt.Errorf("%q is not one of %s", v, strings.Join(o.Enum, ", "))
		}
	case BoolValue:
		if _, ok := parseBool(v); !ok {
			return fmt.Errorf("%q is not a boolean (0, 1, yes, no, true, false, on, off)", v)
		}
	}
	if o.Max > o.Min && (n < o.Min || n > o.Max) {
		return fmt.Errorf("%s is outside %s..%s", v, boundText(o, o.Min), boundText(o, o.Max))
	}
	if o.PowerOfTwo && !units.IsPowerOfTwo(n) && !(n == 0 && o.Min == 0) {
		return fmt.Errorf("%s is not a power of two", v)
	}
	if o.check != nil {
		return o.check(v)
	}
	return nil
}

func boundText(o MountOption, n int64) string {
	if o.Value == SizeValue {
		return size(n)
	}
	return itoa(n)
}

// parseKernelSize reads the kernel's suffix_kstrtoint form: a number with
// an optional k, m or g (either case).
func parseKernelSize(v string) (int64, error) {
	mult := int64(1)
	switch v[len(v)-1] {
	case 'k', 'K':
		mult = units.KiB
	case 'm', 'M':
		mult = units.MiB
	case 'g', 'G':
		mult = units.GiB
	}
	digits := v
	if mult != 1 {
		digits = v[:len(v)-1]
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size (bytes, or a number with k, m or g)", v)
	}
	return n * mult, nil
}

// parseBool follows the kernel's fs_param_is_bool table.
func parseBool(v string) (value, ok bool) {
	switch v {
	case "1", "yes", "true", "on":
		return true, true
	case "0", "no", "false", "off":
		return false, true
	}
	return false, false
}

// vfsOptions are the generic flags every filesystem accepts through
// mount(2), as mount(8) spells them (include/uapi/linux/mount.h MS_*).
func vfsOptions() []MountOption {
	v := func(name, group, sets, doc string) MountOption {
		return MountOption{Name: name, VFS: true, Group: group, Sets: sets, Doc: doc}
	}
	opts := []MountOption{
		v("ro", "rw", "ro", "mount read-only"),
		v("rw", "rw", "rw", "mount read-write"),
		v("sync", "sync", "sync", "all writes are synchronous"),
		v("async", "sync", "async", "writes are asynchronous (default)"),
		v("dirsync", "", "", "directory updates are synchronous"),
		v("noatime", "atime", "noatime", "never update access times"),
		v("relatime", "atime", "relatime", "update access times relative to mtime (default since Linux 2.6.30)"),
		v("strictatime", "atime", "strictatime", "always update access times"),
		v("lazytime", "lazytime", "on", "keep timestamp updates in memory"),
		v("nolazytime", "lazytime", "off", "write timestamp updates"),
		v("diratime", "diratime", "on", "update directory access times"),
		v("nodiratime", "diratime", "off", "never update directory access times"),
		v("dev", "dev", "on", "interpret device files"),
		v("nodev", "dev", "off", "do not interpret device files"),
		v("suid", "suid", "on", "honour set-user-id bits"),
		v("nosuid", "suid", "off", "ignore set-user-id bits"),
		v("exec", "exec", "on", "allow executing binaries"),
		v("noexec", "exec", "off", "do not allow executing binaries"),
		v("symfollow", "symfollow", "on", "follow symlinks"),
		v("nosymfollow", "symfollow", "off", "do not follow symlinks (Linux 5.10+)"),
		v("iversion", "iversion", "on", "increment i_version on changes"),
		v("noiversion", "iversion", "off", "do not increment i_version"),
		v("silent", "silent", "on", "suppress some kernel messages"),
		v("loud", "silent", "off", "do not suppress kernel messages"),
	}
	atime := v("atime", "", "", "do not set noatime")
	atime.Conflicts = []string{"noatime"}
	norel := v("norelatime", "", "", "do not set relatime")
	norel.Conflicts = []string{"relatime"}
	nostrict := v("nostrictatime", "", "", "do not set strictatime")
	nostrict.Conflicts = []string{"strictatime"}
	mand := v("mand", "mand", "on", "mandatory locks")
	mand.Status, mand.Reason = Ignored, "Linux 5.15 removed mandatory locking and ignores mand with a warning; remove it"
	nomand := v("nomand", "mand", "off", "no mandatory locks")
	return append(opts, atime, norel, nostrict, mand, nomand)
}

// Helpers to keep the per-filesystem tables short.

func flag(name, doc string) MountOption { return MountOption{Name: name, Doc: doc} }

func pair(group, on, off, doc string) []MountOption {
	return []MountOption{
		{Name: on, Group: group, Sets: "on", Doc: doc},
		{Name: off, Group: group, Sets: "off", Doc: "the opposite of " + on},
	}
}

func enumOpt(name string, choices []string, doc string) MountOption {
	return MountOption{Name: name, Value: EnumValue, Enum: choices, Doc: doc}
}

func uintOpt(name string, min, max int64, doc string) MountOption {
	return MountOption{Name: name, Value: UintValue, Min: min, Max: max, Doc: doc}
}

func strOpt(name, doc string) MountOption {
	return MountOption{Name: name, Value: StringValue, Doc: doc}
}

func status(o MountOption, s OptionStatus, reason string) MountOption {
	o.Status, o.Reason = s, reason
	return o
}

func grouped(o MountOption, group, sets string) MountOption {
	o.Group, o.Sets = group, sets
	return o
}
