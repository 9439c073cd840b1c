package storageinfo

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

// Info is what one block device's storage says about itself: a flat set
// of facts, grouped by where they come from. Report lists them for a
// result; Geometry picks the erase unit the device states.
type Info struct {
	Disk string // the whole device read: mmcblk0 for mmcblk0p3
	Node string // its device node

	Card           Card
	ExtCSDSource   Fact `fact:"ext_csd"` // how the EXT_CSD was read, or why not
	ExtCSD         ExtCSD
	CSD            CSDFacts
	SD             SDFacts
	Kernel         KernelFacts
	Queue          QueueFacts
	Capacity       Fact `fact:"capacity"`
	EraseGroupSize Fact `fact:"erase_group_size"` // the erase group in force
}

// Card is the card's identity, from the CID as the kernel decodes it. The
// serial number is never read.
type Card struct {
	Type         Fact `fact:"card_type"` // MMC, SD, SDIO, SDcombo
	Name         Fact `fact:"card_name"`
	Manufacturer Fact `fact:"manufacturer"`
	OEMID        Fact `fact:"oem_id"`
	Date         Fact `fact:"manufacturing_date"`
	FWRev        Fact `fact:"fw_rev"`
	HWRev        Fact `fact:"hw_rev"`
	Serial       Fact `fact:"serial"`
}

// CSDFacts is what the CSD says of capacity, speed and erasing.
type CSDFacts struct {
	Structure  Fact `fact:"csd_structure"`
	Capacity   Fact `fact:"csd_capacity"`
	TranSpeed  Fact `fact:"tran_speed"`
	EraseGroup Fact `fact:"csd_erase_unit"` // MMC: the erase group; SD: the erase sector
	EraseBlkEn Fact `fact:"sd_erase_blk_en"`
	WPGroup    Fact `fact:"csd_wp_group_size"`
}

// SDFacts is what an SD card's SCR and SD Status say.
type SDFacts struct {
	SpecVersion     Fact `fact:"sd_spec_version"`
	AUSize          Fact `fact:"ssr_au_size"`
	EraseSize       Fact `fact:"ssr_erase_size"`
	EraseTimeout    Fact `fact:"ssr_erase_timeout"`
	EraseOffset     Fact `fact:"ssr_erase_offset"`
	SpeedClass      Fact `fact:"ssr_speed_class"`
	UHSSpeedGrade   Fact `fact:"ssr_uhs_speed_grade"`
	UHSAUSize       Fact `fact:"ssr_uhs_au_size"`
	VideoSpeedClass Fact `fact:"ssr_video_speed_class"`
	VSCAUSize       Fact `fact:"ssr_vsc_au_size"`
	AppPerfClass    Fact `fact:"ssr_app_perf_class"`
	PerformanceMove Fact `fact:"ssr_performance_move"`
	DiscardSupport  Fact `fact:"ssr_discard_support"`
	FULESupport     Fact `fact:"ssr_fule_support"`
}

// KernelFacts is what the kernel derived from the registers and publishes
// in the card's sysfs directory.
type KernelFacts struct {
	EraseSize          Fact `fact:"sysfs_erase_size"`
	PreferredEraseSize Fact `fact:"preferred_erase_size"`
	EnhancedAreaOffset Fact `fact:"enhanced_area_offset"`
	EnhancedAreaSize   Fact `fact:"enhanced_area_size"`
	RelSectors         Fact `fact:"rel_sectors"`
	Size               Fact `fact:"sysfs_size"`
}

// QueueFacts is the block layer's view (/sys/block/<disk>/queue).
type QueueFacts struct {
	DiscardGranularity Fact `fact:"discard_granularity"`
	DiscardMaxBytes    Fact `fact:"discard_max_bytes"`
	OptimalIOSize      Fact `fact:"optimal_io_size"`
	MinimumIOSize      Fact `fact:"minimum_io_size"`
	PhysicalBlockSize  Fact `fact:"physical_block_size"`
	LogicalBlockSize   Fact `fact:"logical_block_size"`
	Rotational         Fact `fact:"rotational"`
}

