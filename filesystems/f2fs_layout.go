package filesystems

// f2fsLayout repeats the size arithmetic of f2fs_prepare_super_block(),
// get_best_overprovision() and f2fs_write_check_point_pack() in f2fs-tools
// 1.15.0 (mkfs/f2fs_format.c, include/f2fs_fs.h) for one regular-file
// device, so that validation knows whether mkfs.f2fs will accept a volume
// before anything runs. Whether mkfs succeeds is not monotonic in the size:
// with -s 16, 456MiB works, 584MiB fails and 1064MiB works again, because
// the automatic overprovision ratio and the reserved segments jump with the
// main-area segment count. Debian builds f2fs-tools with
// HAVE_BLK_ZONE_REP_V2, so f2fs_get_usable_segments() counts the segments
// of the whole device, including the tail that segment_count drops to stay
// zone-aligned. f2fs_layout_test.go checks this model against the real tool.
type f2fsLayout struct {
	totalSegments    int64
	mainSegments     int64 // segment_count_main
	sections         int64 // section_count
	usableSegments   int64
	overprovision    float64 // percent
	reservedSegments int64
	overprovSegments int64
	failure          string // why mkfs.f2fs 1.15.0 would refuse, or ""
}

const (
	f2fsBlockSize   = 4096
	f2fsBlksPerSeg  = 512
	f2fsSegmentSize = f2fsBlockSize * f2fsBlksPerSeg // 2MiB
	f2fsSitPerBlock = 4096 / 74                      // sizeof(struct f2fs_sit_entry)
	f2fsNatPerBlock = 4096 / 9                       // sizeof(struct f2fs_nat_entry)
	f2fsMinSegments = 9                              // F2FS_MIN_SEGMENTS
	f2fsCursegs     = 6                              // NR_CURSEG_TYPE
	// CP_CHKSUM_OFFSET 4092 - CP_BITMAP_OFFSET 192 (- MIN_NAT_BITMAP_SIZE 64).
	f2fsMaxBitmapInCkpt    = 4092 - 192
	f2fsMaxSitBitmapInCkpt = 4092 - 192 - 64
	f2fsMaxSegment         = 16 * 1024 * 1024 / 2
)

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// newF2FSLayout models mkfs.f2fs -s segsPerSec -z secsPerZone [-o ovp] on a
// file of devSize bytes; ovp 0 lets mkfs choose.
func newF2FSLayout(devSize, segsPerSec, secsPerZone int64, ovp float64) f2fsLayout {
	var l f2fsLayout
	segsPerZone := segsPerSec * secsPerZone
	zoneBytes := f2fsSegmentSize * segsPerZone
	zoneAlignStart := ceilDiv(2*f2fsBlockSize, zoneBytes) * zoneBytes
	devBytes := devSize / 512 * 512
	if devBytes < zoneAlignStart {
		l.failure = "the device is smaller than one zone"
		return l
	}
	l.totalSegments = (devBytes - zoneAlignStart) / f2fsSegmentSize
	segCount := l.totalSegments / segsPerZone * segsPerZone

	sitSegs := 2 * ceilDiv(ceilDiv(segCount, f2fsSitPerBlock), f2fsBlksPerSeg)
	avail := (segCount - (2 + sitSegs)) * f2fsBlksPerSeg
	if avail < 0 {
		l.failure = "there is no room for the segment information table"
		return l
	}
	natSegs := ceilDiv(ceilDiv(avail, f2fsNatPerBlock), f2fsBlksPerSeg)
	maxSitSegs := ceilDiv(ceilDiv(f2fsMaxSegment, f2fsSitPerBlock), f2fsBlksPerSeg)
	sitBitmap := min((sitSegs/2)*f2fsBlksPerSeg/8, maxSitSegs*f2fsBlksPerSeg/8)
	natBitmap := int64(f2fsMaxBitmapInCkpt)
	if sitBitmap <= f2fsMaxSitBitmapInCkpt {
		natBitmap = f2fsMaxBitmapInCkpt - sitBitmap
	}
	natSegs = min(natSegs, natBitmap*8/f2fsBlksPerSeg) * 2
	avail = (segCount - (2 + sitSegs + natSegs)) * f2fsBlksPerSeg
	ssaSegs := ceilDiv(avail/f2fsBlksPerSeg+1, f2fsBlksPerSeg)
	metaSegs := 2 + sitSegs + natSegs + ssaSegs
	metaZones := ceilDiv(metaSegs, segsPerZone)
	l.sections = (segCount/segsPerZone - metaZones) * secsPerZone
	l.mainSegments = l.sections * segsPerSec
	if l.sections <= 0 {
		// mkfs.f2fs 1.15.0 divides by section_count here and dies of
		// SIGFPE (seen with a 16MiB file).
		l.failure = "no section is left for the main area"
		return l
	}
	l.usableSegments = l.totalSegments - metaZones*segsPerZone
	perSection := ceilDiv(l.usableSegments, l.sections)

	l.overprovision = ovp
	if ovp == 0 {
		l.overprovision = f2fsBestOverprovision(l.usableSegments, l.mainSegments, perSection)
	}
	if l.overprovision == 0 {
		l.failure = "no overprovision ratio leaves any space"
		return l
	}
	l.reservedSegments = int64(uint32((2*(100/l.overprovision+1) + f2fsCursegs) * float64(perSection)))
	switch {
	case l.totalSegments < f2fsMinSegments:
		l.failure = "fewer than 9 segments"
		return l
	case l.mainSegments-f2fsCursegs < l.reservedSegments:
		l.failure = "the main area is smaller than the segments reserved for garbage collection"
		return l
	}
	l.overprovSegments = int64(uint32(float64(l.usableSegments-l.reservedSegments)*l.overprovision/100)) + l.reservedSegments
	if l.usableSegments <= l.overprovSegments {
		l.failure = "overprovisioning takes every segment"
	}
	return l
}

// f2fsBestOverprovision is get_best_overprovision(): the ratio that leaves
// the most user space, tried in the same floating-point steps.
func f2fsBestOverprovision(usable, main, perSection int64) float64 {
	candidate, end, diff := 0.01, 10.0, 0.01
	if main < 256 {
		candidate, end, diff = 10, 95, 5
	}
	var best, bestSpace float64
	for ; candidate <= end; candidate += diff {
		reserved := (2*(100/candidate+1) + 6) * float64(perSection)
		ovp := (float64(usable) - reserved) * candidate / 100
		space := float64(usable) - reserved - ovp
		if bestSpace < space {
			bestSpace, best = space, candidate
		}
	}
	return best
}
