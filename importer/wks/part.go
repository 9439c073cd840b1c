package wks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/importer"
)

// fstypes are wic's --fstype values and fsbench's filesystem for each;
// "" is none.
var fstypes = map[string]string{"ext2": "ext2", "ext3": "ext3", "ext4": "ext4", "btrfs": "btrfs",
	"squashfs": "squashfs", "vfat": "vfat", "msdos": "vfat", "erofs": "erofs", "swap": "", "none": ""}

// part imports one part line.
func (c *conv) part(cmd command, n int) error {
	opts, pos, err := options(cmd, flags)
	if err != nil {
		return err
	}
	mount := ""
	if len(pos) > 0 {
		mount = pos[0]
	}
	fstype := "vfat" // wic's default
	if v, ok := opts["fstype"]; ok {
		fstype = v
	}
	if _, ok := fstypes[fstype]; !ok {
		c.s.Errorf(cmd.at, "--fstype", "wic knows no filesystem %q", fstype)
		return nil
	}
	if d := opts["ondisk"] + opts["ondrive"]; d != "" {
		if c.disk == "" {
			c.disk = d
		} else if d != c.disk {
			c.s.Errorf(cmd.at, "--ondisk", "the partition is on disk %s, the first on %s: import one disk's lines at a time", d, c.disk)
			return nil
		}
	}
	if opts["no-table"] == "true" {
		c.noTable(cmd, opts)
		return nil
	}
	c.real++
	if c.table == "mbr" && c.real > 4 {
		c.s.Errorf(cmd.at, "part", "wic makes a fifth partition of an MBR logical, its EBR two sectors before it; fsbench places EBRs one alignment unit before: use --ptable gpt, or fewer partitions")
		return nil
	}
	p := &importer.Partition{At: cmd.at, What: "part " + strings.Join(cmd.words[1:], " "), Name: c.partName(mount, opts["label"], n), Offset: -1}
	c.place(cmd, opts, p)
	c.typeOf(cmd, opts, fstype, p)
	c.size(cmd, opts, fstype, mount, p)
	c.flags(cmd, opts, fstype, p)
	c.img.Partitions = append(c.img.Partitions, p)
	return nil
}

// partName names the partition after its mountpoint, its label or its
// number.
func (c *conv) partName(mount, label string, n int) string {
	name := strings.Trim(mount, "/")
	switch {
	case mount == "/":
		name = "root"
	case name == "" && label != "":
		name = label
	case name == "":
		name = fmt.Sprintf("part%d", n)
	}
	b := []byte(strings.ReplaceAll(name, "/", "-"))
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '.' || ch == '-') {
			b[i] = '-'
		}
	}
	out := string(b)
	if out == "" || !(out[0] >= 'a' && out[0] <= 'z' || out[0] >= 'A' && out[0] <= 'Z' || out[0] >= '0' && out[0] <= '9') {
		out = "p" + out
	}
	for _, q := range c.img.Partitions {
		if q.Name == out {
			out = fmt.Sprintf("%s-%d", out, n)
		}
	}
	return out
}

// place reads --offset and --align (KiB).
func (c *conv) place(cmd command, opts map[string]string, p *importer.Partition) {
	if v, ok := opts["offset"]; ok {
		off, ok := offsetBytes(v)
		if !ok || off%512 != 0 {
			c.s.Errorf(cmd.at, "--offset", "%q is not an offset on a 512-byte sector", v)
		} else {
			p.Offset = off
		}
	}
	if v, ok := opts["align"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			c.s.Errorf(cmd.at, "--align", "%q is not a number of KiB", v)
			return
		}
		if n*1024%512 == 0 {
			p.Align = n * 1024
		}
	}
}

// typeOf sets the type wic (parted, then sfdisk --part-type) writes:
// --part-type on GPT, --system-id on MBR, else by filesystem as parted's
// mkpart writes it.
func (c *conv) typeOf(cmd command, opts map[string]string, fstype string, p *importer.Partition) {
	mbrID := map[string]string{"vfat": "0x0c", "msdos": "0x06", "swap": "0x82"}[fstype]
	if mbrID == "" {
		mbrID = "0x83"
	}
	if v, ok := opts["system-id"]; ok {
		n, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(v), "0x"), 16, 8)
		if err != nil || n == 0 {
			c.s.Errorf(cmd.at, "--system-id", "%q is not an MBR id from 0x1 to 0xff", v)
		} else {
			mbrID = fmt.Sprintf("0x%02x", n)
		}
	}
	if c.table == "mbr" {
		p.Type = mbrID
		if _, ok := opts["part-type"]; ok {
			c.s.Errorf(cmd.at, "--part-type", "wic refuses a GPT type on an msdos table too; use --system-id")
		}
		return
	}
	p.Type = map[string]string{"vfat": "ebd0a0a2-b9e5-4433-87c0-68b6b72699c7", "msdos": "ebd0a0a2-b9e5-4433-87c0-68b6b72699c7",
		"swap": "0657fd6d-a4ab-43c4-84e5-0933c84b4f4f"}[fstype]
	if p.Type == "" {
		p.Type = "0fc63daf-8483-4772-8e79-3d69d8477de4"
	}
	if v, ok := opts["part-type"]; ok {
		if !importer.IsGUID(v) {
			c.s.Errorf(cmd.at, "--part-type", "%q is not a type GUID", v)
		} else {
			p.Type = strings.ToLower(v)
		}
	}
	if c.hybrid && opts["mbr"] == "true" {
		p.MBRType = mbrID
		c.img.HybridMBR = append(c.img.HybridMBR, p.Name)
	}
}
