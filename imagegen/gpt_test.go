package imagegen

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/diskfs/go-diskfs/partition/gpt"
	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/plan"
)

// The tables written here are read back by tools that share no code with
// the writer: sgdisk (gdisk), sfdisk and fdisk (util-linux), go-diskfs,
// and the bytes are compared with what sgdisk, sfdisk and genimage write
// for the same layout.

const (
	linuxFSType   = "0fc63daf-8483-4772-8e79-3d69d8477de4"
	swapType      = "0657fd6d-a4ab-43c4-84e5-0933c84b4f4f"
	basicDataType = "ebd0a0a2-b9e5-4433-87c0-68b6b72699c7"
	espType       = "c12a7328-f81f-11d2-ba4b-00a0c93ec93b"
	testDiskGUID  = "6df28a2d-b499-5298-a551-bc498e1018d0"
)

// part is a partition of the given sectors from start.
func part(name string, number int, start, sectors, ss int64, typ, uuid string) plan.Partition {
	return plan.Partition{
		Name: name, Number: number, Label: name, Type: typ, UUID: uuid,
		StartSector: start, EndSector: start + sectors - 1, Sectors: sectors,
		Offset: start * ss, Size: sectors * ss,
	}
}

// testUUID is a distinct partition GUID for each n.
func testUUID(n int) string { return fmt.Sprintf("3ee8f4e8-4ece-500a-8698-%012x", 0xe3916032477a+n) }

// gptDisk is a GPT image of size bytes whose structures lie where g
// says, or, when g is nil, where tools put them by default.
func gptDisk(size, ss int64, g *plan.GPT, parts ...plan.Partition) plan.Image {
	return plan.Image{Name: "disk", File: "disk.img", Table: "gpt", Size: size, SectorSize: ss, DiskID: testDiskGUID, GPT: g, Partitions: parts}
}

// defaultGPT is the layout of tools' defaults, as the plan would say it.
func defaultGPT(size, ss int64) *plan.GPT {
	g := gptLayout(plan.Image{Size: size, SectorSize: ss})
	return &g
}

// gptHdr is a GPT header as read back.
type gptHdr struct {
	My, Alt, First, Last, Entries int64
	Count, EntrySize, ArrayCRC    uint32
	Disk                          [16]byte
	Array                         []byte
}

// readGPTHdr reads the header in sector lba, checking its signature,
// revision, size, both CRCs and the zeros after it in its sector, and
// the array it points to.
func readGPTHdr(t *testing.T, path string, lba, ss int64) gptHdr {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, ss)
	if _, err := f.ReadAt(b, lba*ss); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	if string(b[:8]) != "EFI PART" || le.Uint32(b[8:]) != 0x10000 || le.Uint32(b[12:]) != 92 || le.Uint32(b[20:]) != 0 {
		t.Fatalf("sector %d: no GPT header: % x", lba, b[:24])
	}
	crc := le.Uint32(b[16:])
	hdr := bytes.Clone(b[:92])
	le.PutUint32(hdr[16:], 0)
	if got := crc32.ChecksumIEEE(hdr); got != crc {
		t.Errorf("sector %d: header CRC %08x, computed %08x", lba, crc, got)
	}
	if !allZero(b[92:]) {
		t.Errorf("sector %d: the header's sector is not zero after its 92 bytes", lba)
	}
	h := gptHdr{
		My: int64(le.Uint64(b[24:])), Alt: int64(le.Uint64(b[32:])),
		First: int64(le.Uint64(b[40:])), Last: int64(le.Uint64(b[48:])),
		Entries: int64(le.Uint64(b[72:])), Count: le.Uint32(b[80:]), EntrySize: le.Uint32(b[84:]), ArrayCRC: le.Uint32(b[88:]),
	}
	copy(h.Disk[:], b[56:72])
	if h.Count != 128 || h.EntrySize != 128 {
		t.Errorf("sector %d: %d entries of %d bytes", lba, h.Count, h.EntrySize)
	}
	h.Array = make([]byte, 128*128)
	if _, err := f.ReadAt(h.Array, h.Entries*ss); err != nil {
		t.Fatal(err)
	}
	if got := crc32.ChecksumIEEE(h.Array); got != h.ArrayCRC {
		t.Errorf("sector %d: array CRC %08x, computed %08x over sector %d", lba, h.ArrayCRC, got, h.Entries)
	}
	return h
}

// mbrRec is one MBR entry as read back.
type mbrRec struct {
	Boot, Type  byte
	CHSStart    [3]byte
	CHSEnd      [3]byte
	Start, Size uint32
}

func (r mbrRec) String() string {
	return fmt.Sprintf("boot=%#02x type=%#02x start=%d size=%d chs=% x/% x", r.Boot, r.Type, r.Start, r.Size, r.CHSStart, r.CHSEnd)
}

// readMBR reads the four entries of the MBR in the sector at off,
// checking its boot signature.
func readMBR(t *testing.T, path string, off int64) [4]mbrRec {
	t.Helper()
	b := readAt(t, path, off, 512)
	if b[510] != 0x55 || b[511] != 0xaa {
		t.Fatalf("no boot signature at %d", off+510)
	}
	var recs [4]mbrRec
	for i := range recs {
		e := b[446+16*i:]
		recs[i] = mbrRec{Boot: e[0], Type: e[4], Start: binary.LittleEndian.Uint32(e[8:]), Size: binary.LittleEndian.Uint32(e[12:])}
		copy(recs[i].CHSStart[:], e[1:4])
		copy(recs[i].CHSEnd[:], e[5:8])
	}
	return recs
}

// wantRec is the entry mbrEntry makes, CHS included.
func wantRec(boot bool, typ byte, start, size int64) mbrRec {
	r := mbrRec{Type: typ, Start: uint32(start), Size: uint32(size)}
	if boot {
		r.Boot = 0x80
	}
	c, h, s := chs(start)
	r.CHSStart = [3]byte{h, s, c}
	c, h, s = chs(start + size - 1)
	r.CHSEnd = [3]byte{h, s, c}
	return r
}

func readAt(t *testing.T, path string, off, n int64) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, n)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	return b
}

// tableLines is the output of a tool run on the image at path, the path
// replaced by IMAGE and each run of spaces by one, so that columns
// aligned to the path's length can be compared.
func tableLines(t *testing.T, path, name string, args ...string) string {
	t.Helper()
	out := strings.ReplaceAll(run(t, name, args...), path, "IMAGE")
	return regexp.MustCompile(` +`).ReplaceAllString(out, " ")
}

// runAll runs a command that may fail, for tools that report problems
// in their output and exit status.
func runAll(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}

