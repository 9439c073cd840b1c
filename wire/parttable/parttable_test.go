package parttable

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/diskfs/go-diskfs/partition/gpt"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/parttable/parttabletest"
)

// The tables are made by sgdisk and sfdisk, and what ReadTable finds is
// compared with what sfdisk --json reads back, so that the parser is
// checked against tools that share none of its code.

func readTableFile(t *testing.T, path string, sectorSize int) (*Table, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	return ReadTable(f, fi.Size(), sectorSize)
}

// sfdiskView is the part of `sfdisk --json` the tests compare.
type sfdiskView struct {
	PartitionTable struct {
		Label      string `json:"label"`
		ID         string `json:"id"`
		SectorSize int64  `json:"sectorsize"`
		Partitions []struct {
			Node  string `json:"node"`
			Start int64  `json:"start"`
			Size  int64  `json:"size"`
			UUID  string `json:"uuid"`
			Name  string `json:"name"`
		} `json:"partitions"`
	} `json:"partitiontable"`
}

// checkAgainstSfdisk compares numbers, offsets, sizes, GPT GUIDs and names.
func checkAgainstSfdisk(t *testing.T, img string, got *Table) {
	t.Helper()
	var v sfdiskView
	if err := json.Unmarshal([]byte(testenv.Run(t, "", "sfdisk", "--json", img)), &v); err != nil {
		t.Fatal(err)
	}
	pt := v.PartitionTable
	if len(pt.Partitions) != len(got.Partitions) {
		t.Fatalf("sfdisk sees %d partitions, ReadTable %d: %+v", len(pt.Partitions), len(got.Partitions), got.Partitions)
	}
	for i, sp := range pt.Partitions {
		p := got.Partitions[i]
		if want := img + strconv.Itoa(p.Number); sp.Node != want {
			t.Errorf("partition %d: sfdisk calls it %s, want %s", i, sp.Node, want)
		}
		if p.Start != sp.Start*pt.SectorSize || p.Size != sp.Size*pt.SectorSize {
			t.Errorf("partition %d: start/size %d/%d, sfdisk %d/%d", p.Number, p.Start, p.Size,
				sp.Start*pt.SectorSize, sp.Size*pt.SectorSize)
		}
		if got.Type == "gpt" && (p.UUID != strings.ToLower(sp.UUID) || p.Label != sp.Name) {
			t.Errorf("partition %d: %s %q, sfdisk %s %q", p.Number, p.UUID, p.Label, sp.UUID, sp.Name)
		}
	}
	if got.Type == "gpt" && got.DiskID != strings.ToLower(pt.ID) {
		t.Errorf("disk id %s, sfdisk %s", got.DiskID, pt.ID)
	}
}

const (
	diskGUID  = parttabletest.DiskGUID
	bootGUID  = parttabletest.BootGUID
	rootGUID  = parttabletest.RootGUID
	slot4GUID = parttabletest.Slot4GUID
)

