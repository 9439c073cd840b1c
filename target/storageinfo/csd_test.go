package storageinfo

import (
	"bufio"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// usbsdmuxField is the raw number usbsdmux printed for a register field:
// the "raw: 0b... == 0x.. == N" line under "  NAME:".
func usbsdmuxField(t *testing.T, report, name string) int64 {
	t.Helper()
	re := regexp.MustCompile(`(?m)^  ` + name + `:.*\n    raw: \S+ == \S+ == (\d+)`)
	m := re.FindStringSubmatch(report)
	if m == nil {
		t.Fatalf("no %s in the usbsdmux report", name)
	}
	v, _ := strconv.ParseInt(m[1], 10, 64)
	return v
}

// usbsdmuxRegister is the hex value of a register usbsdmux printed.
func usbsdmuxRegister(t *testing.T, report, reg string) []byte {
	t.Helper()
	m := regexp.MustCompile(reg + `\S* Register Value: ([0-9a-f]+)`).FindStringSubmatch(report)
	if m == nil {
		t.Fatalf("no %s register", reg)
	}
	b, err := parseHexRegister(m[1], len(m[1])/2)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Four SD cards read by usbsdmux, whose decoder's results stand beside
// each register: ours must read the same fields and the same capacity.
func TestSDCSDAgreesWithUsbsdmux(t *testing.T) {
	for file, wantBytes := range map[string]int64{
		"usbsdmux-sandisk-sa04g.text":  3904897024,        // "value: 3904897024 bytes"
		"usbsdmux-samsung-gf8s5.text":  512711720960,      // "value: 512711720960 bytes"
		"usbsdmux-kingston-00000.text": 7990149120,        // "value: 7990149120 bytes"
		"usbsdmux-transcend-usd.text":  3830 * 512 * 1024, // CSD 1.0: "value: 3830", "value: 512", "1024 bytes"
	} {
		t.Run(file, func(t *testing.T) {
			report := fixture(t, file)
			c, err := DecodeSDCSD(usbsdmuxRegister(t, report, "CSD"))
			if err != nil {
				t.Fatal(err)
			}
			for name, got := range map[string]int64{
				"CSD_STRUCTURE": int64(c.Structure), "C_SIZE": c.CSize, "SECTOR_SIZE": int64(c.SectorSize),
				"READ_BL_LEN": int64(c.ReadBlLen), "WRITE_BL_LEN": int64(c.WriteBlLen), "TRAN_SPEED": int64(c.TranSpeed),
				"ERASE_BLK_EN": int64(b2u(c.EraseBlkEn)), "CCC": int64(c.CCC),
			} {
				if want := usbsdmuxField(t, report, name); got != want {
					t.Errorf("%s = %d, usbsdmux reads %d", name, got, want)
				}
			}
			if c.Capacity() != wantBytes {
				t.Errorf("capacity %d, usbsdmux says %d", c.Capacity(), wantBytes)
			}
			if hz, err := c.TranSpeedHz(); err != nil || hz != 25e6 { // "value: 25000000.0 bit/s"
				t.Errorf("TRAN_SPEED %d Hz (%v), want 25 MHz", hz, err)
			}
			if c.EraseSector() != 128<<c.WriteBlLen { // "value: 128 write blocks"
				t.Errorf("erase sector %d bytes", c.EraseSector())
			}
			s, err := DecodeSCR(usbsdmuxRegister(t, report, "SCR"))
			if err != nil || int64(s.SDSpec) != usbsdmuxField(t, report, "SD_SPEC") || int64(b2u(s.SDSpec3)) != usbsdmuxField(t, report, "SD_SPEC3") {
				t.Errorf("SCR %+v (%v) disagrees with usbsdmux", s, err)
			}
		})
	}
}

// Five microSD cards read from sysfs on an Android phone, known by their
// printed capacity; their CIDs give SanDisk's and ATP's manufacturer IDs
// as the kernel names them.
func TestSDCSDLibmapleCards(t *testing.T) {
	sc := bufio.NewScanner(strings.NewReader(fixture(t, "libmaple-sd-cards.txt")))
	n := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 || strings.HasPrefix(f[0], "#") {
			continue
		}
		n++
		label, cidHex, csdHex := f[0], f[1], f[2]
		reg, _ := parseHexRegister(csdHex, CSDSize)
		c, err := DecodeSDCSD(reg)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		gb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.SplitN(label, "-", 2)[1], "GB"), 64)
		// A marked "GB" is 10^9 bytes, but a small card may hold up to a GiB.
		if got := float64(c.Capacity()) / 1e9; got > gb*1.074 || got < 0.9*gb {
			t.Errorf("%s: capacity %.2f GB for a card marked %v GB", label, got, gb)
		}
		if wantV1 := gb <= 2; (c.Structure == 0) != wantV1 {
			t.Errorf("%s: CSD %s; cards of 2 GB or less are SDSC with CSD 1.0", label, c.Version())
		}
		cid, _ := parseHexRegister(cidHex, 16)
		mid := manufacturer("SD", int(field(cid, 127, 120)))
		if brand := strings.SplitN(label, "-", 2)[0]; brand == "SanDisk" || brand == "ATP" {
			if !strings.HasPrefix(mid, brand+" ") {
				t.Errorf("%s: manufacturer %q", label, mid)
			}
		}
	}
	if n != 5 {
		t.Fatalf("%d cards read, want 5", n)
	}
}

