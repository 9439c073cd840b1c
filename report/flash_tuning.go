package report

import (
	"slices"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
)

// What an erase block changes in a filesystem's mkfs command, from the
// same derivation the plan uses (filesystems.Resolve): the report names the
// options a measured geometry would give, beside those the spec's gives.

// mkfsFor resolves a filesystem of type fstype on a partition of size
// bytes with the given block size (0: the type's default) and erase block
// (0: none), and returns its mkfs argv, the derivations the erase block
// made and the problems it raises.
func mkfsFor(fstype string, size, blockSize, eraseBlock int64) ([]string, []filesystems.Derivation, []string) {
	res, probs := filesystems.Resolve(filesystems.Spec{Type: fstype, Size: size, BlockSize: blockSize,
		Geometry: filesystems.Geometry{EraseBlock: eraseBlock}})
	var derived []filesystems.Derivation
	for _, d := range res.Derived {
		if strings.Contains(d.From, "erase_block") || d.Name == "erase_block" {
			derived = append(derived, d)
		}
	}
	var why []string
	for _, p := range probs {
		if strings.HasPrefix(p.Field, "geometry.") {
			why = append(why, p.Detail)
		}
	}
	return res.Mkfs.Argv, derived, why
}

// option is one option of an argv: a flag and its value ("-E",
// "stride=2048,stripe_width=2048"), or a flag alone.
type option struct{ flag, value string }

func options(argv []string) []option {
	var out []option
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if !strings.HasPrefix(a, "-") {
			continue // a placeholder such as {image}
		}
		o := option{flag: a}
		if i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") && !strings.HasPrefix(argv[i+1], "{") {
			o.value = argv[i+1]
			i++
		}
		out = append(out, o)
	}
	return out
}

// optionDiff writes the options of b that a lacks or sets otherwise; of a
// comma list ("-E hash_seed=...,stride=2048"), only the items that differ.
func optionDiff(a, b []string) string {
	oa := options(a)
	var parts []string
	for _, o := range options(b) {
		k := slices.IndexFunc(oa, func(x option) bool { return x.flag == o.flag })
		switch {
		case k >= 0 && oa[k].value == o.value:
		case k >= 0 && strings.Contains(o.value, ","):
			old := strings.Split(oa[k].value, ",")
			var items []string
			for _, it := range strings.Split(o.value, ",") {
				if !slices.Contains(old, it) {
					items = append(items, it)
				}
			}
			parts = append(parts, o.flag+" "+strings.Join(items, ","))
		case o.value == "":
			parts = append(parts, o.flag)
		default:
			parts = append(parts, o.flag+" "+o.value)
		}
		if k >= 0 {
			oa = slices.Delete(oa, k, k+1)
		}
	}
	return strings.Join(parts, " ")
}

// retuning says what the spec's erase block gives a filesystem and what a
// measured one would give instead: "the spec tunes ext4 for 4MiB (-E
// stride=1024,stripe_width=1024): with erase_block = "8MiB" it would be
// -E stride=2048,stripe_width=2048".
func retuning(fstype string, size, blockSize, spec, measured int64) string {
	none, _, _ := mkfsFor(fstype, size, blockSize, 0)
	specArgv, specDerived, _ := mkfsFor(fstype, size, blockSize, spec)
	newArgv, newDerived, problems := mkfsFor(fstype, size, blockSize, measured)
	var b strings.Builder
	if spec > 0 {
		b.WriteString("the spec tunes " + fstype + " for " + sizeText(float64(spec)))
		if d := optionDiff(none, specArgv); d != "" {
			b.WriteString(" (" + d + ")")
		}
	} else {
		b.WriteString("the spec gives " + fstype + " no erase_block")
	}
	b.WriteString(": with erase_block = \"" + sizeText(float64(measured)) + "\" ")
	base := specArgv
	if spec == 0 {
		base = none
	}
	switch d := optionDiff(base, newArgv); {
	case d != "":
		b.WriteString("it would be " + d)
	case len(newDerived) > 0 && newDerived[0].Value == nil:
		b.WriteString("its options would not change (" + newDerived[0].From + ")")
	case len(newDerived) == 0 && len(specDerived) == 0:
		b.WriteString("its options would not change: " + fstype + " has no setting that derives from the erase block")
	default:
		b.WriteString("its options would not change")
	}
	if len(problems) > 0 {
		b.WriteString(", but mkfs would not take it: " + strings.TrimSuffix(strings.Join(problems, " "), "."))
	}
	return b.String()
}