// Read reads what the storage behind the block device disk (mmcblk0,
// mmcblk0p3, vda, nvme0n1) says about itself, from the sysfs tree at
// sysRoot (/sys on a board) and the device nodes in devRoot (/dev). It
// does not fail: what it cannot read it reports, fact by fact, with the
// reason.
func Read(sysRoot, devRoot, disk string) Info {
	in := Info{Disk: disk, Node: filepath.Join(devRoot, disk)}
	d, err := findDisk(sysRoot, disk)
	if err != nil {
		setAll(&in, err.Error())
		return in
	}
	in.Disk, in.Node = d.name, filepath.Join(devRoot, d.name)
	readQueue(&in.Queue, d)
	readKernel(&in.Kernel, d)
	kind, why := d.read("device/type")
	switch kind {
	case "MMC":
		readCard(&in.Card, d, kind)
		readMMC(&in, d, sysRoot)
	case "SD", "SDcombo":
		readCard(&in.Card, d, "SD")
		readSD(&in, d)
	default:
		reason := fmt.Sprintf("%s is not an MMC or SD card (%s)", in.Node, why)
		if why == "" {
			reason = fmt.Sprintf("%s is an %s card, which has no memory registers", in.Node, kind)
		}
		setAll(&in.Card, reason)
		setAll(&in.CSD, reason)
		setAll(&in.SD, reason)
		setAll(&in.ExtCSD, reason)
		in.ExtCSDSource = missing("%s", reason)
	}
	derive(&in)
	setAll(&in, "not read") // only facts no path above set: none, if the code is right
	return in
}

// setAll sets every fact v points to that is still unset (or every fact,
// for a whole group) to not available, for reason.
func setAll(v any, reason string) {
	walkFacts(reflect.ValueOf(v).Elem(), func(_ string, f *Fact) {
		if !f.Known() && f.Reason == "" {
			*f = missing("%s", reason)
		}
	})
}

var factType = reflect.TypeFor[Fact]()

// walkFacts calls fn for every Fact in the struct v, with its name.
func walkFacts(v reflect.Value, fn func(name string, f *Fact)) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		switch {
		case sf.Type == factType:
			fn(sf.Tag.Get("fact"), v.Field(i).Addr().Interface().(*Fact))
		case sf.Type.Kind() == reflect.Struct:
			walkFacts(v.Field(i), fn)
		}
	}
}

func readQueue(q *QueueFacts, d sysDisk) {
	q.DiscardGranularity = d.number("queue/discard_granularity", "bytes")
	q.DiscardMaxBytes = d.number("queue/discard_max_bytes", "bytes")
	q.MinimumIOSize = d.number("queue/minimum_io_size", "bytes")
	q.PhysicalBlockSize = d.number("queue/physical_block_size", "bytes")
	q.LogicalBlockSize = d.number("queue/logical_block_size", "bytes")
	q.Rotational = d.number("queue/rotational", "")
	// Zero is the block layer's "the driver reports no optimal size".
	if q.OptimalIOSize = d.number("queue/optimal_io_size", "bytes"); q.OptimalIOSize.Known() && q.OptimalIOSize.Num == 0 {
		q.OptimalIOSize = missing("sysfs queue/optimal_io_size is 0: the driver reports none")
	}
}

func readKernel(k *KernelFacts, d sysDisk) {
	k.EraseSize = d.number("device/erase_size", "bytes")
	k.PreferredEraseSize = d.number("device/preferred_erase_size", "bytes")
	k.EnhancedAreaOffset = d.number("device/enhanced_area_offset", "bytes")
	k.EnhancedAreaSize = d.number("device/enhanced_area_size", "KiB")
	k.RelSectors = d.number("device/rel_sectors", "sectors")
	k.Size = d.number("size", "sectors")
}

func readCard(c *Card, d sysDisk, kind string) {
	c.Type = text(kind, "sysfs device/type")
	c.Name = d.text("device/name")
	c.OEMID = d.text("device/oemid")
	c.Date = d.text("device/date")
	c.FWRev = d.text("device/fwrev")
	c.HWRev = d.text("device/hwrev")
	c.Serial = missing("withheld: the serial number identifies one card and results leave the board (the CID that holds it is read for the manufacturer ID only)")
	if v, why := d.read("device/manfid"); why == "" {
		if id, err := strconv.ParseUint(v, 0, 8); err == nil {
			c.Manufacturer = code(id, manufacturer(kind, int(id)), "sysfs device/manfid")
			return
		}
	}
	if cid, why := d.register("device/cid", 16); why == "" {
		id := field(cid, 127, 120)
		c.Manufacturer = code(id, manufacturer(kind, int(id)), "CID MID [127:120] (sysfs device/cid)")
	} else {
		c.Manufacturer = missing("no manfid, and %s", why)
	}
}

