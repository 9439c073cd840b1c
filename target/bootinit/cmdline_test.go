package bootinit

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseCmdline(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Cmdline
	}{
		{"", Cmdline{ReadOnly: true, Init: DefaultInit, Wait: NoWaitLimit}},
		{
			"console=ttyS0 root=PARTUUID=0B6A9F8E-1C2D-4E3F-8A9B-0C1D2E3F4A5B rootfstype=ext4 rw rootwait panic=-1",
			Cmdline{Root: Root{RootPARTUUID, "0b6a9f8e-1c2d-4e3f-8a9b-0c1d2e3f4a5b"}, FSTypes: []string{"ext4"},
				Init: DefaultInit, RootWait: true, Wait: RootWaitLimit},
		},
		{
			"root=/dev/vda2 rootfstype=xfs,ext4, rootflags=noatime,data=ordered ro rootdelay=2 init=/bin/sh",
			Cmdline{Root: Root{RootPath, "/dev/vda2"}, FSTypes: []string{"xfs", "ext4"}, Flags: "noatime,data=ordered",
				ReadOnly: true, Init: "/bin/sh", Wait: NoWaitLimit, Delay: 2 * time.Second},
		},
		{
			// Quotes group blanks and are removed; "--" ends the kernel's part.
			`root="PARTLABEL=root fs" rw rootwait=7 -- ro init=/x`,
			Cmdline{Root: Root{RootPARTLABEL, "root fs"}, Init: DefaultInit, RootWait: true, Wait: 7 * time.Second},
		},
		{
			// The last of ro/rw wins; root= may be repeated.
			"rw ro rw root=/dev/sda root=UUID=C0FFEE00-1234-4ABC-9DEF-00112233AABB\n",
			Cmdline{Root: Root{RootUUID, "c0ffee00-1234-4abc-9def-00112233aabb"}, Init: DefaultInit, Wait: NoWaitLimit},
		},
		{
			"root=PARTUUID=0a1b2c3d-05 root_wait rootwaitx",
			Cmdline{Root: Root{RootPARTUUID, "0a1b2c3d-05"}, ReadOnly: true, Init: DefaultInit, Wait: NoWaitLimit},
		},
	} {
		got, err := ParseCmdline(tc.line)
		if err != nil {
			t.Errorf("%q: %v", tc.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.line, got, tc.want)
		}
	}
}

func TestParseCmdlineErrors(t *testing.T) {
	for line, want := range map[string]string{
		"root=fe02":                             "use /dev/NAME, PARTUUID=, PARTLABEL= or UUID=",
		"root=254:2":                            "not understood",
		"root=/dev/disk/by-label/root":          "no udev",
		"root=PARTUUID=1234":                    "GPT GUID",
		"root=PARTUUID=0a1b2c3d-05/PARTNROFF=1": "PARTNROFF",
		"root=PARTLABEL=":                       "empty partition label",
		"root=UUID=1234-ABCD":                   "FAT volume ids are not supported",
		"rootdelay=soon":                        "rootdelay=\"soon\"",
		"rootwait=0":                            "from 1 to 3600",
		"init=sbin/init":                        "absolute path",
	} {
		_, err := ParseCmdline(line)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want one containing %q", line, err, want)
		}
	}
}

func TestSplitCmdline(t *testing.T) {
	got := splitCmdline(" a  b=\"c d\"\t\"e f\"=g h=\"\" ")
	want := []string{"a", "b=c d", "e f=g", "h="}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRootString(t *testing.T) {
	for _, s := range []string{"/dev/nvme0n1p2", "PARTUUID=0a1b2c3d-02", "PARTLABEL=root", "UUID=c0ffee00-1234-4abc-9def-00112233aabb"} {
		r, err := ParseRoot(s)
		if err != nil || r.String() != s {
			t.Errorf("%s -> %v %v", s, r, err)
		}
	}
}