// sgdiskVerify: sgdisk -v finds no problem.
func sgdiskVerify(t *testing.T, path string) {
	t.Helper()
	if out, err := runAll("sgdisk", "-v", path); err != nil || !strings.Contains(out, "No problems found") {
		t.Errorf("sgdisk -v: %v\n%s", err, out)
	}
}

// sfdiskVerify: sfdisk --verify finds no error and warns of nothing.
func sfdiskVerify(t *testing.T, args ...string) {
	t.Helper()
	out, err := runAll("sfdisk", append([]string{"--verify"}, args...)...)
	if err != nil || !strings.Contains(out, "No errors detected") || strings.Contains(out, "corrupt") || strings.Contains(out, "not on the end") {
		t.Errorf("sfdisk --verify: %v\n%s", err, out)
	}
}

// checkDiskfs reads the table back with go-diskfs and compares its
// partitions with the plan's.
func checkDiskfs(t *testing.T, path string, img plan.Image) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := gpt.Read(f, int(img.SectorSize), int(img.SectorSize))
	if err != nil {
		t.Fatalf("go-diskfs: %v", err)
	}
	if tab.RecoveredFromBackup {
		t.Error("go-diskfs read the backup table")
	}
	if tab.GUID != strings.ToUpper(img.DiskID) {
		t.Errorf("go-diskfs: disk GUID %s, want %s", tab.GUID, img.DiskID)
	}
	got := map[int]*gpt.Partition{}
	for _, p := range tab.Partitions {
		got[p.Index] = p
	}
	if len(got) != len(img.Partitions) {
		t.Errorf("go-diskfs: %d partitions, want %d", len(got), len(img.Partitions))
	}
	for _, want := range img.Partitions {
		p := got[want.Number]
		if p == nil {
			t.Errorf("go-diskfs: no partition %d", want.Number)
			continue
		}
		var attrs uint64
		if want.Bootable {
			attrs = gptLegacyBootable
		}
		if p.Start != uint64(want.StartSector) || p.End != uint64(want.EndSector) || string(p.Type) != strings.ToUpper(want.Type) ||
			p.GUID != strings.ToUpper(want.UUID) || p.Name != want.Label || p.Attributes != attrs {
			t.Errorf("go-diskfs: partition %d is %d-%d %s %s %q %#x, want %d-%d %s %s %q %#x", want.Number,
				p.Start, p.End, p.Type, p.GUID, p.Name, p.Attributes,
				want.StartSector, want.EndSector, want.Type, want.UUID, want.Label, attrs)
		}
	}
}

// dumpLines is `sfdisk -d` (with extra arguments) with the image's path
// replaced by IMAGE.
func dumpLines(t *testing.T, path string, args ...string) string {
	t.Helper()
	out := run(t, "sfdisk", append([]string{"-d", path}, args...)...)
	return strings.ReplaceAll(out, path, "IMAGE")
}

// dumpField is the value of a header line of `sfdisk -d`.
func dumpField(dump, name string) string {
	m := regexp.MustCompile(`(?m)^` + name + `: (.*)$`).FindStringSubmatch(dump)
	if m == nil {
		return ""
	}
	return m[1]
}

