package bootinit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fsbench/fsbench/wire/parttable"
)

// blockDev is one entry of /sys/class/block.
type blockDev struct {
	name       string // kernel name, e.g. "vda2", "nvme0n1p2", "mmcblk0p2"
	disk       string // the whole disk's name; name itself for a disk
	partition  int    // 0 for a whole disk
	size       int64  // bytes
	sectorSize int    // the disk's logical block size
}

// finder resolves root= against the block devices in sysfs. sys and dev
// are "/sys" and "/dev" in the initramfs; tests point them at a fake tree.
type finder struct {
	sys, dev string
}

func (f finder) scan() ([]blockDev, error) {
	dir := filepath.Join(f.sys, "class", "block")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var devs []blockDev
	for _, e := range ents {
		d := blockDev{name: e.Name(), disk: e.Name()}
		p := filepath.Join(dir, d.name)
		sectors, err := readInt(filepath.Join(p, "size"))
		if err != nil || sectors == 0 {
			continue // gone again, or an empty loop/ram/sr device
		}
		d.size = sectors * 512 // sysfs counts 512-byte units whatever the device
		if n, err := readInt(filepath.Join(p, "partition")); err == nil {
			d.partition = int(n)
			target, err := os.Readlink(p)
			if err != nil {
				continue
			}
			// .../block/vda/vda2: the parent directory is the disk.
			d.disk = filepath.Base(filepath.Dir(target))
		}
		bs, err := readInt(filepath.Join(dir, d.disk, "queue", "logical_block_size"))
		if err != nil || bs < 512 {
			bs = 512
		}
		d.sectorSize = int(bs)
		devs = append(devs, d)
	}
	sort.Slice(devs, func(i, j int) bool { return devs[i].name < devs[j].name })
	return devs, nil
}

func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// lookup returns the /dev path of root among devs, or "" when it is not
// there (yet). seen describes every device looked at, for the message
// when the wait ends without a match.
func (f finder) lookup(root Root, devs []blockDev) (path string, seen []string) {
	for _, d := range devs {
		switch root.Kind {
		case RootPath:
			if "/dev/"+d.name == root.Value {
				return filepath.Join(f.dev, d.name), nil
			}
			seen = append(seen, "/dev/"+d.name)
		case RootPARTUUID, RootPARTLABEL:
			if d.partition != 0 {
				continue
			}
			t, err := f.table(d)
			if err != nil {
				seen = append(seen, fmt.Sprintf("%s: %v", d.name, err))
				continue
			}
			for _, p := range t.Partitions {
				if (root.Kind == RootPARTUUID && strings.EqualFold(p.UUID, root.Value)) ||
					(root.Kind == RootPARTLABEL && t.Type == "gpt" && p.Label == root.Value) {
					if name, ok := partitionName(devs, d.name, p.Number); ok {
						return filepath.Join(f.dev, name), nil
					}
				}
			}
			seen = append(seen, t.Describe(d.name))
		case RootUUID:
			typ, uuid, err := f.fsUUID(d)
			switch {
			case err != nil:
				seen = append(seen, fmt.Sprintf("%s: %v", d.name, err))
			case typ == "":
				seen = append(seen, d.name+": no known filesystem")
			case uuid == root.Value:
				return filepath.Join(f.dev, d.name), nil
			default:
				seen = append(seen, fmt.Sprintf("%s: %s UUID=%s", d.name, typ, uuid))
			}
		}
	}
	return "", seen
}

// partitionName finds the kernel's device for partition num of disk: its
// name is not always disk+num (nvme0n1p2, mmcblk0p2).
func partitionName(devs []blockDev, disk string, num int) (string, bool) {
	for _, d := range devs {
		if d.disk == disk && d.partition == num {
			return d.name, true
		}
	}
	return "", false
}

func (f finder) table(d blockDev) (*parttable.Table, error) {
	fd, err := os.Open(filepath.Join(f.dev, d.name))
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	t, err := parttable.ReadTable(fd, d.size, d.sectorSize)
	if errors.Is(err, parttable.ErrNoTable) {
		return nil, errors.New("no partition table")
	}
	return t, err
}

func (f finder) fsUUID(d blockDev) (string, string, error) {
	fd, err := os.Open(filepath.Join(f.dev, d.name))
	if err != nil {
		return "", "", err
	}
	defer fd.Close()
	return FilesystemUUID(fd)
}

// pollInterval is how often the block devices are looked at while
// waiting: short, because the wait is part of the measured boot time. A
// look is cheap (a sysfs directory, and a table read from the page cache
// per disk).
const pollInterval = 10 * time.Millisecond

// wait looks for root until it appears or limit has passed. say is told
// once what is being waited for, when the device is not there at once.
func (f finder) wait(root Root, limit time.Duration, say func(string)) (string, error) {
	deadline := time.Now().Add(limit)
	var seen []string
	told := false
	for {
		devs, err := f.scan()
		if err != nil {
			return "", fmt.Errorf("listing block devices: %w", err)
		}
		var path string
		if path, seen = f.lookup(root, devs); path != "" {
			return path, nil
		}
		if time.Now().After(deadline) {
			break
		}
		if !told {
			say(fmt.Sprintf("waiting up to %v for root device %s", limit, root))
			told = true
		}
		time.Sleep(pollInterval)
	}
	if len(seen) == 0 {
		seen = []string{"no block devices at all (is the disk driver's module listed?)"}
	}
	return "", fmt.Errorf("root device %s did not appear within %v; found: %s", root, limit, strings.Join(seen, " | "))
}