// readMMC reads an MMC or eMMC's CSD and EXT_CSD.
func readMMC(in *Info, d sysDisk, sysRoot string) {
	setAll(&in.SD, in.Node+" is an MMC device, not an SD card")
	if reg, why := d.register("device/csd", CSDSize); why != "" {
		setAll(&in.CSD, why)
	} else if c, err := DecodeMMCCSD(reg); err != nil {
		setAll(&in.CSD, "sysfs device/csd: "+err.Error())
	} else {
		mmcCSDFacts(&in.CSD, c)
	}
	cardDir, err := filepath.EvalSymlinks(d.path("device"))
	if err != nil {
		cardDir = d.path("device")
	}
	raw, from := readExtCSD(sysRoot, in.Node, cardDir)
	in.ExtCSDSource = from
	if raw == nil {
		setAll(&in.ExtCSD, "EXT_CSD not available: "+from.Reason)
		kernelHealth(&in.ExtCSD, d)
		return
	}
	if in.ExtCSD, err = DecodeExtCSD(raw); err != nil {
		setAll(&in.ExtCSD, err.Error())
	}
}

// kernelHealth takes the health fields from the kernel's sysfs copies
// when the EXT_CSD itself could not be read. The kernel reads them once,
// when it probes the card: they are as old as the boot.
func kernelHealth(e *ExtCSD, d sysDisk) {
	const snapshot = " (the kernel's copy, read when the card was probed)"
	if v, why := d.read("device/life_time"); why == "" {
		a, b, _ := strings.Cut(v, " ")
		e.LifeTimeEstA = sysfsHealth(a, LifeTimeText, "sysfs device/life_time, first value"+snapshot)
		e.LifeTimeEstB = sysfsHealth(b, LifeTimeText, "sysfs device/life_time, second value"+snapshot)
	}
	if v, why := d.read("device/pre_eol_info"); why == "" {
		e.PreEOLInfo = sysfsHealth(v, preEOLText, "sysfs device/pre_eol_info"+snapshot)
	}
}

func sysfsHealth(s string, words func(byte) string, source string) Fact {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 0, 8)
	if err != nil {
		return missing("%s is %q, not a number", source, s)
	}
	return healthCode(byte(v), words, source)
}

func mmcCSDFacts(f *CSDFacts, c MMCCSD) {
	const s = "CSD (sysfs device/csd)"
	f.Structure = code(uint64(c.Structure), fmt.Sprintf("%d (MMC; SPEC_VERS %d)", c.Structure, c.SpecVers), s+" CSD_STRUCTURE [127:126]")
	if v, ok := c.Capacity(); ok {
		f.Capacity = num(float64(v), "bytes", s+" C_SIZE, C_SIZE_MULT, READ_BL_LEN")
	} else {
		f.Capacity = missing("CSD C_SIZE is 0xFFF: the capacity is in EXT_CSD SEC_COUNT")
	}
	f.TranSpeed = tranFact(c.TranSpeedHz())
	f.EraseGroup = num(float64(c.EraseGroup()), "bytes", s+" ERASE_GRP_SIZE [46:42], ERASE_GRP_MULT [41:37], WRITE_BL_LEN")
	f.EraseBlkEn = missing("an MMC CSD has no ERASE_BLK_EN")
	if c.WPGrpEn {
		f.WPGroup = num(float64(int64(c.WPGrpSize+1)*c.EraseGroup()), "bytes", s+" WP_GRP_SIZE [36:32]")
	} else {
		f.WPGroup = missing("CSD WP_GRP_ENABLE is 0: no write-protect groups")
	}
}

func tranFact(hz int64, err error) Fact {
	if err != nil {
		return missing("%v", err)
	}
	return num(float64(hz), "Hz", "CSD TRAN_SPEED [103:96] (sysfs device/csd)")
}