// sanitizedDump is what genimage's tests compare (test/test-setup.sh,
// sanitized_fdisk_sfdisk): the disk identifier line of `fdisk -l`, then
// the partition lines of `sfdisk -d` without spaces, the device named
// prefix.
func sanitizedDump(t *testing.T, path, prefix string, fdiskArgs ...string) string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(run(t, "fdisk", append(append([]string{"-l"}, fdiskArgs...), path)...), "\n") {
		if strings.Contains(l, "identifier:") {
			lines = append(lines, l)
		}
	}
	for _, l := range strings.Split(run(t, "sfdisk", "-d", path), "\n") {
		if strings.HasPrefix(l, path) {
			l = prefix + strings.TrimPrefix(l, path)
			l = strings.ReplaceAll(strings.ReplaceAll(l, " ", ""), "Id=", "type=")
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// assembled completes img as a build does (builder.assemble: the raw
// regions, then the table) in a fresh sparse file and returns its path.
// raw holds the contents of the raw regions' files, by name.
func assembled(t *testing.T, img plan.Image, raw map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range raw {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log := logrus.New()
	log.Out = io.Discard
	b := &builder{opts: Options{SpecDir: dir}, log: log}
	path := filepath.Join(dir, img.File)
	out, err := newImageFile(path, img.Size, img.Fill)
	if err != nil {
		t.Fatal(err)
	}
	_, files, err := b.assemble(context.Background(), img, out)
	if err != nil {
		out.Abort()
		t.Fatal(err)
	}
	if err := atomicfile.CommitAll(files...); err != nil {
		t.Fatal(err)
	}
	return path
}

// pattern is n bytes of data with no zero byte, different for each seed.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i%251) + 1 + seed
		if b[i] == 0 {
			b[i] = 1
		}
	}
	return b
}

// TestGPTDefaultLayoutMatchesGoDiskfs: for the default layout the writer
// writes what go-diskfs's gpt.Table, which it replaced, wrote, except the
// CHS fields of the protective entry: go-diskfs leaves them zero, where
// UEFI 2.10 (table 5-4) wants 0x000200 and the last sector's address, as
// sgdisk writes them. The protective MBR is then compared with sgdisk's.
func TestGPTDefaultLayoutMatchesGoDiskfs(t *testing.T) {
	for _, size := range []int64{256 << 20, 16 << 30} {
		t.Run(fmt.Sprint(size>>20, "MiB"), func(t *testing.T) {
			const ss = 512
			parts := []plan.Partition{
				part("boot", 1, 2048, 65536, ss, espType, testUUID(1)),
				part("rootfs", 2, 67584, 204800, ss, linuxFSType, testUUID(2)),
				part("données", 3, 272384, 100000, ss, linuxFSType, testUUID(3)),
			}
			parts[0].Bootable = true
			var ours string
			for _, g := range []*plan.GPT{nil, defaultGPT(size, ss)} {
				img := gptDisk(size, ss, g, parts...)
				ours = tableOnly(t, img)
				theirs := filepath.Join(t.TempDir(), "diskfs.img")
				f, err := os.Create(theirs)
				if err != nil {
					t.Fatal(err)
				}
				if err := f.Truncate(size); err != nil {
					t.Fatal(err)
				}
				tab := &gpt.Table{LogicalSectorSize: ss, PhysicalSectorSize: ss, GUID: img.DiskID, ProtectiveMBR: true}
				for _, p := range parts {
					gp := &gpt.Partition{Index: p.Number, Start: uint64(p.StartSector), End: uint64(p.EndSector), Size: uint64(p.Size),
						Type: gpt.Type(strings.ToUpper(p.Type)), Name: p.Label, GUID: p.UUID}
					if p.Bootable {
						gp.Attributes = gptLegacyBootable
					}
					tab.Partitions = append(tab.Partitions, gp)
				}
				if err := tab.Write(f, size); err != nil {
					t.Fatal(err)
				}
				f.Close()
				// Everything either wrote: sector 0, the primary header and
				// array, the backup array and header.
				last := size/ss - 1
				for _, r := range [][2]int64{{0, 34}, {last - 32, last + 1}} {
					a, b := readAt(t, ours, r[0]*ss, (r[1]-r[0])*ss), readAt(t, theirs, r[0]*ss, (r[1]-r[0])*ss)
					if r[0] == 0 {
						// The protective entry's CHS fields, bytes 1-3 and 5-7.
						want := []byte{0x00, 0x02, 0x00}
						if !bytes.Equal(a[447:450], want) {
							t.Errorf("protective entry starts at CHS % x, want % x", a[447:450], want)
						}
						if !allZero(b[447:450]) || !allZero(b[451:454]) {
							t.Errorf("go-diskfs now writes CHS % x/% x", b[447:450], b[451:454])
						}
						copy(b[447:450], a[447:450])
						copy(b[451:454], a[451:454])
					}
					for i := range a {
						if a[i] != b[i] {
							t.Errorf("byte %d differs from go-diskfs's: %#02x, go-diskfs %#02x", r[0]*ss+int64(i), a[i], b[i])
							break
						}
					}
				}
			}
			// sgdisk's protective MBR for a disk of the same size.
			testenv.Tool(t, "sgdisk")
			blank := filepath.Join(t.TempDir(), "sgdisk.img")
			if err := os.WriteFile(blank, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(blank, size); err != nil {
				t.Fatal(err)
			}
			run(t, "sgdisk", "-o", blank)
			if a, b := readAt(t, ours, 446, 66), readAt(t, blank, 446, 66); !bytes.Equal(a, b) {
				t.Errorf("protective MBR\n% x\nsgdisk writes\n% x", a, b)
			}
		})
	}
}

// TestGPTEntriesMoved: the array moved to 1 MiB, past an Allwinner SPL
// at 8 KiB, which a raw region puts there and which reads back intact.
func TestGPTEntriesMoved(t *testing.T) {
	testenv.Tool(t, "sgdisk")
	testenv.Tool(t, "sfdisk")
	const ss, size = 512, 64 << 20
	last := int64(size/ss - 1)
	g := &plan.GPT{EntriesSector: 2048, EntriesSectors: 32, FirstUsable: 2080, LastUsable: last - 33, Backup: true}
	img := gptDisk(size, ss, g,
		part("boot", 1, 4096, 32768, ss, espType, testUUID(1)),
		part("rootfs", 2, 36864, 65536, ss, linuxFSType, testUUID(2)))
	img.Partitions[0].Bootable = true
	// The SPL, with a run of zeros that the sparse copy leaves a hole.
	spl := pattern(40<<10, 7)
	clear(spl[16<<10 : 24<<10])
	img.Raw = []plan.Raw{{Name: "spl", Offset: 8 << 10, Size: 1<<20 - 8<<10, File: "spl.bin"}}
	path := assembled(t, img, map[string][]byte{"spl.bin": spl})

	if got := readAt(t, path, 8<<10, int64(len(spl))); !bytes.Equal(got, spl) {
		t.Error("the SPL does not read back intact")
	}
	sgdiskVerify(t, path)
	sfdiskVerify(t, path)
	p := run(t, "sgdisk", "-p", path)
	for _, want := range []string{"Main partition table begins at sector 2048 and ends at sector 2079",
		fmt.Sprintf("First usable sector is 2080, last usable sector is %d", last-33)} {
		if !strings.Contains(p, want) {
			t.Errorf("sgdisk -p lacks %q:\n%s", want, p)
		}
	}
	dump := dumpLines(t, path)
	if f, l := dumpField(dump, "first-lba"), dumpField(dump, "last-lba"); f != "2080" || l != fmt.Sprint(last-33) {
		t.Errorf("sfdisk -d: first-lba %s last-lba %s, want 2080 %d:\n%s", f, l, last-33, dump)
	}
	for _, want := range []string{`IMAGE1 : start=        4096, size=       32768, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, uuid=` + strings.ToUpper(testUUID(1)) + `, name="boot", attrs="LegacyBIOSBootable"`,
		`IMAGE2 : start=       36864, size=       65536, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=` + strings.ToUpper(testUUID(2)) + `, name="rootfs"`} {
		if !strings.Contains(dump, want) {
			t.Errorf("sfdisk -d lacks %s:\n%s", want, dump)
		}
	}
	primary := readGPTHdr(t, path, 1, ss)
	backup := readGPTHdr(t, path, last, ss)
	if primary.My != 1 || primary.Alt != last || primary.Entries != 2048 || primary.First != 2080 || primary.Last != last-33 {
		t.Errorf("primary header %+v", primary)
	}
	if backup.My != last || backup.Alt != 1 || backup.Entries != last-32 || backup.First != 2080 || backup.Last != last-33 {
		t.Errorf("backup header %+v", backup)
	}
	if !bytes.Equal(primary.Array, backup.Array) || primary.Disk != backup.Disk {
		t.Error("the backup array or disk GUID differs from the primary")
	}
	// Nothing between the header and the SPL, nor between the SPL and
	// the array: the default place of the array, sectors 2-33, is empty.
	if b := readAt(t, path, 2*ss, 8<<10-2*ss); !allZero(b) {
		t.Error("sectors 2-15 are not zero")
	}
	checkDiskfs(t, path, img)
}

// TestGPTWithoutBackup: nothing at the end of the image; the primary
// header's AlternateLBA still names the last sector (see writeGPT).
func TestGPTWithoutBackup(t *testing.T) {
	testenv.Tool(t, "sgdisk")
	testenv.Tool(t, "sfdisk")
	const ss, size = 512, 64 << 20
	last := int64(size/ss - 1)
	g := &plan.GPT{EntriesSector: 2, EntriesSectors: 32, FirstUsable: 34, LastUsable: last - 33, Backup: false}
	img := gptDisk(size, ss, g, part("rootfs", 1, 2048, last-33-2048+1, ss, linuxFSType, testUUID(1)))
	path := tableOnly(t, img)
	if b := readAt(t, path, (last-32)*ss, 33*ss); !allZero(b) {
		t.Error("something is written in the last 33 sectors")
	}
	h := readGPTHdr(t, path, 1, ss)
	if h.My != 1 || h.Alt != last || h.Entries != 2 || h.First != 34 || h.Last != last-33 {
		t.Errorf("primary header %+v", h)
	}
	// sfdisk and fdisk use the primary, note the backup as corrupt, and
	// find no error.
	out, _ := runAll("sfdisk", "--verify", path)
	if !strings.Contains(out, "No errors detected") || !strings.Contains(out, "backup GPT table is corrupt, but the primary appears OK") {
		t.Errorf("sfdisk --verify:\n%s", out)
	}
	dump := dumpLines(t, path)
	if !strings.Contains(dump, "IMAGE1 : start=        2048, size=      128991,") || dumpField(dump, "last-lba") != fmt.Sprint(last-33) {
		t.Errorf("sfdisk -d:\n%s", dump)
	}
	if out := tableLines(t, path, "fdisk", "-l", path); !strings.Contains(out, "IMAGE1 2048 131038 128991 63M Linux filesystem\n") {
		t.Errorf("fdisk -l:\n%s", out)
	}
	// sgdisk finds the main header and table good, and the missing
	// backup is its only problem.
	out, _ = runAll("sgdisk", "-v", path)
	for _, want := range []string{"Main header: OK", "Main partition table: OK", "Backup header: ERROR", "Identified 1 problems!"} {
		if !strings.Contains(out, want) {
			t.Errorf("sgdisk -v lacks %q:\n%s", want, out)
		}
	}
	checkDiskfs(t, path, img)
}

// hybridImage is genimage's test/hdimage-hybrid.config: six 1 MiB
// partitions from 1 MiB, the first three mirrored as 0x83 in the MBR.
func hybridImage() plan.Image {
	const ss = 512
	size := int64(8 << 20)
	img := gptDisk(size, ss, defaultGPT(size, ss),
		part("part1", 1, 2048, 2048, ss, linuxFSType, "92762261-e854-45c1-b4c9-fc5e752034ab"),
		part("part2", 2, 4096, 2048, ss, linuxFSType, "41061242-1d5a-4657-892d-fcc1fdb11a6c"),
		part("part3", 3, 6144, 2048, ss, swapType, "954532ea-bd86-4992-a1ed-2cdb2c18581a"),
		part("part4", 4, 8192, 2048, ss, basicDataType, "6d04bf47-3ddf-4a75-919b-c7bf46f2ef92"),
		part("part5", 5, 10240, 2048, ss, linuxFSType, "92762261-e854-45c1-b4c9-fc5e752034ab"),
		part("part6", 6, 12288, 2048, ss, linuxFSType, "c9460c06-fbc0-48ae-b4f3-3e897d3ebe71"))
	img.DiskID = "afcfea87-e41a-40e0-85ae-295c60773c7a"
	img.GPT.Hybrid = []plan.HybridEntry{{Partition: "part1", Type: "0x83"}, {Partition: "part2", Type: "0x83"}, {Partition: "part3", Type: "0x83"}}
	return img
}

// genimageHybrid is genimage's test/hdimage-hybrid.fdisk (commit
// 29335925), what its test expects of the image of hdimage-hybrid.config.
const genimageHybrid = `Disk identifier: AFCFEA87-E41A-40E0-85AE-295C60773C7A
images/hybrid.hdimage1:start=2048,size=2048,type=0FC63DAF-8483-4772-8E79-3D69D8477DE4,uuid=92762261-E854-45C1-B4C9-FC5E752034AB,name="part1"
images/hybrid.hdimage2:start=4096,size=2048,type=0FC63DAF-8483-4772-8E79-3D69D8477DE4,uuid=41061242-1D5A-4657-892D-FCC1FDB11A6C,name="part2"
images/hybrid.hdimage3:start=6144,size=2048,type=0657FD6D-A4AB-43C4-84E5-0933C84B4F4F,uuid=954532EA-BD86-4992-A1ED-2CDB2C18581A,name="part3"
images/hybrid.hdimage4:start=8192,size=2048,type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7,uuid=6D04BF47-3DDF-4A75-919B-C7BF46F2EF92,name="part4"
images/hybrid.hdimage5:start=10240,size=2048,type=0FC63DAF-8483-4772-8E79-3D69D8477DE4,uuid=92762261-E854-45C1-B4C9-FC5E752034AB,name="part5"
images/hybrid.hdimage6:start=12288,size=2048,type=0FC63DAF-8483-4772-8E79-3D69D8477DE4,uuid=C9460C06-FBC0-48AE-B4F3-3E897D3EBE71,name="part6"
`

// TestGPTHybridMBRLikeGenimage: genimage's hybrid test, whose GPT view
// must read as its expected dump, and whose MBR must be, as genimage's
// test requires of its own, the MBR of the three partitions and an 0xEE
// entry over sectors 1-33, here as sfdisk writes that MBR.
func TestGPTHybridMBRLikeGenimage(t *testing.T) {
	testenv.Tool(t, "sfdisk")
	testenv.Tool(t, "fdisk")
	img := hybridImage()
	path := tableOnly(t, img)
	if got := sanitizedDump(t, path, "images/hybrid.hdimage"); got != genimageHybrid {
		t.Errorf("GPT view:\n%s\ngenimage expects:\n%s", got, genimageHybrid)
	}
	sfdiskVerify(t, path)
	recs := readMBR(t, path, 0)
	want := [4]mbrRec{wantRec(false, 0x83, 2048, 2048), wantRec(false, 0x83, 4096, 2048), wantRec(false, 0x83, 6144, 2048), wantRec(false, 0xee, 1, 33)}
	if recs != want {
		t.Errorf("MBR entries\n%v\nwant\n%v", recs, want)
	}
	ref := filepath.Join(t.TempDir(), "mbr.img")
	if err := os.WriteFile(ref, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(ref, img.Size); err != nil {
		t.Fatal(err)
	}
	sfdiskInput(t, "label: dos\nstart=2048, size=2048, type=83\nstart=4096, size=2048, type=83\nstart=6144, size=2048, type=83\nstart=1, size=33, type=ee\n", ref)
	if a, b := readAt(t, path, 446, 66), readAt(t, ref, 446, 66); !bytes.Equal(a, b) {
		t.Errorf("hybrid MBR\n% x\nsfdisk writes\n% x", a, b)
	}
	// fdisk reads the MBR itself when told to.
	out := tableLines(t, path, "fdisk", "-l", "-t", "dos", path)
	for _, want := range []string{"IMAGE1 2048 4095 2048 1M 83 Linux\n", "IMAGE2 4096 6143 2048 1M 83 Linux\n", "IMAGE3 6144 8191 2048 1M 83 Linux\n", "IMAGE4 1 33 33 16.5K ee GPT\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("fdisk -l -t dos lacks %q:\n%s", want, out)
		}
	}
	checkDiskfs(t, path, img)
}

// TestGPTHybridMBROneEntry: one bootable FAT partition mirrored, the 0xEE
// entry in slot 2 over the array moved to sector 2048, slots 3-4 empty.
func TestGPTHybridMBROneEntry(t *testing.T) {
	testenv.Tool(t, "sfdisk")
	testenv.Tool(t, "sgdisk")
	testenv.Tool(t, "fdisk")
	const ss, size = 512, 64 << 20
	last := int64(size/ss - 1)
	g := &plan.GPT{EntriesSector: 2048, EntriesSectors: 32, FirstUsable: 2080, LastUsable: last - 33, Backup: true,
		Hybrid: []plan.HybridEntry{{Partition: "boot", Type: "0x0c", Bootable: true}}}
	img := gptDisk(size, ss, g,
		part("rootfs", 1, 36864, 65536, ss, linuxFSType, testUUID(1)),
		part("boot", 2, 4096, 32768, ss, basicDataType, testUUID(2)))
	path := tableOnly(t, img)
	recs := readMBR(t, path, 0)
	want := [4]mbrRec{wantRec(true, 0x0c, 4096, 32768), wantRec(false, 0xee, 1, 2079)}
	if recs != want {
		t.Errorf("MBR entries\n%v\nwant\n%v", recs, want)
	}
	out := tableLines(t, path, "fdisk", "-l", "-t", "dos", path)
	for _, want := range []string{"IMAGE1 * 4096 36863 32768 16M c W95 FAT32 (LBA)\n", "IMAGE2 1 2079 2079 1M ee GPT\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("fdisk -l -t dos lacks %q:\n%s", want, out)
		}
	}
	sfdiskVerify(t, path)
	dump := dumpLines(t, path)
	if dumpField(dump, "label") != "gpt" || !strings.Contains(dump, "IMAGE2 : start=        4096, size=       32768,") {
		t.Errorf("sfdisk -d:\n%s", dump)
	}
	if out, err := runAll("sgdisk", "-v", path); err != nil || !strings.Contains(out, "No problems found") {
		t.Errorf("sgdisk -v: %v\n%s", err, out)
	}
	checkDiskfs(t, path, img)
}

// sfdiskInput runs sfdisk on path with the script on its input.
func sfdiskInput(t *testing.T, script, path string) {
	t.Helper()
	cmd := exec.Command("sfdisk", "-q", path)
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sfdisk: %v\n%s", err, out)
	}
}

