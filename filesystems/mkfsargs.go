package filesystems

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// What mkfs_args may say: the raw arguments a spec adds to a mkfs command
// line are read the way the tool's own option parser reads them, and every
// option must be on the tool's list below, with a value of the kind the
// list gives. An allowlist, because a blocklist of dangerous options is
// defeated by getopt's attached values (-d.), bundled flags, abbreviated
// long options (--root for --rootdir) and options that name a file
// indirectly (an xfs protofile, a squashfs pseudo file, a mke2fs undo
// file). Nothing on the lists names a file, a directory or a device, reads
// the environment, or makes the tool skip the filesystem it is asked for.
// Options the spec sets through its own attributes (label, uuid, block
// size, features, tuning) are refused with the attribute to use instead.

// argKind is what an option's value must be.
type argKind int

const (
	argNone     argKind = iota
	argNumber           // a decimal whole number, within min..max when max > 0
	argSize             // a number with an optional unit suffix, as the tool reads sizes
	argWord             // a short name: letters, digits and . _ : + -
	argEnum             // one of the listed values
	argSubopts          // comma-separated key[=value], each key on the list
	argWordList         // comma-separated words (features, extensions)
	argHex              // a hexadecimal number (FAT volume ids)
)

// argRule is one option mkfs_args may pass.
type argRule struct {
	names    []string // "-b", "--byte-count"
	kind     argKind
	min, max int64
	multiple int64               // argNumber: the value must be a multiple of it, when > 0
	values   []string            // argEnum
	keys     map[string]argValue // argSubopts
	// use names the spec attribute that sets this already.
	use string
}

// argValue is the kind of a sub-option's value.
type argValue struct {
	kind     argKind
	min, max int64
	values   []string
}

// argStyle is how a tool's parser reads its arguments.
type argStyle int

const (
	// getoptStyle: -x, -xVALUE or -x VALUE, bundled flags (-fq), and
	// --long, --long=VALUE or --long VALUE for the long options listed.
	getoptStyle argStyle = iota
	// wordStyle: single-dash whole words (mksquashfs's -comp, -noappend),
	// each value the next argument.
	wordStyle
)

// mkfsArgs is the list of one tool.
type mkfsArgs struct {
	style argStyle
	rules []argRule
}