func makeGPT(t *testing.T) string {
	t.Helper()
	testenv.Tools(t, "sgdisk", "sfdisk")
	img, err := parttabletest.GPT(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func TestReadTableGPT(t *testing.T) {
	img := makeGPT(t)
	tab, err := readTableFile(t, img, 512)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Type != "gpt" || tab.DiskID != diskGUID {
		t.Errorf("table %s id %s", tab.Type, tab.DiskID)
	}
	want := []Partition{
		{Number: 1, UUID: bootGUID, Label: "boot"},
		{Number: 2, UUID: strings.ToLower(rootGUID), Label: "root fs é"},
		{Number: 4, UUID: slot4GUID, Label: "data"},
	}
	if len(tab.Partitions) != len(want) {
		t.Fatalf("partitions %+v", tab.Partitions)
	}
	for i, w := range want {
		p := tab.Partitions[i]
		if p.Number != w.Number || p.UUID != w.UUID || p.Label != w.Label {
			t.Errorf("partition %d = %+v, want %+v", i, p, w)
		}
	}
	checkAgainstSfdisk(t, img, tab)
}

// TestReadTableGPTBackup damages the primary header: the kernel then reads
// the backup at the end of the disk, and so must ReadTable.
func TestReadTableGPTBackup(t *testing.T) {
	img := makeGPT(t)
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(make([]byte, 512), 512); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tab, err := readTableFile(t, img, 512)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Partitions) != 3 || tab.Partitions[1].UUID != strings.ToLower(rootGUID) {
		t.Errorf("from the backup: %+v", tab.Partitions)
	}
}

func TestReadTableGPTBadChecksum(t *testing.T) {
	img := makeGPT(t)
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	size, _ := f.Seek(0, 2)
	// Flip a byte of the first entry in both copies: the entry CRCs no
	// longer match, and the protective MBR must not be read as a table.
	for _, off := range []int64{2 * 512, size - 33*512} {
		if _, err := f.WriteAt([]byte{0x42}, off+20); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	_, err = readTableFile(t, img, 512)
	if err == nil || !strings.Contains(err.Error(), "checksum") || !strings.Contains(err.Error(), "protective") {
		t.Errorf("err = %v, want a protective-MBR checksum error", err)
	}
}

// TestReadTableGPT4K uses go-diskfs for a 4096-byte-sector GPT, which
// sgdisk and sfdisk cannot make in a file.
func TestReadTableGPT4K(t *testing.T) {
	img := testenv.SparseFile(t, 64<<20)
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab := &gpt.Table{LogicalSectorSize: 4096, PhysicalSectorSize: 4096, GUID: diskGUID, ProtectiveMBR: true,
		Partitions: []*gpt.Partition{
			{Index: 1, Start: 256, End: 511, Type: gpt.LinuxFilesystem, Name: "root", GUID: rootGUID},
		}}
	if err := tab.Write(f, 64<<20); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTable(f, 64<<20, 512); !errors.Is(err, ErrNoTable) && err == nil {
		t.Errorf("read with 512-byte sectors: %v", err)
	}
	got, err := ReadTable(f, 64<<20, 4096)
	if err != nil {
		t.Fatal(err)
	}
	p := got.Partitions
	if len(p) != 1 || p[0].UUID != strings.ToLower(rootGUID) || p[0].Start != 256*4096 || p[0].Size != 256*4096 {
		t.Errorf("partitions %+v", p)
	}
}

func TestReadTableMBR(t *testing.T) {
	testenv.Tool(t, "sfdisk")
	img := testenv.SparseFile(t, 64<<20)
	// Primary 1, extended 2 holding logical 5 and 6, primary 3 after it.
	testenv.Run(t, "label: dos\nlabel-id: 0x0a1b2c3d\n"+
		img+"1 : start=2048, size=16384, type=83\n"+
		img+"2 : start=18432, size=65536, type=5\n"+
		img+"3 : start=86016, size=16384, type=83\n"+
		img+"5 : start=20480, size=16384, type=c\n"+
		img+"6 : start=38912, size=16384, type=83\n", "sfdisk", "-q", img)
	tab, err := readTableFile(t, img, 512)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Type != "dos" || tab.DiskID != "0a1b2c3d" {
		t.Errorf("table %s id %s", tab.Type, tab.DiskID)
	}
	var nums []string
	for _, p := range tab.Partitions {
		nums = append(nums, p.UUID)
		if p.Label != "" {
			t.Errorf("MBR partition %d has a label %q", p.Number, p.Label)
		}
	}
	if got, want := strings.Join(nums, " "), "0a1b2c3d-01 0a1b2c3d-02 0a1b2c3d-03 0a1b2c3d-05 0a1b2c3d-06"; got != want {
		t.Errorf("PARTUUIDs %s, want %s", got, want)
	}
	checkAgainstSfdisk(t, img, tab)
}

func TestReadTableNone(t *testing.T) {
	img := testenv.SparseFile(t, 8<<20)
	if _, err := readTableFile(t, img, 512); !errors.Is(err, ErrNoTable) {
		t.Errorf("zeros: %v", err)
	}
	// A FAT boot sector has the 0x55AA signature too. The kernel reads
	// mkfs.vfat's as an MBR without partitions (its entries are zeros);
	// either way no partition may come out of it.
	if _, err := exec.LookPath("mkfs.vfat"); err == nil {
		testenv.Run(t, "", "mkfs.vfat", img)
		if tab, err := readTableFile(t, img, 512); err == nil && len(tab.Partitions) != 0 {
			t.Errorf("FAT boot sector read as %+v", tab)
		}
	}
	// Boot indicator 0x12 in slot 1: not an MBR.
	sector := make([]byte, 1024)
	sector[446], sector[510], sector[511] = 0x12, 0x55, 0xaa
	if _, err := ReadTable(bytes.NewReader(sector), 1024, 512); !errors.Is(err, ErrNoTable) {
		t.Errorf("bad boot indicator: %v", err)
	}
	if _, err := ReadTable(bytes.NewReader(nil), 0, 1000); err == nil {
		t.Error("sector size 1000 accepted")
	}
}