// TestGPTNumbersNotInDiskOrder: partition 1 after partition 2 on the disk.
func TestGPTNumbersNotInDiskOrder(t *testing.T) {
	testenv.Tool(t, "sgdisk")
	testenv.Tool(t, "sfdisk")
	const ss, size = 512, 64 << 20
	img := gptDisk(size, ss, defaultGPT(size, ss),
		part("second", 2, 2048, 8192, ss, linuxFSType, testUUID(2)),
		part("first", 1, 10240, 8192, ss, linuxFSType, testUUID(1)),
		part("tenth", 10, 18432, 8192, ss, swapType, testUUID(10)))
	path := tableOnly(t, img)
	dump := dumpLines(t, path)
	for _, want := range []string{`IMAGE1 : start=       10240, size=        8192, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=` + strings.ToUpper(testUUID(1)) + `, name="first"`,
		`IMAGE2 : start=        2048, size=        8192, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=` + strings.ToUpper(testUUID(2)) + `, name="second"`,
		`IMAGE10 : start=       18432, size=        8192, type=0657FD6D-A4AB-43C4-84E5-0933C84B4F4F, uuid=` + strings.ToUpper(testUUID(10)) + `, name="tenth"`} {
		if !strings.Contains(dump, want) {
			t.Errorf("sfdisk -d lacks %s:\n%s", want, dump)
		}
	}
	h := readGPTHdr(t, path, 1, ss)
	for i := range 128 {
		used := i == 0 || i == 1 || i == 9
		if e := h.Array[128*i : 128*(i+1)]; allZero(e) == used {
			t.Errorf("entry %d: used %v, want %v", i+1, !used, used)
		}
	}
	sgdiskVerify(t, path)
	sfdiskVerify(t, path)
	checkDiskfs(t, path, img)
}