// readSD reads an SD card's CSD, SCR and SD Status.
func readSD(in *Info, d sysDisk) {
	reason := in.Node + " is an SD card: EXT_CSD is an eMMC register"
	setAll(&in.ExtCSD, reason)
	in.ExtCSDSource = missing("%s", reason)
	if reg, why := d.register("device/csd", CSDSize); why != "" {
		setAll(&in.CSD, why)
	} else if c, err := DecodeSDCSD(reg); err != nil {
		setAll(&in.CSD, "sysfs device/csd: "+err.Error())
	} else {
		sdCSDFacts(&in.CSD, c)
	}
	spec3 := false
	if reg, why := d.register("device/scr", 8); why != "" {
		in.SD.SpecVersion = missing("%s", why)
	} else if s, err := DecodeSCR(reg); err == nil {
		spec3 = s.SDSpec3
		in.SD.SpecVersion = text(s.Version(), "SCR SD_SPEC, SD_SPEC3, SD_SPEC4, SD_SPECX (sysfs device/scr)")
	}
	v, why := d.read("device/ssr")
	if why != "" {
		setAll(&in.SD, why+" (the kernel publishes the SD Status from Linux 4.10 on)")
		return
	}
	reg, err := ParseSSRText(v)
	if err != nil {
		setAll(&in.SD, "sysfs device/ssr: "+err.Error())
		return
	}
	s, _ := DecodeSSR(reg)
	ssrFacts(&in.SD, s, spec3)
}