// Seventeen CSDs from Aaru's tests: SD 1.0 and 2.0 and three old MMC
// cards, with Aaru's decoded fields; the capacity must fit the size the
// card is named for.
func TestCSDAgreesWithAaru(t *testing.T) {
	sdSizes := map[string][3]int{ // C_SIZE, C_SIZE_MULT, SECTOR_SIZE as Aaru decodes them
		"microsdhc_goodram_16gb": {29711, 0, 127}, "microsdhc_kingston_4gb": {7559, 0, 127},
		"microsdhc_kingston_8gb": {15207, 0, 127}, "microsdhc_kodak_2gb": {3871, 7, 127},
		"microsdhc_nobrand_2gb": {3751, 7, 127}, "microsdhc_sandisk_16gb": {30386, 0, 127},
		"microsdhc_sandisk_32gb": {60872, 0, 127}, "microsdhc_trascend_2gb": {3819, 7, 63},
		"sd_adata_4gb": {3925, 7, 127}, "sdhc_fujifilm_4gb": {7591, 0, 127}, "sdhc_kodak_4gb": {7659, 0, 127},
		"sdhc_pny_4gb": {7562, 0, 127}, "sdhc_puntitos_4gb": {7615, 0, 127}, "sd_pqi_64mb": {3879, 3, 31},
	}
	mmcSizes := map[string][4]int{ // C_SIZE, C_SIZE_MULT, ERASE_GRP_SIZE, ERASE_GRP_MULT
		"mmc_6600_32mb": {1959, 3, 0, 31}, "mmc_pretec_32mb": {1959, 3, 0, 15}, "mmc_takems_256mb": {3919, 5, 0, 31},
	}
	seen := 0
	for _, line := range strings.Split(fixture(t, "aaru-csd.txt"), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		seen++
		kind, card, reg := f[0], f[1], f[2]
		b, _ := parseHexRegister(reg, CSDSize)
		var capacity int64
		if kind == "sd" {
			c, err := DecodeSDCSD(b)
			want := sdSizes[card]
			if err != nil || c.CSize != int64(want[0]) || c.CSizeMult != want[1] || c.SectorSize != want[2] {
				t.Errorf("%s: C_SIZE %d, C_SIZE_MULT %d, SECTOR_SIZE %d (%v), Aaru reads %v", card, c.CSize, c.CSizeMult, c.SectorSize, err, want)
			}
			capacity = c.Capacity()
		} else {
			c, _ := DecodeMMCCSD(b)
			want := mmcSizes[card]
			if c.CSize != int64(want[0]) || c.CSizeMult != want[1] || c.EraseGrpSize != want[2] || c.EraseGrpMult != want[3] {
				t.Errorf("%s: %+v, Aaru reads %v", card, c, want)
			}
			if hz, _ := c.TranSpeedHz(); hz != 20e6 { // TRAN_SPEED 42 (0x2a): 2.0 × 10 Mbit/s
				t.Errorf("%s: TRAN_SPEED %d Hz, want 20 MHz", card, hz)
			}
			capacity, _ = c.Capacity()
		}
		name := card[strings.LastIndex(card, "_")+1:]
		unit := map[string]float64{"gb": 1e9, "mb": 1e6}[name[len(name)-2:]]
		size, _ := strconv.ParseFloat(name[:len(name)-2], 64)
		if r := float64(capacity) / (size * unit); r < 0.9 || r > 1.074 {
			t.Errorf("%s: capacity %d bytes is %.2f of the name's size", card, capacity, r)
		}
	}
	if seen != len(sdSizes)+len(mmcSizes) {
		t.Fatalf("%d registers read, want %d", seen, len(sdSizes)+len(mmcSizes))
	}
}

// The Samsung eMMC of the Armbian dump: a CSD that defers the capacity to
// EXT_CSD and whose erase group (32 × 32 blocks) is the 512 KiB the kernel
// published as preferred_erase_size.
func TestMMCCSDSamsungEMMC(t *testing.T) {
	b, _ := parseHexRegister("d02701320f5903fff6dbffef8e40400d", CSDSize)
	c, _ := DecodeMMCCSD(b)
	if c.Structure != 3 || c.SpecVers != 4 {
		t.Errorf("CSD_STRUCTURE %d, SPEC_VERS %d, want 3 and 4", c.Structure, c.SpecVers)
	}
	if _, ok := c.Capacity(); ok {
		t.Error("a C_SIZE of 0xFFF gave a capacity")
	}
	if c.EraseGroup() != 512<<10 {
		t.Errorf("erase group %d", c.EraseGroup())
	}
	if hz, _ := c.TranSpeedHz(); hz != 26e6 { // MMC's 0x32 is 26 MHz, not SD's 25
		t.Errorf("TRAN_SPEED %d Hz, want 26 MHz", hz)
	}
	if _, err := tranSpeed(0x00, true); err == nil {
		t.Error("a reserved TRAN_SPEED decoded")
	}
}
