package imagegen

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/cmdline"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// injections are what a hostile spec puts into a value that reaches a boot
// file: word and line separators, quotes, hush's and the shell's syntax,
// comments, control characters.
var injections = []string{
	" ", "\t", "\n", "\r", "\x00", "\x1b", "\x7f", `"`, "'", ";", ",", "$", "`", `\`, "#", "(", "|", "&", "<", ":",
	" init=/bin/sh", "\nsetenv bootcmd reset", `"; reset; echo "`, "${bootcmd}", "$(reboot)", "\n/dev/sda1 / ext4 defaults 0 0",
	"\u00e9", "\u2028",
}

// bootValueSpec puts the value under test at one of the places where a
// spec value reaches the boot files; the other places hold plain values.
func bootValueSpec(bootloader, rootBy string, at map[string]string) string {
	v := func(name, plain string) string {
		if s, ok := at[name]; ok {
			return hclString(s)
		}
		return hclString(plain)
	}
	return fmt.Sprintf(`
matrix "fs" {
  values = { %s = "btrfs" }
}

board "b" {
  arch        = "arm64"
  console     = %s
  storage     = %s
  root_by     = %q
  bootloader  = %q
  kernel_args = ["quiet", %s]
}

image "disk" {
  table = "gpt"
  size  = "2GiB"
  partition "rootfs" {
    size  = "512MiB"
    root  = true
    label = %s
    filesystem {
      type  = matrix.fs
      mount = ["noatime", %s]
    }
  }
  partition "data" {
    size = "512MiB"
    uuid = %s
    filesystem {
      type       = "ext4"
      mountpoint = %s
      mount      = [%s]
    }
  }
}
`, v("variant", "v"), v("console", "ttyAMA0,115200n8"), v("storage", "mmcblk0"), rootBy, bootloader,
		v("kernel_arg", "loglevel=7"), v("label", "rootfs"), v("root_mount", "subvol=@root"),
		v("uuid", "0b1c2d3e-0102-4304-8506-0708090a0b0c"), v("mountpoint", "/data"), v("data_mount", "commit=30"))
}

// hclString writes s as an HCL string literal that evaluates to s.
func hclString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || r == 0x2028:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r == '$' || r == '%':
			b.WriteRune(r)
			b.WriteRune(r) // $${ and %%{ are literal
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestNoSpecValueAddsToBootFiles puts every injection into every spec value
// that reaches bootargs.txt, extlinux.conf, boot.cmd, cmdline.txt or
// fstab. Either the spec is refused at that value's attribute, or each
// file keeps its exact shape: the same lines, the kernel command line the
// same words, fstab six fields a line, boot.cmd's quotes around the
// command line alone.
func TestNoSpecValueAddsToBootFiles(t *testing.T) {
	places := []string{"variant", "console", "storage", "kernel_arg", "label", "root_mount", "uuid", "mountpoint", "data_mount"}
	dir := t.TempDir()
	refused, accepted := 0, 0
	for _, bl := range []string{"extlinux", "uboot", "rpi"} {
		for _, place := range places {
			// root= names the root by its label, or by the storage's
			// device name, only when the board says so.
			rootBy := map[string]string{"label": "partlabel", "storage": "device"}[place]
			if rootBy == "" {
				rootBy = "partuuid"
			}
			{
				for i, inj := range injections {
					value := map[string]string{
						"variant": "v", "console": "ttyAMA0", "storage": "mmcblk0", "kernel_arg": "loglevel=7",
						"label": "rootfs", "root_mount": "subvol=@root", "mountpoint": "/data", "data_mount": "commit=30",
						"uuid": "0b1c2d3e-0102-4304-8506-0708090a0b0c",
					}[place]
					// In the middle of the value, and at its end.
					for _, v := range []string{value[:len(value)/2] + inj + value[len(value)/2:], value + inj} {
						path := filepath.Join(dir, fmt.Sprintf("%s-%s-%s-%d.fsb.hcl", bl, rootBy, place, i))
						src := bootValueSpec(bl, rootBy, map[string]string{place: v})
						if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
							t.Fatal(err)
						}
						_, p, diags := plan.Load(path, spec.Options{})
						if diags.HasErrors() {
							refused++
							checkLocated(t, diags.Errs(), place, v, src)
							continue
						}
						accepted++
						for _, variant := range p.Variants {
							checkBootFiles(t, fmt.Sprintf("%s %s=%q", bl, place, v), variant)
						}
					}
				}
			}
		}
	}
	if refused == 0 || accepted == 0 {
		t.Errorf("%d specs refused, %d accepted: the test covers neither kind", refused, accepted)
	}
}

// checkLocated wants an error on the line of the spec that holds the
// hostile value.
func checkLocated(t *testing.T, errs []error, place, v, src string) {
	t.Helper()
	line := 0
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, hclString(v)) {
			line = i + 1
			break
		}
	}
	for _, err := range errs {
		if strings.Contains(err.Error(), ":"+strconv.Itoa(line)+",") {
			return
		}
	}
	t.Errorf("%s = %q: refused, but not at its line %d: %v", place, v, line, errs)
}

// checkBootFiles asserts the shape of every boot file of v.
func checkBootFiles(t *testing.T, what string, v plan.Variant) {
	t.Helper()
	files, err := bootFileContents(v)
	if err != nil {
		// A value validation let through but the writer refused: the spec
		// should have said so at the attribute.
		t.Errorf("%s: validated, then refused by the writer: %v", what, err)
		return
	}
	for _, w := range v.Bootargs {
		if cmdline.Word(w) != nil {
			t.Errorf("%s: bootarg %q", what, w)
		}
	}
	lines := func(name string, n int) []string {
		s, ok := files[name]
		if !ok {
			return nil
		}
		ls := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		if len(ls) != n || !strings.HasSuffix(s, "\n") || strings.ContainsAny(s, "\r\x00") {
			t.Errorf("%s: %s has %d lines, want %d:\n%s", what, name, len(ls), n, s)
		}
		return ls
	}
	want := strings.Join(v.Bootargs, "\x00")
	sameArgs := func(name, line string) {
		if got := strings.Join(cmdline.Split(line), "\x00"); got != want {
			t.Errorf("%s: %s reads back as %q, want %q", what, name, cmdline.Split(line), v.Bootargs)
		}
	}
	if ls := lines("bootargs.txt", 1); ls != nil {
		sameArgs("bootargs.txt", ls[0])
	}
	if ls := lines("cmdline.txt", 1); ls != nil {
		sameArgs("cmdline.txt", ls[0])
	}
	if ls := lines("extlinux.conf", 6); len(ls) == 6 {
		for i, prefix := range []string{"# fsbench variant ", "default fsbench", "label fsbench", "    kernel /", "    fdtdir /", "    append "} {
			if !strings.HasPrefix(ls[i], prefix) {
				t.Errorf("%s: extlinux.conf line %d is %q", what, i+1, ls[i])
			}
		}
		sameArgs("extlinux.conf", strings.TrimPrefix(ls[5], "    append "))
	}
	if ls := lines("boot.cmd", 5); len(ls) == 5 {
		set := ls[1]
		inner, ok := strings.CutPrefix(set, `setenv bootargs "`)
		inner, ok2 := strings.CutSuffix(inner, `"`)
		if !ok || !ok2 || strings.ContainsAny(inner, "\"\\$`") {
			t.Errorf("%s: boot.cmd sets %q", what, set)
		}
		sameArgs("boot.cmd", inner)
		for _, l := range ls[2:] {
			if strings.Count(l, `"`) != 0 || strings.Contains(l, ";") {
				t.Errorf("%s: boot.cmd line %q", what, l)
			}
		}
	}
	mounted := 0
	for _, img := range v.Images {
		for _, p := range img.Partitions {
			if f := p.Filesystem; f != nil && (p.Root || f.Mountpoint != "") {
				mounted++
			}
		}
	}
	if ls := lines("fstab", 1+mounted); ls != nil {
		for _, l := range ls[1:] {
			if f := strings.Split(l, "\t"); len(f) != 6 || strings.ContainsAny(l, " \n") {
				t.Errorf("%s: fstab line %q is not six fields", what, l)
			}
		}
	}
}