var (
	wordRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:+-]{0,63}$`)
	sizeRE = regexp.MustCompile(`^[0-9]{1,19}[A-Za-z]{0,3}$`)
	hexRE  = regexp.MustCompile(`^(0x)?[0-9A-Fa-f]{1,8}$`)
)

// CheckMkfsArgs reads args as t's mkfs would and returns a problem per
// argument it must not pass, at that argument's index.
func (t *Type) CheckMkfsArgs(args []string) []Problem {
	list, ok := mkfsArgLists()[t.Tool]
	if !ok || t.Tool == "" {
		if len(args) == 0 {
			return nil
		}
		return []Problem{{Field: "mkfs_args", Index: 0, Summary: "mkfs_args not supported",
			Detail: fmt.Sprintf("%s has no mkfs command that takes extra arguments.", t.Name)}}
	}
	var probs []Problem
	bad := func(i int, summary, format string, a ...any) {
		probs = append(probs, Problem{Field: "mkfs_args", Index: i, Summary: summary, Detail: fmt.Sprintf(format, a...)})
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.ContainsAny(a, "{}") {
			bad(i, "Placeholder in mkfs_args", "%q holds { or }: fsbench's own command-line placeholders cannot be passed through mkfs_args.", a)
			continue
		}
		rule, name, value, hasValue, err := list.read(a)
		if err != nil {
			bad(i, "Option not allowed in mkfs_args", "%s. %s.", err, allowedText(t.Tool, list))
			// What follows a refused option is most likely its value.
			if strings.HasPrefix(a, "-") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
			}
			continue
		}
		if rule.use != "" {
			bad(i, "Option set by the spec", "%s is what the spec's %s sets; use that instead of mkfs_args.", name, rule.use)
			if rule.kind != argNone && !hasValue {
				i++
			}
			continue
		}
		if rule.kind == argNone {
			if hasValue {
				bad(i, "Option takes no value", "%s takes no value, but %q gives one.", name, a)
			}
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				bad(i, "Option without its value", "%s needs a value, and mkfs_args ends after it.", name)
				continue
			}
			i++
			value = args[i]
			if strings.ContainsAny(value, "{}") {
				bad(i, "Placeholder in mkfs_args", "%q holds { or }: fsbench's own command-line placeholders cannot be passed through mkfs_args.", value)
				continue
			}
		}
		if err := rule.check(value); err != nil {
			bad(i, "Bad value in mkfs_args", "%s %q: %v.", name, value, err)
		}
	}
	return probs
}

// read finds the rule of one argument that starts an option, and the
// value attached to it, if any.
func (l mkfsArgs) read(a string) (r argRule, name, value string, hasValue bool, err error) {
	switch {
	case !strings.HasPrefix(a, "-") || a == "-" || a == "--":
		return r, "", "", false, fmt.Errorf("%q is not an option: mkfs_args may only hold options and their values (the device, sizes and files are fsbench's)", a)
	case l.style == wordStyle:
		if r, ok := l.rule(a); ok {
			return r, a, "", false, nil
		}
		return r, "", "", false, fmt.Errorf("%s is not an option fsbench lets mkfs_args pass", a)
	case strings.HasPrefix(a, "--"):
		name, value, hasValue = strings.Cut(a, "=")
		if r, ok := l.rule(name); ok {
			return r, name, value, hasValue, nil
		}
		return r, "", "", false, fmt.Errorf("%s is not an option fsbench lets mkfs_args pass (long options are matched whole, never abbreviated)", name)
	}
	// A short option: the letter, then its value or more flags.
	name = a[:2]
	r, ok := l.rule(name)
	if !ok {
		return r, "", "", false, fmt.Errorf("%s is not an option fsbench lets mkfs_args pass", name)
	}
	rest := a[2:]
	if r.kind != argNone {
		return r, name, rest, rest != "", nil
	}
	// Bundled flags (-fq): each must be a flag on the list.
	for _, c := range rest {
		f, ok := l.rule("-" + string(c))
		if !ok || f.kind != argNone || f.use != "" {
			return r, "", "", false, fmt.Errorf("-%c in %q is not a flag fsbench lets mkfs_args pass", c, a)
		}
	}
	return r, name, "", false, nil
}

func (l mkfsArgs) rule(name string) (argRule, bool) {
	for _, r := range l.rules {
		for _, n := range r.names {
			if n == name {
				return r, true
			}
		}
	}
	return argRule{}, false
}

func (r argRule) check(v string) error {
	if r.kind == argSubopts {
		for _, kv := range strings.Split(v, ",") {
			k, val, has := strings.Cut(kv, "=")
			spec, ok := r.keys[k]
			switch {
			case !ok:
				return fmt.Errorf("%q is not a sub-option fsbench lets mkfs_args set (%s)", k, strings.Join(slices.Sorted(maps.Keys(r.keys)), ", "))
			case spec.kind == argNone && has:
				return fmt.Errorf("%s takes no value", k)
			case spec.kind != argNone && !has:
				return fmt.Errorf("%s needs =value", k)
			case spec.kind != argNone:
				if err := (argRule{kind: spec.kind, min: spec.min, max: spec.max, values: spec.values}).check(val); err != nil {
					return fmt.Errorf("%s: %v", k, err)
				}
			}
		}
		return nil
	}
	switch r.kind {
	case argNumber:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("not a whole number")
		}
		if r.max > 0 && (n < r.min || n > r.max) {
			return fmt.Errorf("outside %d..%d", r.min, r.max)
		}
		if r.multiple > 0 && n%r.multiple != 0 {
			return fmt.Errorf("not a multiple of %d", r.multiple)
		}
	case argSize:
		if !sizeRE.MatchString(v) {
			return fmt.Errorf("not a size (digits and a unit suffix)")
		}
	case argWord:
		if !wordRE.MatchString(v) {
			return fmt.Errorf("not a short name of letters, digits and . _ : + -")
		}
	case argEnum:
		for _, x := range r.values {
			if v == x {
				return nil
			}
		}
		return fmt.Errorf("not one of %s", strings.Join(r.values, ", "))
	case argWordList:
		for _, w := range strings.Split(v, ",") {
			if !wordRE.MatchString(strings.TrimPrefix(w, "^")) {
				return fmt.Errorf("%q is not a short name", w)
			}
		}
	case argHex:
		if !hexRE.MatchString(v) {
			return fmt.Errorf("not a 32-bit hexadecimal number")
		}
	}
	return nil
}

func allowedText(tool string, l mkfsArgs) string {
	var names []string
	for _, r := range l.rules {
		if r.use == "" {
			names = append(names, r.names[0])
		}
	}
	return fmt.Sprintf("mkfs_args of %s may pass %s (docs/security.md says why no more)", tool, strings.Join(names, " "))
}

// Rule constructors for the lists.
func flagRule(names ...string) argRule { return argRule{names: names} }
func numRule(min, max int64, names ...string) argRule {
	return argRule{names: names, kind: argNumber, min: min, max: max}
}
func sizeRule(names ...string) argRule { return argRule{names: names, kind: argSize} }
func wordRule(names ...string) argRule { return argRule{names: names, kind: argWord} }
func enumRule(values []string, names ...string) argRule {
	return argRule{names: names, kind: argEnum, values: values}
}
func listRule(names ...string) argRule { return argRule{names: names, kind: argWordList} }
func subRule(keys map[string]argValue, names ...string) argRule {
	return argRule{names: names, kind: argSubopts, keys: keys}
}
func specRule(use string, names ...string) argRule {
	return argRule{names: names, kind: argWord, use: use}
}
func flagSpecRule(use string, names ...string) argRule { return argRule{names: names, use: use} }

var (
	subFlag = argValue{kind: argNone}
	subNum  = argValue{kind: argNumber}
	subSize = argValue{kind: argSize}
	subBool = argValue{kind: argEnum, values: []string{"0", "1"}}
	subWord = argValue{kind: argWord}
)

// extGroupRule is mke2fs -g, blocks per group: a multiple of 8 ("blocks
// per group must be multiple of 8") from 256 up to 8 times the block size
// ("blocks per group count out of range"), at most 524288 with 64KiB
// blocks; mke2fs 1.47.0 refused 248, 260 and, with 4KiB blocks, 32776.
func extGroupRule() argRule {
	return argRule{names: []string{"-g"}, kind: argNumber, min: 256, max: 8 * 65536, multiple: 8}
}

// mkfsArgLists gives each tool's list; built on each call, like the
// catalogue.
func mkfsArgLists() map[string]mkfsArgs {
	return map[string]mkfsArgs{
		"mke2fs": {style: getoptStyle, rules: []argRule{
			specRule("block_size", "-b"), numRule(1024, 1<<28, "-C"), extGroupRule(), numRule(1, 1<<20, "-G"),
			specRule("tuning's inode_ratio", "-i"), specRule("tuning's inode_size", "-I"),
			subRule(map[string]argValue{"size": subNum, "fast_commit_size": subNum}, "-J"),
			specRule("label", "-L"), specRule("tuning's reserved_percent", "-m"), numRule(1, 1<<32, "-N"),
			wordRule("-o"), specRule("features", "-O"), enumRule([]string{"0", "1"}, "-r"), wordRule("-T"),
			specRule("uuid", "-U"), specRule("tuning's errors", "-e"),
			subRule(map[string]argValue{
				"stride": subNum, "stripe_width": subNum, "stripe-width": subNum, "resize": subNum,
				"lazy_itable_init": subBool, "lazy_journal_init": subBool, "num_backup_sb": {kind: argEnum, values: []string{"0", "1", "2"}},
				"packed_meta_blocks": subBool, "root_owner": {kind: argWord}, "test_fs": subFlag, "discard": subFlag,
				"nodiscard": subFlag, "quotatype": subWord, "encoding": subWord, "encoding_flags": subWord,
				"orphan_file_size": subNum, "assume_storage_prezeroed": subBool, "no_copy_xattrs": subFlag,
			}, "-E"),
			flagSpecRule("journal", "-j"), flagRule("-q"), flagRule("-v"), flagRule("-D"), flagRule("-F"),
		}},
		"mkfs.btrfs": {style: getoptStyle, rules: []argRule{
			specRule("tuning's data_profile", "-d", "--data"), specRule("tuning's metadata_profile", "-m", "--metadata"),
			flagSpecRule("tuning's mixed", "-M", "--mixed"), specRule("tuning's checksum", "--csum", "--checksum"),
			specRule("tuning's nodesize", "-n", "--nodesize"), sizeRule("-s", "--sectorsize"),
			specRule("features", "-O", "--features"), listRule("-R", "--runtime-features"),
			specRule("label", "-L", "--label"), specRule("uuid", "-U", "--uuid"), sizeRule("-b", "--byte-count"),
			flagRule("-K", "--nodiscard"), flagRule("-f", "--force"), flagRule("-q", "--quiet"), flagRule("-v", "--verbose"),
		}},
		"mkfs.xfs": {style: getoptStyle, rules: []argRule{
			subRule(map[string]argValue{"size": subSize}, "-b"),
			subRule(map[string]argValue{"crc": subBool, "finobt": subBool, "rmapbt": subBool, "reflink": subBool,
				"inobtcount": subBool, "bigtime": subBool}, "-m"),
			subRule(map[string]argValue{"agcount": subNum, "agsize": subSize, "sunit": subNum, "swidth": subNum,
				"su": subSize, "sw": subNum, "noalign": subFlag, "sectsize": subSize}, "-d"),
			subRule(map[string]argValue{"perblock": subNum, "size": subSize, "maxpct": subNum, "attr": {kind: argEnum, values: []string{"0", "1", "2"}},
				"projid32bit": subBool, "sparse": subBool, "nrext64": subBool, "align": subBool}, "-i"),
			subRule(map[string]argValue{"agnum": subNum, "internal": subFlag, "size": subSize, "version": {kind: argEnum, values: []string{"1", "2"}},
				"sunit": subNum, "su": subSize, "sectsize": subSize, "lazy-count": subBool}, "-l"),
			subRule(map[string]argValue{"size": subSize, "version": {kind: argEnum, values: []string{"2", "ci"}}, "ftype": subBool}, "-n"),
			subRule(map[string]argValue{"size": subSize}, "-s"),
			specRule("label", "-L"), flagRule("-f"), flagRule("-K"), flagRule("-q"),
		}},
		"mkfs.f2fs": {style: getoptStyle, rules: []argRule{
			specRule("tuning's heap", "-a"), numRule(0, 10, "-d"), specRule("tuning's cold_extensions", "-e"),
			specRule("tuning's hot_extensions", "-E"), flagRule("-f"), flagRule("-i"), specRule("label", "-l"),
			specRule("uuid", "-U"), specRule("tuning's overprovision", "-o"), specRule("features", "-O"),
			wordRule("-C"), flagRule("-q"), flagRule("-r"), wordRule("-R"), specRule("tuning's segs_per_section", "-s"),
			enumRule([]string{"0", "1"}, "-t"), numRule(512, 4096, "-w"), specRule("tuning's sections_per_zone", "-z"),
		}},
		"mkfs.vfat": {style: getoptStyle, rules: []argRule{
			flagRule("-a"), numRule(0, 65535, "-b"), numRule(0, 255, "-D"), specRule("tuning's fat_count", "-f"),
			specRule("tuning's fat_size", "-F"), wordRule("-g"), numRule(0, 1<<32, "-h"), specRule("uuid", "-i"),
			flagRule("-I"), enumRule([]string{"0xF0", "0xF8", "0xF9", "0xFA", "0xFB", "0xFC", "0xFD", "0xFE", "0xFF"}, "-M"),
			specRule("label", "-n"), numRule(1, 65535, "--codepage"), specRule("tuning's root_entries", "-r"),
			numRule(1, 65535, "-R"), specRule("block_size", "-s"), numRule(512, 32768, "-S"), flagRule("-v"),
			enumRule([]string{"y", "n", "a"}, "--mbr"),
		}},
		"mkfs.nilfs2": {style: getoptStyle, rules: []argRule{
			specRule("block_size", "-b"), specRule("tuning's blocks_per_segment", "-B"), specRule("label", "-L"),
			specRule("tuning's reserved_segments_percent", "-m"), specRule("features", "-O"),
			flagRule("-f"), flagRule("-q"), flagRule("-v"), flagRule("-K"),
		}},
		"mksquashfs": {style: wordStyle, rules: []argRule{
			specRule("tuning's compression", "-comp"), specRule("block_size", "-b"),
			specRule("tuning's compression_level", "-Xcompression-level"),
			flagRule("-noappend"), flagRule("-no-xattrs"), flagRule("-xattrs"), flagRule("-noI"), flagRule("-noId"),
			flagRule("-noD"), flagRule("-noF"), flagRule("-noX"), flagRule("-no-fragments"), flagRule("-always-use-fragments"),
			flagRule("-no-duplicates"), flagRule("-no-exports"), flagRule("-exports"), flagRule("-no-sparse"),
			flagRule("-Xbcj-x86"), flagRule("-Xbcj-arm"), flagRule("-Xbcj-armthumb"), flagRule("-no-progress"), flagRule("-quiet"),
			flagRule("-all-root"), flagRule("-root-owned"), flagRule("-no-recovery"),
		}},
		"mkfs.erofs": {style: getoptStyle, rules: []argRule{
			numRule(0, 9, "-d"), numRule(-1, 2, "-x"), specRule("tuning's compression", "-z"),
			specRule("tuning's pcluster_size", "-C"), specRule("tuning's ztailpacking and noinline_data", "-E"),
			specRule("uuid", "-U"), flagRule("--all-root"), numRule(0, 1<<32, "--force-uid"), numRule(0, 1<<32, "--force-gid"),
			flagRule("--quiet"), numRule(4096, 1<<30, "--max-extent-bytes"), numRule(4096, 1<<30, "--chunksize"),
			specRule("block_size", "-b"),
		}},
	}
}

// MkfsArgOptions describes the options mkfs_args may pass to t's mkfs,
// each with the kind of value it takes, for the reference.
func (t *Type) MkfsArgOptions() []string {
	list, ok := mkfsArgLists()[t.Tool]
	if !ok {
		return nil
	}
	var out []string
	for _, r := range list.rules {
		if r.use != "" {
			continue
		}
		names := strings.Join(r.names, "|")
		switch r.kind {
		case argNone:
			out = append(out, names)
		case argNumber:
			out = append(out, names+" NUMBER")
		case argSize:
			out = append(out, names+" SIZE")
		case argWord:
			out = append(out, names+" NAME")
		case argEnum:
			out = append(out, names+" "+strings.Join(r.values, "|"))
		case argWordList:
			out = append(out, names+" NAME,...")
		case argHex:
			out = append(out, names+" HEX")
		case argSubopts:
			out = append(out, names+" "+strings.Join(slices.Sorted(maps.Keys(r.keys)), "|")+"[=VALUE],...")
		}
	}
	return out
}
