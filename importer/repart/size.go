package repart

import (
	"fmt"
	"strconv"
	"strings"
)

// systemd-repart's constants (repart.c, systemd 252).
const (
	grain         = 4096             // every new partition starts and ends on 4 KiB (context_load_partition_table's grainsz)
	defaultMin    = 10 << 20         // DEFAULT_MIN_SIZE: SizeMinBytes= when unset
	hardMin       = 4096             // HARD_MIN_SIZE
	veritySigSize = 4 * hardMin      // VERITY_SIG_SIZE
	gptMetadata   = 1044 << 10       // GPT_METADATA_SIZE, which --size=auto adds
	luks2Metadata = 16 << 20         // LUKS2_METADATA_SIZE, which 252 adds to an encrypted partition (later versions twice that)
	firstUsable   = 1 << 20          // libfdisk's first usable LBA on a new GPT, 2048
	maxWeight     = 1000 * 1000      // config_parse_weight's bound
	smallDisk     = 4 << 20          // libfdisk aligns a disk this small to its sectors, not 1 MiB
	unset         = int64(-1)        // an option not given
	noMax         = int64(1<<63 - 1) // a partition without a maximum
)

// fsMinimal is minimal_size_by_fs_name of systemd 252 (resize-fs.h): a
// new partition with Format= is at least this large. Other filesystems
// take one grain.
var fsMinimal = map[string]int64{"ext4": 1 << 20, "xfs": 14 << 20, "btrfs": 256 << 20}

// iec are parse_size's suffixes with base 1024 (parse-util.c).
var iec = map[byte]int64{'E': 1 << 60, 'P': 1 << 50, 'T': 1 << 40, 'G': 1 << 30, 'M': 1 << 20, 'K': 1 << 10, 'B': 1}

// parseSize reads a size as parse_size(rvalue, 1024) does: one or more
// numbers, each with an optional fraction and suffix (K, M, G, T, P, E,
// B; base 1024), added up: "1G", "1.5G", "1G 512M".
func parseSize(v string) (int64, error) {
	s := strings.TrimSpace(v)
	if s == "" {
		return 0, fmt.Errorf("an empty size")
	}
	var total int64
	for s != "" {
		i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
		if i < 0 {
			i = len(s)
		}
		if i == 0 {
			return 0, fmt.Errorf("%q is not a size", v)
		}
		n, _ := strconv.ParseInt(s[:i], 10, 64)
		s = s[i:]
		frac, digits := int64(0), int64(1)
		if strings.HasPrefix(s, ".") {
			j := 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' && digits < 1e15 {
				frac, digits = frac*10+int64(s[j]-'0'), digits*10
				j++
			}
			s = s[j:]
		}
		s = strings.TrimLeft(s, " \t")
		mult := int64(1)
		if s != "" {
			if m, ok := iec[s[0]]; ok {
				mult, s = m, s[1:]
			}
		}
		if n > (1<<62)/mult {
			return 0, fmt.Errorf("%q is too large", v)
		}
		total += n*mult + frac*mult/digits
		s = strings.TrimLeft(s, " \t")
	}
	return total, nil
}

func roundUp(v, p int64) int64   { return (v + p - 1) / p * p }
func roundDown(v, p int64) int64 { return v / p * p }

// minSize is partition_min_size for a partition that is new: the
// minimum of its filesystem (one grain when repart knows none), and the
// room LUKS2 keeps free when encrypted, raised to SizeMinBytes= (10 MiB
// when unset).
func (q *part) minSize() int64 {
	if q.verity == "signature" {
		return veritySigSize
	}
	d := int64(0)
	if q.encrypt {
		d += luks2Metadata
	}
	if q.format != "" {
		f := int64(grain)
		if m, ok := fsMinimal[q.format]; ok {
			f = roundUp(m, grain)
		}
		d += f
	}
	sz := max(int64(hardMin), d)
	lo := int64(defaultMin)
	if q.sizeMin != unset {
		lo = q.sizeMin
	}
	return max(roundUp(lo, grain), sz)
}

// maxSize is partition_max_size: SizeMaxBytes= rounded down to the
// grain, never below the minimum; noMax when unset.
func (q *part) maxSize() int64 {
	if q.verity == "signature" {
		return veritySigSize
	}
	if q.sizeMax == unset {
		return noMax
	}
	return max(q.minSize(), roundDown(q.sizeMax, grain))
}

// padMin is partition_min_padding.
func (q *part) padMin() int64 { return max(q.paddingMin, 0) }

// footprint is partition_min_size_with_padding: what the partition and
// the free space after it take at least.
func (q *part) footprint() int64 { return roundUp(q.minSize()+q.padMin(), grain) }

// grows tells whether repart may give the partition more than its
// minimum on a larger disk: context_grow_partitions gives a partition
// its share by Weight= between its minimum and maximum, and what is left
// to the first one in order below its maximum, whatever its weight.
func (q *part) grows() bool { return q.maxSize() > q.minSize() }

// padGrows tells whether the padding after the partition may take
// more than PaddingMinBytes=: only by PaddingWeight=, which is 0 unless
// set; left-over space goes to no padding on an empty disk.
func (q *part) padGrows() bool {
	pmax := noMax
	if q.paddingMax != unset {
		pmax = q.paddingMax
	}
	return q.paddingWeight > 0 && pmax > q.padMin()
}

// autoSize is what --size=auto makes the image (determine_auto_size):
// GPT_METADATA_SIZE and every partition's footprint. libfdisk's table
// then takes the first MiB and 20 KiB at the end, so that the partitions
// get exactly their footprints.
func autoSize(parts []*part) int64 {
	sum := roundUp(gptMetadata, grain)
	for _, q := range parts {
		sum += q.footprint()
	}
	return sum
}