// TestMBRNumbersNotInDiskOrder: primary partition 1 after partition 2 on
// the disk, entry 3 left empty.
func TestMBRNumbersNotInDiskOrder(t *testing.T) {
	testenv.Tool(t, "sfdisk")
	const ss, size = 512, 64 << 20
	img := plan.Image{Name: "sd", File: "sd.img", Table: "mbr", Size: size, SectorSize: ss, DiskID: "0x0a1b2c3d", Partitions: []plan.Partition{
		part("second", 2, 2048, 8192, ss, "0x0c", ""),
		part("first", 1, 10240, 8192, ss, "0x83", ""),
		part("fourth", 4, 18432, 8192, ss, "0x82", ""),
	}}
	img.Partitions[0].Bootable = true
	path := tableOnly(t, img)
	recs := readMBR(t, path, 0)
	want := [4]mbrRec{wantRec(false, 0x83, 10240, 8192), wantRec(true, 0x0c, 2048, 8192), {}, wantRec(false, 0x82, 18432, 8192)}
	if recs != want {
		t.Errorf("MBR entries\n%v\nwant\n%v", recs, want)
	}
	dump := dumpLines(t, path)
	for _, want := range []string{"label-id: 0x0a1b2c3d", "IMAGE1 : start=       10240, size=        8192, type=83", "IMAGE2 : start=        2048, size=        8192, type=c, bootable", "IMAGE4 : start=       18432, size=        8192, type=82"} {
		if !strings.Contains(dump, want) {
			t.Errorf("sfdisk -d lacks %q:\n%s", want, dump)
		}
	}
	if strings.Contains(dump, "IMAGE3") {
		t.Errorf("sfdisk -d finds a partition 3:\n%s", dump)
	}
	sfdiskVerify(t, path)
}

