package buildsys

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fence is one fenced block of a page: its language and its lines.
type fence struct {
	lang  string
	lines []string
}

func fences(t *testing.T, page string) []fence {
	t.Helper()
	var out []fence
	var cur *fence
	for _, l := range strings.Split(readFile(t, page), "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &fence{lang: strings.TrimPrefix(trimmed, "```")}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	if cur != nil {
		t.Fatalf("%s: an unclosed fence", page)
	}
	return out
}

// fileHeader is the first line of a block that is a file of the walk:
// "# board/acme/board.fsb.hcl".
var fileHeader = regexp.MustCompile(`^# ([A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+|[A-Za-z0-9_-]+\.(fsb\.hcl|bb|bbappend|conf))$`)

// walk follows a page's commands in order, in a scratch directory: a block
// that starts with "# PATH" is written to PATH; every command of a sh block
// that runs fsbench (or cat, to paste its output) runs there, through sh,
// with the fsbench of this tree first on PATH; an untagged block after a
// command is its output, each line of which (but "...") must be in what
// the command printed. Commands that need the build system, a board or
// the network (make, bitbake, git, bmaptool, a /dev path, fsbench capture
// and run) are left to the offline checks, and counted. It returns the scratch directory and the
// output of each command run.
func walk(t *testing.T, page string) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	bin := t.TempDir()
	buildFsbench(t, bin)
	ran, skipped := 0, 0
	var last []byte
	outputs := map[string]string{}
	for _, f := range fences(t, page) {
		switch {
		case len(f.lines) > 0 && fileHeader.MatchString(f.lines[0]):
			path := filepath.Join(dir, fileHeader.FindStringSubmatch(f.lines[0])[1])
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(strings.Join(f.lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		case f.lang == "sh":
			last = nil
			for _, cmd := range commands(f.lines) {
				word := strings.Fields(cmd)[0]
				// A here-document fills the build system's configuration;
				// capture and run follow a board or a machine.
				fields := strings.Fields(cmd)
				if (word != "fsbench" && word != "cat") || strings.Contains(cmd, "/dev/") || strings.Contains(cmd, "<<") ||
					(word == "fsbench" && len(fields) > 1 && (fields[1] == "capture" || fields[1] == "run")) {
					skipped++
					continue
				}
				c := exec.Command("sh", "-c", cmd)
				c.Dir = dir
				c.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
				out, err := c.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %s: %v\n%s", page, cmd, err, out)
				}
				last = out
				outputs[cmd] = string(out)
				ran++
			}
		case f.lang == "" && last != nil:
			for _, l := range f.lines {
				if strings.TrimSpace(l) != "..." && !bytes.Contains(last, []byte(l)) {
					t.Errorf("%s: the page shows %q, which the command before it did not print:\n%s", page, l, last)
				}
			}
		}
		// Output is the block right after the command's.
		if f.lang != "sh" {
			last = nil
		}
	}
	if ran == 0 {
		t.Fatalf("%s: no command ran", page)
	}
	t.Logf("%s: %d commands run, %d left to the build system's own checks", page, ran, skipped)
	return dir, outputs
}

// heredoc is the delimiter of a here-document: cat <<'EOF'.
var heredoc = regexp.MustCompile(`<<-?'?([A-Za-z_]+)'?`)

// commands joins a sh block's continued lines and its here-documents, and
// drops comments.
func commands(lines []string) []string {
	var out []string
	cur, until := "", ""
	for _, raw := range lines {
		l := strings.TrimSpace(raw)
		switch {
		case until != "":
			cur += "\n" + raw
			if l == until {
				out, cur, until = append(out, cur), "", ""
			}
			continue
		case strings.HasSuffix(l, "\\"):
			cur += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		cur += l
		if m := heredoc.FindStringSubmatch(cur); m != nil {
			until = m[1]
			continue
		}
		if cur != "" && !strings.HasPrefix(cur, "#") {
			out = append(out, cur)
		}
		cur = ""
	}
	return out
}

// TestBuildrootDocWalkthrough follows docs/buildroot.md's board walk: the
// spec checked and planned before any build output exists, the defconfig
// lines asked for merged with the board's genimage lines and pasted, and
// the kernel fragment written.
func TestBuildrootDocWalkthrough(t *testing.T) {
	dir, _ := walk(t, "../docs/buildroot.md")
	text := readFile(t, dir+"/configs/acme_fsbench_defconfig")
	defconfig := ParseDefconfig(text)
	seen := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if k := defconfigSymbol(l); k != "" {
			if seen[k] {
				t.Errorf("the merged defconfig sets %s twice", k)
			}
			seen[k] = true
		}
	}
	for k, want := range map[string]string{
		"BR2_ROOTFS_POST_IMAGE_SCRIPT":      "support/scripts/genimage.sh $(BR2_EXTERNAL_FSBENCH_PATH)/board/fsbench/post-image.sh",
		"BR2_ROOTFS_POST_SCRIPT_ARGS":       "-c board/beagleboard/beaglebone/genimage.cfg",
		"BR2_LINUX_KERNEL_ZIMAGE":           "y",
		"BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS": "board/acme/board.fsb.hcl",
		"BR2_TARGET_ROOTFS_TAR":             "y",
		"BR2_PACKAGE_FSBENCH_RUNNER":        "y",
		"BR2_PACKAGE_HOST_F2FS_TOOLS":       "y",
	} {
		if defconfig[k] != want {
			t.Errorf("the pasted defconfig has %s=%q, want %q", k, defconfig[k], want)
		}
	}
	if frag := readFile(t, dir+"/board/acme/linux-fsbench.fragment"); !strings.Contains(frag, "CONFIG_F2FS_FS=y") {
		t.Errorf("the kernel fragment does not build f2fs in:\n%s", frag)
	}
}

// TestYoctoDocWalkthrough follows docs/yocto.md's board walk, and checks
// that the image recipe the page shows is what buildvars prints for the
// image recipe, line for line.
func TestYoctoDocWalkthrough(t *testing.T) {
	dir, outputs := walk(t, "../docs/yocto.md")
	var vars string
	for cmd, out := range outputs {
		if strings.HasPrefix(cmd, "fsbench buildvars -for yocto") {
			vars = out
		}
	}
	if vars == "" {
		t.Fatal("the page runs no fsbench buildvars -for yocto")
	}
	recipe := map[string]bool{}
	for _, l := range strings.Split(readFile(t, dir+"/meta-acme/recipes-core/images/acme-image.bb"), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "require ") {
			recipe[l] = true
		}
	}
	printed := map[string]bool{}
	inRecipe := false
	for _, l := range strings.Split(vars, "\n") {
		switch {
		case strings.HasPrefix(l, "# ["):
			inRecipe = strings.HasPrefix(l, "# [image recipe]")
		case l != "" && !strings.HasPrefix(l, "#"):
			if !inRecipe {
				t.Errorf("buildvars prints a setting outside the image recipe: %q", l)
			}
			printed[l] = true
		}
	}
	for l := range printed {
		if !recipe[l] {
			t.Errorf("the page's image recipe lacks %q, which buildvars prints", l)
		}
	}
	for l := range recipe {
		if !printed[l] {
			t.Errorf("the page's image recipe has %q, which buildvars does not print", l)
		}
	}
	if frag := readFile(t, dir+"/fsbench.cfg"); !strings.Contains(frag, "CONFIG_BTRFS_FS=y") {
		t.Errorf("the kernel fragment does not build btrfs in:\n%s", frag)
	}
}

// TestPlanningEveryExample runs what buildvars and kconfig run, for both
// build systems, on every example and on the specs of the README and of
// docs/first-spec.md, before any build output exists: a planning load,
// which lists what the build must provide instead of failing on it.
func TestPlanningEveryExample(t *testing.T) {
	specs, _ := filepath.Glob("../examples/*.fsb.hcl")
	for i, spec := range []string{readmeSpec(t), firstSpec(t)} {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("doc%d.fsb.hcl", i))
		if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
			t.Fatal(err)
		}
		specs = append(specs, path)
	}
	if len(specs) < 5 {
		t.Fatalf("only %d specs", len(specs))
	}
	for _, path := range specs {
		p := loadPlanFile(t, path)
		for _, system := range Systems {
			if _, err := BuildVars(system, p, VarsOptions{}); err != nil {
				t.Errorf("%s: buildvars -for %s: %v", path, system, err)
			}
		}
		if KernelConfig(p).String() == "" {
			t.Errorf("%s: no kernel configuration", path)
		}
	}
}
