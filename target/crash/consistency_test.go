package crash

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/wire/runplan"
)

func TestKernelNotesForOneDevice(t *testing.T) {
	recs := []linux.KmsgRecord{
		{Level: 6, Seq: 1, Msg: "EXT4-fs (vdb3): recovery complete"},
		{Level: 3, Seq: 2, Msg: "EXT4-fs error (device vdb30): something on another partition"},
		{Level: 4, Seq: 3, Msg: "BTRFS warning (device vdb3): csum failed"},
		{Level: 3, Seq: 4, Msg: "Buffer I/O error on dev vdb3, logical block 7"},
		{Level: 2, Seq: 5, Msg: "EXT4-fs (vdb3): Remounting filesystem read-only"},
		{Level: 6, Seq: 6, Msg: "EXT4-fs (vdb3): mounted filesystem with ordered data mode"},
	}
	n := NotesFor(recs, "vdb3", 0)
	if n.Recovery != 1 || n.Warnings != 1 || n.Errors != 2 || n.ReadOnly != 1 || len(n.Lines) != 4 {
		t.Fatalf("notes %+v", n)
	}
	if n := NotesFor(recs, "vdb3", 3); n.Recovery != 0 || n.Warnings != 0 || n.Errors != 2 {
		t.Fatalf("notes after seq 3: %+v", n)
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		in   Inspection
		want string
	}{
		{Inspection{Notes: &KernelNotes{}, Checked: true, CheckClean: true}, ConsClean},
		{Inspection{Notes: &KernelNotes{}}, ConsClean}, // no checker: mount and log only
		{Inspection{Notes: &KernelNotes{Recovery: 1}, Checked: true, CheckClean: true}, ConsAutoFix},
		{Inspection{Notes: &KernelNotes{Warnings: 1}, Checked: true, CheckClean: true}, ConsErrors},
		{Inspection{Notes: &KernelNotes{Recovery: 1}, Checked: true, CheckClean: false}, ConsFsck},
		{Inspection{Notes: &KernelNotes{}, MountErr: unix.EUCLEAN, Checked: true, Repaired: true}, ConsFsck},
		{Inspection{Notes: &KernelNotes{}, MountErr: unix.EUCLEAN, Checked: true}, ConsFatal},
		{Inspection{Notes: &KernelNotes{}, MountErr: errors.New("x")}, ConsFatal},
	} {
		in := c.in
		in.Classify()
		if in.Class != c.want {
			t.Errorf("%+v: %s, want %s", c.in, in.Class, c.want)
		}
	}
}

func TestTargetMkfs(t *testing.T) {
	p := &runplan.Partition{Device: "/dev/vda3", Mkfs: []string{"mkfs.nilfs2", "-q", "-f", "-P", "{epoch}", "-L", "crash", "{device}"}}
	argv, err := targetMkfs(p)
	if err != nil || argv[4] == "{epoch}" || argv[7] != "/dev/vda3" || len(argv) != 8 {
		t.Fatalf("%v %v", argv, err)
	}
	p.Mkfs = []string{"mke2fs", "-q", "-F", "-d", "{root}", "{device}"}
	if argv, err := targetMkfs(p); err != nil || strings.Join(argv, " ") != "mke2fs -q -F /dev/vda3" {
		t.Fatalf("%v %v", argv, err)
	}
	p.Mkfs = []string{"mkfs.xfs", "-p", "{protofile}", "{device}"}
	if _, err := targetMkfs(p); !errors.Is(err, ErrNoMkfs) {
		t.Fatalf("protofile: %v", err)
	}
}