// genimageForcedPrimary is genimage's test/hdimage-forced-primary.fdisk
// (commit 29335925).
const genimageForcedPrimary = `Disk identifier: 0x12345678
images/test.hdimage1:start=2048,size=2048,type=c,bootable
images/test.hdimage2:start=4096,size=20480,type=f
images/test.hdimage3:start=24576,size=2048,type=83
images/test.hdimage4:start=26624,size=2048,type=82
images/test.hdimage5:start=6144,size=2048,type=83
images/test.hdimage6:start=10240,size=2048,type=83
images/test.hdimage7:start=14336,size=2048,type=83
images/test.hdimage8:start=18432,size=2048,type=83
images/test.hdimage9:start=22528,size=2048,type=83
`

// TestMBRExtendedInSlot2: genimage's test/hdimage-forced-primary.config,
// the extended partition in entry 2, holding five logical partitions,
// and primary partitions 3 and 4 after it on the disk.
func TestMBRExtendedInSlot2(t *testing.T) {
	testenv.Tool(t, "sfdisk")
	testenv.Tool(t, "fdisk")
	const ss = 512
	img := plan.Image{Name: "test", File: "test.img", Table: "mbr", Size: 14 << 20, SectorSize: ss, Align: 1 << 20, DiskID: "0x12345678",
		Extended: &plan.Extended{StartSector: 4096, Sectors: 20480, Type: plan.ExtendedType, Slot: 2}}
	p1 := part("part1", 1, 2048, 2048, ss, "0xc", "")
	p1.Bootable = true
	img.Partitions = append(img.Partitions, p1)
	for i := range 5 {
		p := part(fmt.Sprintf("part%d-logical", 5+i), 5+i, 6144+int64(i)*4096, 2048, ss, "0x83", "")
		p.Logical, p.EBRSector = true, p.StartSector-2048
		img.Partitions = append(img.Partitions, p)
	}
	img.Partitions = append(img.Partitions, part("part3", 3, 24576, 2048, ss, "0x83", ""), part("part4", 4, 26624, 2048, ss, "0x82", ""))
	path := tableOnly(t, img)
	if got := sanitizedDump(t, path, "images/test.hdimage"); got != genimageForcedPrimary {
		t.Errorf("got:\n%s\ngenimage expects:\n%s", got, genimageForcedPrimary)
	}
	recs := readMBR(t, path, 0)
	want := [4]mbrRec{wantRec(true, 0x0c, 2048, 2048), wantRec(false, 0x0f, 4096, 20480), wantRec(false, 0x83, 24576, 2048), wantRec(false, 0x82, 26624, 2048)}
	if recs != want {
		t.Errorf("MBR entries\n%v\nwant\n%v", recs, want)
	}
	sfdiskVerify(t, path)
}

// TestGPT4KSectors: a GPT of 4096-byte sectors, its array 4 sectors
// long, read by fdisk told the sector size, by go-diskfs, and by sgdisk
// and sfdisk through a loop device of 4096-byte sectors when one can be
// made.
func TestGPT4KSectors(t *testing.T) {
	testenv.Tool(t, "fdisk")
	const ss, size = 4096, 64 << 20
	last := int64(size/ss - 1)
	img := gptDisk(size, ss, defaultGPT(size, ss),
		part("boot", 1, 256, 4096, ss, espType, testUUID(1)),
		part("rootfs", 2, 4352, 8192, ss, linuxFSType, testUUID(2)))
	img.Partitions[0].Bootable = true
	if g := img.GPT; g.EntriesSectors != 4 || g.FirstUsable != 6 || g.LastUsable != last-5 {
		t.Fatalf("default 4K layout %+v", g)
	}
	path := tableOnly(t, img)
	// The MBR is in the first 512 bytes of sector 0, whatever its size.
	if recs := readMBR(t, path, 0); recs[0].Type != 0xee || recs[0].Start != 1 || recs[0].Size != uint32(last) {
		t.Errorf("protective entry %v, want 1+%d", recs[0], last)
	}
	primary := readGPTHdr(t, path, 1, ss)
	backup := readGPTHdr(t, path, last, ss)
	if primary.Entries != 2 || primary.Alt != last || primary.First != 6 || backup.Entries != last-4 || backup.Alt != 1 || backup.My != last {
		t.Errorf("headers %+v %+v", primary, backup)
	}
	out := tableLines(t, path, "fdisk", "-b", "4096", "-l", path)
	for _, want := range []string{"Sector size (logical/physical): 4096 bytes / 4096 bytes", "IMAGE1 256 4351 4096 16M EFI System\n", "IMAGE2 4352 12543 8192 32M Linux filesystem\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("fdisk -b 4096 -l lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "corrupt") {
		t.Errorf("fdisk -b 4096 -l:\n%s", out)
	}
	cmd := exec.Command("fdisk", "-b", "4096", path)
	cmd.Stdin = strings.NewReader("v\nq\n")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "No errors detected") {
		t.Errorf("fdisk verify: %v\n%s", err, out)
	}
	checkDiskfs(t, path, img)

	t.Run("loop", func(t *testing.T) {
		testenv.Tool(t, "losetup")
		testenv.Tool(t, "sgdisk")
		if os.Geteuid() != 0 {
			testenv.Missing(t, "root to attach a loop device of 4096-byte sectors")
		}
		dev, err := exec.Command("losetup", "--find", "--show", "--read-only", "--sector-size", "4096", path).Output()
		if err != nil {
			testenv.Missing(t, "a loop device: "+err.Error())
		}
		loop := strings.TrimSpace(string(dev))
		defer exec.Command("losetup", "-d", loop).Run()
		sgdiskVerify(t, loop)
		sfdiskVerify(t, loop)
		if out := run(t, "sgdisk", "-p", loop); !strings.Contains(out, "Sector size (logical/physical): 4096/4096 bytes") || !strings.Contains(out, "Main partition table begins at sector 2 and ends at sector 5") {
			t.Errorf("sgdisk -p:\n%s", out)
		}
	})
}

