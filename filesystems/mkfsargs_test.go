package filesystems

import (
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
)

// allowedArgs are mkfs_args a spec may pass, for every tool: accepted by
// CheckMkfsArgs, and accepted by the real tool (TestAllowedArgsBuild), so
// that the lists name options the tools have.
var allowedArgs = map[string][]string{
	"ext4":     {"-E", "nodiscard,num_backup_sb=1", "-T", "small", "-N", "4096", "-Fq", "-J", "size=8", "-g", "8192", "-o", "Linux"},
	"btrfs":    {"-K", "-f", "--nodiscard", "-R", "free-space-tree", "--byte-count=512m", "-q"},
	"xfs":      {"-K", "-l", "lazy-count=1", "-n", "ftype=1", "-i", "maxpct=10", "-f", "-q"},
	"f2fs":     {"-t", "0", "-q", "-w", "512", "-f"},
	"vfat":     {"-a", "-S", "512", "--codepage=437", "-M", "0xF8", "--mbr=n"},
	"nilfs2":   {"-K", "-q", "-f"},
	"squashfs": {"-no-xattrs", "-all-root", "-quiet", "-no-duplicates"},
	"erofs":    {"--all-root", "-x", "-1", "--quiet"},
}

func TestAllowedArgsPass(t *testing.T) {
	for _, name := range Names() {
		typ, _ := Lookup(name)
		args, ok := allowedArgs[name]
		if !ok && strings.HasPrefix(name, "ext") {
			args = []string{"-E", "nodiscard", "-q"}
		}
		if probs := typ.CheckMkfsArgs(args); len(probs) > 0 {
			t.Errorf("%s: %v refused: %+v", name, args, probs)
		}
	}
}

// The real tools take the allowed arguments and still make a filesystem
// that passes their checker.
func TestAllowedArgsBuild(t *testing.T) {
	for name, args := range allowedArgs {
		t.Run(name, func(t *testing.T) {
			typ, _ := Lookup(name)
			testenv.Tools(t, typ.Tools...)
			s := testSpec(name)
			s.ExtraArgs = args
			r, probs := Resolve(s)
			if len(probs) > 0 {
				t.Fatalf("Resolve: %+v", probs)
			}
			img, _ := buildImage(t, s, r, stage(t, false), testEpoch)
			if len(r.Check.Argv) > 0 {
				run(t, Command{Argv: r.Check.Argv}, map[string]string{"{image}": img}, "")
			}
		})
	}
}

// What the lists refuse: every way the escapes were written, per
// tool, reported at the argument that carries them.
func TestRefusedArgs(t *testing.T) {
	cases := []struct {
		typ  string
		args []string
		at   []int
	}{
		{"ext4", []string{"-d."}, []int{0}},
		{"ext4", []string{"-d", "."}, []int{0}},
		{"ext4", []string{"-lbb.txt"}, []int{0}},
		{"ext4", []string{"-z", "/tmp/undo"}, []int{0}},
		{"ext4", []string{"-E", "offset=1073741824"}, []int{1}},
		{"ext4", []string{"-Fd", "."}, []int{0}},
		{"ext4", []string{"-n"}, []int{0}},
		{"ext4", []string{"-t", "ext2"}, []int{0}},
		{"ext4", []string{"-J", "device=/dev/sda1"}, []int{1}},
		{"ext4", []string{"-E", "nodiscard", "4096"}, []int{2}},
		{"ext4", []string{"-L", "x"}, []int{0}},
		{"ext4", []string{"-g", "260"}, []int{1}},
		{"ext4", []string{"-g", "248"}, []int{1}},
		{"btrfs", []string{"--root", "."}, []int{0}},
		{"btrfs", []string{"--rootd=."}, []int{0}},
		{"btrfs", []string{"-r."}, []int{0}},
		{"btrfs", []string{"--shrink"}, []int{0}},
		{"btrfs", []string{"/dev/sdb"}, []int{0}},
		{"xfs", []string{"-pproto"}, []int{0}},
		{"xfs", []string{"-c", "options=/etc/x"}, []int{0}},
		{"xfs", []string{"-d", "file,name=/etc/passwd"}, []int{1}},
		{"xfs", []string{"-r", "rtdev=/dev/sda"}, []int{0}},
		{"xfs", []string{"-N"}, []int{0}},
		{"f2fs", []string{"-c", "/dev/sdb"}, []int{0}},
		{"f2fs", []string{"-T", "0"}, []int{0}},
		{"vfat", []string{"-m", "/etc/shadow"}, []int{0}},
		{"vfat", []string{"-C"}, []int{0}},
		{"vfat", []string{"--offset=100"}, []int{0}},
		{"squashfs", []string{"-pf", "pseudo"}, []int{0}},
		{"squashfs", []string{"-p", "x f 0644 0 0 cat /etc/shadow"}, []int{0}},
		{"squashfs", []string{"-sort", "list"}, []int{0}},
		{"squashfs", []string{"-ef", "list"}, []int{0}},
		{"erofs", []string{"--blobdev=/dev/sdb"}, []int{0}},
		{"erofs", []string{"--compress-hints=/etc/x"}, []int{0}},
		{"erofs", []string{"--tar=f"}, []int{0}},
		{"erofs", []string{"-T0"}, []int{0}},
		{"nilfs2", []string{"-n"}, []int{0}},
		{"ext4", []string{"-E{root}"}, []int{0}},
		{"ext4", []string{"-o", "{image}"}, []int{1}},
	}
	for _, c := range cases {
		typ, _ := Lookup(c.typ)
		probs := typ.CheckMkfsArgs(c.args)
		var at []int
		for _, p := range probs {
			at = append(at, p.Index)
			if p.Field != "mkfs_args" || p.Summary == "" || p.Detail == "" {
				t.Errorf("%s %q: problem %+v", c.typ, c.args, p)
			}
		}
		if len(at) != len(c.at) || (len(at) > 0 && at[0] != c.at[0]) {
			t.Errorf("%s %q: problems at %v, want at %v: %+v", c.typ, c.args, at, c.at, probs)
		}
	}
}