func sdCSDFacts(f *CSDFacts, c SDCSD) {
	const s = "CSD (sysfs device/csd)"
	f.Structure = code(uint64(c.Structure), c.Version(), s+" CSD_STRUCTURE [127:126]")
	f.Capacity = num(float64(c.Capacity()), "bytes", s+" C_SIZE")
	f.TranSpeed = tranFact(c.TranSpeedHz())
	f.EraseGroup = num(float64(c.EraseSector()), "bytes", s+" SECTOR_SIZE [45:39], WRITE_BL_LEN")
	f.EraseBlkEn = code(b2u(c.EraseBlkEn), yesNo(c.EraseBlkEn), s+" ERASE_BLK_EN [46]")
	if c.WPGrpEn {
		f.WPGroup = num(float64(int64(c.WPGrpSize+1)*c.EraseSector()), "bytes", s+" WP_GRP_SIZE [38:32]")
	} else {
		f.WPGroup = missing("CSD WP_GRP_ENABLE is 0: no write-protect groups")
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// ssrFacts turns the SD Status into facts; a code that means "not
// defined" is not a value.
func ssrFacts(f *SDFacts, s SSR, spec3 bool) {
	const src = "SD Status (sysfs device/ssr) "
	if au, why := s.AU(spec3); why != "" {
		f.AUSize = missing("SD Status %s", why)
	} else {
		f.AUSize = num(float64(au), "bytes", src+"AU_SIZE [431:428]")
	}
	if s.EraseSize == 0 || s.EraseTimeout == 0 {
		// The card gives no erase timing; the kernel then times erases
		// by its own rule.
		why := "SD Status ERASE_SIZE or ERASE_TIMEOUT is 0: the card states no erase timing"
		f.EraseSize, f.EraseTimeout, f.EraseOffset = missing("%s", why), missing("%s", why), missing("%s", why)
	} else {
		f.EraseSize = num(float64(s.EraseSize), "AUs", src+"ERASE_SIZE [423:408]")
		f.EraseTimeout = num(float64(s.EraseTimeout), "s", src+"ERASE_TIMEOUT [407:402]")
		f.EraseOffset = num(float64(s.EraseOffset), "s", src+"ERASE_OFFSET [401:400]")
	}
	f.SpeedClass = code(uint64(s.SpeedClass), s.SpeedClassText(), src+"SPEED_CLASS [447:440]")
	f.UHSSpeedGrade = code(uint64(s.UHSSpeedGrade), s.UHSGradeText(), src+"UHS_SPEED_GRADE [399:396]")
	if s.UHSAUSize == 0 || auBytes[s.UHSAUSize] == 0 {
		f.UHSAUSize = missing("SD Status UHS_AU_SIZE is 0: not a UHS card, or not defined")
	} else {
		f.UHSAUSize = num(float64(auBytes[s.UHSAUSize]), "bytes", src+"UHS_AU_SIZE [395:392]")
	}
	f.VideoSpeedClass = code(uint64(s.VideoSpeedClass), videoClassText(s.VideoSpeedClass), src+"VIDEO_SPEED_CLASS [391:384]")
	if s.VSCAUSize == 0 {
		f.VSCAUSize = missing("SD Status VSC_AU_SIZE is 0: no Video Speed Class AU")
	} else {
		f.VSCAUSize = num(float64(s.VSCAUSize)*(1<<20), "bytes", src+"VSC_AU_SIZE [377:368]")
	}
	f.AppPerfClass = code(uint64(s.AppPerfClass), appClassText(s.AppPerfClass), src+"APP_PERF_CLASS [339:336]")
	switch s.PerformanceMove {
	case 0:
		f.PerformanceMove = code(0, "0 (the card moves data as a sequential write)", src+"PERFORMANCE_MOVE [439:432]")
	case 0xff:
		f.PerformanceMove = code(0xff, "255 (infinite: no data moved)", src+"PERFORMANCE_MOVE [439:432]")
	default:
		f.PerformanceMove = num(float64(s.PerformanceMove), "MB/s", src+"PERFORMANCE_MOVE [439:432]")
	}
	f.DiscardSupport = code(b2u(s.DiscardSupport), yesNo(s.DiscardSupport), src+"DISCARD_SUPPORT [313]")
	f.FULESupport = code(b2u(s.FULESupport), yesNo(s.FULESupport), src+"FULE_SUPPORT [312]")
}

func videoClassText(v int) string {
	switch v {
	case 0:
		return "0 (no Video Speed Class)"
	case 6, 10, 30, 60, 90:
		return fmt.Sprintf("V%d", v)
	}
	return fmt.Sprintf("%d (reserved value)", v)
}

func appClassText(v int) string {
	switch v {
	case 0:
		return "0 (no Application Performance Class)"
	case 1, 2:
		return fmt.Sprintf("A%d", v)
	}
	return fmt.Sprintf("%d (reserved value)", v)
}

// derive picks the capacity and the erase group in force from what was
// read, saying which register each came from.
func derive(in *Info) {
	switch e := in.ExtCSD.SecCount; {
	case e.Known():
		in.Capacity = num(e.Num*512, "bytes", e.Source+" × 512")
	case in.CSD.Capacity.Known():
		in.Capacity = in.CSD.Capacity
	case in.Kernel.Size.Known():
		in.Capacity = num(in.Kernel.Size.Num*512, "bytes", "sysfs size × 512")
	default:
		in.Capacity = missing("no SEC_COUNT, CSD or sysfs size")
	}
	in.EraseGroupSize = eraseGroupInForce(in)
}

// eraseGroupInForce is the eMMC erase group an ERASE command works in: the
// high-capacity group when EXT_CSD ERASE_GROUP_DEF is 1, else the CSD's.
// The host sets ERASE_GROUP_DEF after each power-up (Linux does when it
// uses high-capacity erase; U-Boot often does not), so the same device can
// answer both ways.
func eraseGroupInForce(in *Info) Fact {
	if in.Card.Type.Text != "MMC" {
		return missing("erase groups are an eMMC's; an SD card's unit is its allocation unit (ssr_au_size)")
	}
	def, hc, csd := in.ExtCSD.EraseGroupDef, in.ExtCSD.HCEraseGroupSize, in.CSD.EraseGroup
	switch {
	case def.Known() && def.Num == 1 && hc.Known():
		return num(hc.Num, "bytes", hc.Source+", ERASE_GROUP_DEF [175] is 1")
	case def.Known() && def.Num == 1:
		return missing("ERASE_GROUP_DEF is 1 but %s", hc.Why())
	case def.Known() && csd.Known():
		return num(csd.Num, "bytes", csd.Source+"; EXT_CSD ERASE_GROUP_DEF [175] is 0, so the high-capacity group is not in force")
	case def.Known():
		return missing("ERASE_GROUP_DEF is 0 and the CSD's erase group is not available: %s", csd.Why())
	case in.Kernel.EraseSize.Known():
		f := in.Kernel.EraseSize
		f.Source += " (the kernel's erase group; EXT_CSD not available)"
		return f
	}
	return missing("no EXT_CSD (%s) and no sysfs erase_size", in.ExtCSDSource.Why())
}