// TestMBR4KSectors: an MBR with logical partitions on 4096-byte sectors,
// read by fdisk told the sector size.
func TestMBR4KSectors(t *testing.T) {
	testenv.Tool(t, "fdisk")
	const ss = 4096
	img := plan.Image{Name: "sd", File: "sd.img", Table: "mbr", Size: 64 << 20, SectorSize: ss, DiskID: "0x0a1b2c3d",
		Extended: &plan.Extended{StartSector: 2304, Sectors: 4352, Type: plan.ExtendedType, Slot: 2}}
	p5 := part("log", 5, 2560, 2048, ss, "0x83", "")
	p5.Logical, p5.EBRSector = true, 2304
	p6 := part("data", 6, 4864, 1792, ss, "0x83", "")
	p6.Logical, p6.EBRSector = true, 4608
	img.Partitions = []plan.Partition{part("boot", 1, 256, 2048, ss, "0x0c", ""), p5, p6}
	path := tableOnly(t, img)
	out := tableLines(t, path, "fdisk", "-b", "4096", "-l", path)
	for _, want := range []string{"Disk identifier: 0x0a1b2c3d", "IMAGE1 256 2303 2048 8M c W95 FAT32 (LBA)\n", "IMAGE2 2304 6655 4352 17M f W95 Ext'd (LBA)\n",
		"IMAGE5 2560 4607 2048 8M 83 Linux\n", "IMAGE6 4864 6655 1792 7M 83 Linux\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("fdisk -b 4096 -l lacks %q:\n%s", want, out)
		}
	}
	cmd := exec.Command("fdisk", "-b", "4096", path)
	cmd.Stdin = strings.NewReader("v\nq\n")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "No errors detected") {
		t.Errorf("fdisk verify: %v\n%s", err, out)
	}
}

// TestRawHoleKeepsBootCode: a raw region over sector 0 with a hole over
// bytes 440-511 keeps its bytes 0-439 and from 512, and the MBR there is
// the table's, whole.
func TestRawHoleKeepsBootCode(t *testing.T) {
	testenv.Tool(t, "sfdisk")
	for _, table := range []string{"mbr", "gpt"} {
		t.Run(table, func(t *testing.T) {
			const ss, size = 512, 16 << 20
			var img plan.Image
			if table == "gpt" {
				// The array after the boot code, which runs to 24 KiB.
				img = gptDisk(size, ss, &plan.GPT{EntriesSector: 48, EntriesSectors: 32, FirstUsable: 80, LastUsable: size/ss - 34, Backup: true},
					part("rootfs", 1, 2048, 8192, ss, linuxFSType, testUUID(1)))
			} else {
				img = plan.Image{Name: "sd", File: "sd.img", Table: "mbr", Size: size, SectorSize: ss, DiskID: "0x0a1b2c3d",
					Partitions: []plan.Partition{part("rootfs", 1, 2048, 8192, ss, "0x83", "")}}
			}
			boot := pattern(24<<10, 3)
			img.Raw = []plan.Raw{{Name: "boot", Offset: 0, Size: 1 << 20, File: "boot.bin",
				Holes: []plan.Hole{{Offset: 440, Size: 72}}}}
			if table == "gpt" {
				// The primary header too.
				img.Raw[0].Holes = append(img.Raw[0].Holes, plan.Hole{Offset: 512, Size: 512})
			}
			path := assembled(t, img, map[string][]byte{"boot.bin": boot})
			got := readAt(t, path, 0, int64(len(boot)))
			if !bytes.Equal(got[:440], boot[:440]) {
				t.Error("bytes 0-439 are not the boot code's")
			}
			from := 512
			if table == "gpt" {
				from = 1024
			}
			if !bytes.Equal(got[from:], boot[from:]) {
				t.Errorf("bytes from %d are not the boot code's", from)
			}
			recs := readMBR(t, path, 0)
			if table == "mbr" {
				if got[440] != 0x3d || got[443] != 0x0a || !allZero(got[444:446]) {
					t.Errorf("disk signature bytes % x", got[440:446])
				}
				if want := [4]mbrRec{wantRec(false, 0x83, 2048, 8192)}; recs != want {
					t.Errorf("MBR entries %v, want %v", recs, want)
				}
			} else {
				if !allZero(got[440:446]) {
					t.Errorf("bytes 440-445 % x, want zeros", got[440:446])
				}
				if recs[0].Type != 0xee || recs[0].Start != 1 || recs[0].Size != size/ss-1 {
					t.Errorf("protective entry %v", recs[0])
				}
				readGPTHdr(t, path, 1, ss)
				readGPTHdr(t, path, size/ss-1, ss)
				checkDiskfs(t, path, img)
			}
			sfdiskVerify(t, path)
		})
	}
}

