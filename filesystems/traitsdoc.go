package filesystems

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteTraits writes, as Markdown, what fsbench knows of every type
// beyond its mkfs options (which `fsbench reference` lists): the kernel,
// the packages of its programs on the build host and on the target, its
// checker, how tests read it back, its partition type. docs/filesystems.md
// holds this output, and a test keeps it equal.
func WriteTraits(w io.Writer) {
	for _, name := range Names() {
		t, _ := Lookup(name)
		writeTraits(w, t)
	}
}

func writeTraits(w io.Writer, t *Type) {
	fmt.Fprintf(w, "\n### %s\n\n", t.Name)
	k := t.Kernel
	fmt.Fprintf(w, "- kernel: %s", codeList("CONFIG_", k.Config))
	if len(k.Bools) > 0 {
		fmt.Fprintf(w, ", with %s=y", codeList("CONFIG_", k.Bools))
	}
	fmt.Fprintf(w, "; module `%s`", k.Module)
	if len(k.MountModules) > 0 {
		fmt.Fprintf(w, " after %s", codeList("", k.MountModules))
	}
	for _, f := range sortedKeys(k.FeatureConfig) {
		fmt.Fprintf(w, "; feature `%s` needs `CONFIG_%s`", f, k.FeatureConfig[f])
	}
	if k.CompressorFlag != "" {
		var cs []string
		for _, c := range sortedKeys(k.Compressors) {
			cs = append(cs, fmt.Sprintf("`%s` → `CONFIG_%s`", c, k.Compressors[c]))
		}
		fmt.Fprintf(w, "; compressors (`%s`): %s", k.CompressorFlag, strings.Join(cs, ", "))
	}
	fmt.Fprintf(w, "\n")
	if t.Checker != nil {
		fmt.Fprintf(w, "- checker: `%s`\n", strings.Join(t.Checker, " "))
	} else {
		fmt.Fprintf(w, "- checker: none (%s)\n", t.NoChecker)
	}
	if len(t.Cleaner) > 0 {
		fmt.Fprintf(w, "- cleaner beside a mount: `%s`\n", strings.Join(t.Cleaner, " "))
	}
	fmt.Fprintf(w, "- read back by the tests: %s", t.ReadBack.Method)
	if t.ReadBack.MountOptions != "" {
		fmt.Fprintf(w, " (`-o %s`)", t.ReadBack.MountOptions)
	}
	if t.Names.Why != "" {
		fmt.Fprintf(w, "\n- file names: %s; `validate` refuses such names in `file` blocks, `build` anywhere in the contents", t.Names.Why)
	}
	fmt.Fprintf(w, "\n- partition type when the spec gives none: `%s`; U-Boot reads boot files from it: %s\n",
		t.PartitionType, map[bool]string{true: "yes", false: "no"}[t.BootFiles])
	tp := t.Target
	fmt.Fprintf(w, "- on the target: Buildroot %s; Yocto %s", codeList("", tp.Buildroot), codeList("", tp.Yocto))
	if tp.YoctoLayer != "" {
		fmt.Fprintf(w, " (%s)", tp.YoctoLayer)
	}
	fmt.Fprintf(w, "\n\n| program | Debian | Buildroot host | Yocto native | build host |\n|---|---|---|---|---|\n")
	for _, p := range t.Programs {
		host := "target only"
		for _, tool := range t.Tools {
			if tool == p.Name {
				host = "runs at build"
			}
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", p.Name, p.Debian, orNone(p.BuildrootHost), orNone(p.YoctoNative), host)
	}
}

func codeList(prefix string, xs []string) string {
	var out []string
	for _, x := range xs {
		out = append(out, "`"+prefix+x+"`")
	}
	return strings.Join(out, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "—"
	}
	return "`" + s + "`"
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