// TestRawHoleRefusesLargeFile: a raw file larger than its region is
// refused, holes or not.
func TestRawHoleRefusesLargeFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(src, pattern(4097, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	dst, err := os.Create(filepath.Join(dir, "img"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	for _, holes := range [][]plan.Hole{nil, {{Offset: 440, Size: 72}}} {
		err := copyRawAt(dst, plan.Raw{Name: "big", Size: 4096, Holes: holes}, src, false)
		if err == nil || !strings.Contains(err.Error(), "more than the 4096 bytes") {
			t.Errorf("holes %v: %v", holes, err)
		}
	}
}

// TestRawHolesSparse: the pieces between holes are copied as the rest of
// a raw file is, leaving out zeros (a piece starting at 1 MiB, so that
// the zero MiB after it is one block of the copy); holes in any order, at
// the file's start and past its end.
func TestRawHolesSparse(t *testing.T) {
	dir := t.TempDir()
	data := pattern(3<<20, 1)
	clear(data[1<<20 : 2<<20])
	src := filepath.Join(dir, "raw.bin")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dst, err := os.Create(filepath.Join(dir, "img"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if err := dst.Truncate(8 << 20); err != nil {
		t.Fatal(err)
	}
	const off = 1 << 20
	holes := []plan.Hole{{Offset: 3<<20 - 100, Size: 1 << 20}, {Offset: 0, Size: 10}, {Offset: 1<<20 - 512, Size: 512}, {Offset: 4096, Size: 4096}}
	if err := copyRawAt(dst, plan.Raw{Name: "raw", Offset: off, Size: 5 << 20, Holes: holes}, src, false); err != nil {
		t.Fatal(err)
	}
	want := bytes.Clone(data)
	clear(want[:10])
	clear(want[4096:8192])
	clear(want[1<<20-512 : 1<<20])
	clear(want[3<<20-100:])
	got := make([]byte, len(data))
	if _, err := dst.ReadAt(got, off); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("the copy is not the file less its holes")
	}
	// The zero MiB of the file stays a hole of the image.
	if next, err := dst.Seek(off+1<<20, unix.SEEK_DATA); err != nil || next != off+2<<20 {
		t.Errorf("data after the zeros from %d, want %d (%v)", next, off+2<<20, err)
	}
}

// TestMBRExtendedSlotLeavesGaps: the extended partition in entry 4 with
// only primary partition 2 besides it: entries 1 and 3 stay empty.
func TestMBRExtendedSlotLeavesGaps(t *testing.T) {
	testenv.Tool(t, "sfdisk")
	const ss = 512
	img := plan.Image{Name: "sd", File: "sd.img", Table: "mbr", Size: 64 << 20, SectorSize: ss, DiskID: "0x0a1b2c3d",
		Extended: &plan.Extended{StartSector: 18432, Sectors: 20480, Type: plan.ExtendedType, Slot: 4}}
	p5 := part("log", 5, 20480, 8192, ss, "0x83", "")
	p5.Logical, p5.EBRSector = true, 18432
	p6 := part("data", 6, 30720, 8192, ss, "0x83", "")
	p6.Logical, p6.EBRSector = true, 28672
	img.Partitions = []plan.Partition{part("boot", 2, 2048, 16384, ss, "0x0c", ""), p5, p6}
	path := tableOnly(t, img)
	want := [4]mbrRec{{}, wantRec(false, 0x0c, 2048, 16384), {}, wantRec(false, 0x0f, 18432, 20480)}
	if recs := readMBR(t, path, 0); recs != want {
		t.Errorf("MBR entries\n%v\nwant\n%v", recs, want)
	}
	// The EBRs: the logical partition relative to its EBR, then the link
	// to the next EBR relative to the extended partition.
	if recs := readMBR(t, path, 18432*ss); recs != [4]mbrRec{entryRec(0x83, 2048, 8192, 20480), entryRec(0x0f, 10240, 10240, 28672)} {
		t.Errorf("first EBR %v", recs)
	}
	if recs := readMBR(t, path, 28672*ss); recs != [4]mbrRec{entryRec(0x83, 2048, 8192, 30720)} {
		t.Errorf("second EBR %v", recs)
	}
	dump := dumpLines(t, path)
	for _, want := range []string{"IMAGE2 : start=        2048, size=       16384, type=c\n", "IMAGE4 : start=       18432, size=       20480, type=f\n",
		"IMAGE5 : start=       20480, size=        8192, type=83\n", "IMAGE6 : start=       30720, size=        8192, type=83\n"} {
		if !strings.Contains(dump, want) {
			t.Errorf("sfdisk -d lacks %q:\n%s", want, dump)
		}
	}
	if strings.Contains(dump, "IMAGE1 ") || strings.Contains(dump, "IMAGE3 ") {
		t.Errorf("sfdisk -d finds partition 1 or 3:\n%s", dump)
	}
	sfdiskVerify(t, path)
}

// entryRec is an EBR entry: LBA fields relative, CHS absolute from abs.
func entryRec(typ byte, start, size, abs int64) mbrRec {
	r := wantRec(false, typ, abs, size)
	r.Start = uint32(start)
	return r
}

// TestTableRefuses: layouts the writer cannot write are errors, not
// tables.
func TestTableRefuses(t *testing.T) {
	const ss, size = 512, 64 << 20
	gptOf := func(edit func(*plan.Image)) plan.Image {
		img := gptDisk(size, ss, defaultGPT(size, ss),
			part("a", 1, 2048, 2048, ss, linuxFSType, testUUID(1)),
			part("b", 2, 4096, 2048, ss, linuxFSType, testUUID(2)))
		edit(&img)
		return img
	}
	mbrOf := func(edit func(*plan.Image)) plan.Image {
		img := plan.Image{Name: "sd", File: "sd.img", Table: "mbr", Size: size, SectorSize: ss, DiskID: "0x0a1b2c3d",
			Partitions: []plan.Partition{part("a", 1, 2048, 2048, ss, "0x83", ""), part("b", 2, 4096, 2048, ss, "0x83", "")}}
		edit(&img)
		return img
	}
	for name, c := range map[string]struct {
		img  plan.Image
		want string
	}{
		"same number": {gptOf(func(i *plan.Image) { i.Partitions[1].Number = 1 }), "same number 1"},
		"number 129":  {gptOf(func(i *plan.Image) { i.Partitions[1].Number = 129 }), "number 129 is not 1-128"},
		"long name":   {gptOf(func(i *plan.Image) { i.Partitions[0].Label = strings.Repeat("é", 37) }), "37 UTF-16 units"},
		"bad uuid":    {gptOf(func(i *plan.Image) { i.Partitions[0].UUID = "not-a-guid" }), "is not a GUID"},
		"4 hybrid": {gptOf(func(i *plan.Image) {
			h := plan.HybridEntry{Partition: "a", Type: "0x83"}
			i.GPT.Hybrid = []plan.HybridEntry{h, h, h, h}
		}), "holds 3 besides"},
		"hybrid unknown":  {gptOf(func(i *plan.Image) { i.GPT.Hybrid = []plan.HybridEntry{{Partition: "c", Type: "0x83"}} }), `no partition "c"`},
		"short array":     {gptOf(func(i *plan.Image) { i.GPT.EntriesSectors = 16 }), "take 32"},
		"array at 1":      {gptOf(func(i *plan.Image) { i.GPT.EntriesSector = 1 }), "does not fit"},
		"array on backup": {gptOf(func(i *plan.Image) { i.GPT.EntriesSector = size/ss - 40 }), "does not fit"},
		"sector size":     {gptOf(func(i *plan.Image) { i.SectorSize = 1024 }), "only 512 and 4096"},
		"slot taken": {mbrOf(func(i *plan.Image) {
			i.Extended = &plan.Extended{StartSector: 8192, Sectors: 8192, Type: plan.ExtendedType, Slot: 2}
		}), "partition b and the extended partition both in MBR entry 2"},
		"primary 5": {mbrOf(func(i *plan.Image) { i.Partitions[1].Number = 5 }), "MBR entry 5 is not 1-4"},
		"primary 0": {mbrOf(func(i *plan.Image) { i.Partitions[1].Number = 0 }), "MBR entry 0 is not 1-4"},
	} {
		t.Run(name, func(t *testing.T) {
			f, err := os.Create(filepath.Join(t.TempDir(), "img"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(size); err != nil {
				t.Fatal(err)
			}
			err = writeTable(f, c.img)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// TestTableDeterministic: the same plan gives the same bytes.
func TestTableDeterministic(t *testing.T) {
	hyb := hybridImage()
	spl := gptDisk(64<<20, 512, &plan.GPT{EntriesSector: 2048, EntriesSectors: 32, FirstUsable: 2080, LastUsable: 131038, Backup: false},
		part("rootfs", 1, 4096, 8192, 512, linuxFSType, testUUID(1)))
	for _, img := range []plan.Image{hyb, spl} {
		a, b := tableOnly(t, img), tableOnly(t, img)
		if x, y := readAt(t, a, 0, img.Size), readAt(t, b, 0, img.Size); !bytes.Equal(x, y) {
			t.Errorf("two tables of %+v differ", img.GPT)
		}
	}
}
